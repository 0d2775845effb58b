"""What only a running fabric shows: LLDP cabling, BGP sessions, and whether collection was complete."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


@register
class CollectComplete(Check):
    """A device, command or parser that could not be read: its state is unknown, never "clean"."""

    id = "collect.complete"
    title = "Every device and command of the snapshot was collected and parsed"
    needs = frozenset({"observed"})
    hint = "fix reachability/credentials, or the parser named, and collect again"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for err in ctx.snapshot.errors:
            yield Finding(err.device, err.command or "collect", f"{err.kind}: {err.message}", "collected", err.kind)


@register
class LldpCabling(Check):
    """A cable in the wrong port or to the wrong device, or a link that is down: LLDP neighbours against
    the intended peer of every cabled port, on the devices whose LLDP was collected."""

    id = "cabling.lldp"
    title = "LLDP neighbours match the intended cabling"
    needs = frozenset({"observed"})
    hint = "re-cable the port to the intended peer (or fix the intent's cabling)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return None if ctx.snapshot.lldp else "the snapshot has no LLDP neighbours"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for name, neighbours in sorted(ctx.snapshot.lldp.items()):
            dev = ctx.desired.devices.get(name)
            if dev is None:
                continue
            seen: dict[str, list[str]] = {}
            for n in neighbours:
                seen.setdefault(n.port, []).append(f"{n.neighbor}:{n.neighbor_port}")
            for iface in dev.interfaces.values():
                if iface.peer is None or iface.kind not in ("ethernet",):
                    continue
                want = f"{iface.peer.device}:{iface.peer.port}"
                got = seen.pop(iface.name, [])
                if got != [want]:  # a point-to-point port hears its peer and no one else
                    if not got:
                        problem = "no LLDP neighbour"
                    elif want in got:
                        problem = "LLDP neighbours besides the intended peer"
                    else:
                        problem = "LLDP neighbour is not the intended peer"
                    yield Finding(name, iface.name, problem, want, ", ".join(got) or "none", port=iface.name)
            for port, got in sorted(seen.items()):
                intended = dev.interfaces.get(port)
                if intended is not None and intended.kind == "mgmt":
                    continue
                yield Finding(
                    name, port, "LLDP neighbour on a port the intent leaves uncabled", "none", ", ".join(got), port=port
                )


@register
class BgpSessions(Check):
    """A BGP session that is not Established, peers with the wrong AS, is missing, or is not intended:
    the underlay loses paths (ECMP width) or leaks routes."""

    id = "bgp.sessions"
    title = "BGP sessions Established with the intended peers and ASNs"
    needs = frozenset({"observed"})
    hint = "check the peer's address/ASN and the link (show bgp summary); push the intended BGP config"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return None if ctx.snapshot.bgp_sessions else "the snapshot has no BGP sessions"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for name, sessions in sorted(ctx.snapshot.bgp_sessions.items()):
            dev = ctx.desired.devices.get(name)
            if dev is None:
                continue
            got = {s.address: s for s in sessions}
            for nb in dev.bgp.neighbors if dev.bgp else []:
                s = got.pop(nb.address, None)
                where = f"neighbor {nb.address} ({nb.peer})"
                if s is None:
                    yield Finding(name, where, "no session", "Established", "absent", port=nb.interface)
                elif s.remote_asn != nb.remote_asn:
                    yield Finding(
                        name, where, "remote AS differs", str(nb.remote_asn), str(s.remote_asn), port=nb.interface
                    )
                elif s.state != "Established":
                    yield Finding(name, where, "session not established", "Established", s.state, port=nb.interface)
            for address, s in sorted(got.items()):
                yield Finding(
                    name, f"neighbor {address}", "session not in the intent", "absent", f"AS{s.remote_asn} {s.state}"
                )
