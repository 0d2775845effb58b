"""What only a running fabric shows: LLDP cabling, BGP sessions, and whether collection was complete."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.contracts.observed import LldpNeighbor
from xoff.desired.models import Device, Interface, Peer
from xoff.validate.checks.common import not_judged
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

    def skip_reason(self, ctx: CheckContext) -> str | None:
        # a snapshot that read no device and recorded no failure (an empty captures directory, a selection that
        # matched nothing) has nothing to call complete
        if not ctx.snapshot.observed.devices and not ctx.snapshot.errors:
            return "the snapshot holds no device: nothing was collected"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if ctx.snapshot.shard is None:  # a shard holds its part of the fabric only
            failed = {err.device for err in ctx.snapshot.errors}
            absent = set(ctx.desired.devices) - set(ctx.snapshot.observed.devices) - failed
            self.note = not_judged(ctx.chosen(absent), "not in the snapshot")
        for err in ctx.snapshot.errors:
            yield Finding(err.device, err.command or "collect", f"{err.kind}: {err.message}", "collected", err.kind)


@register
class LldpCabling(Check):
    """A cable in the wrong port or to the wrong device, or a link that is down: LLDP neighbours against
    the intended peer of every cabled port, on the devices whose LLDP was collected."""

    id = "cabling.lldp"
    tags = ("drift",)
    title = "LLDP neighbours match the intended cabling"
    needs = frozenset({"observed"})
    hint = "re-cable the port to the intended peer (or fix the intent's cabling)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return None if ctx.snapshot.lldp else "the snapshot has no LLDP neighbours"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        cabled = {d.name for d in ctx.desired.devices.values() if any(_cabled(i) for i in d.interfaces.values())}
        self.note = not_judged(ctx.chosen(cabled - set(ctx.snapshot.lldp)), "no LLDP neighbours observed")
        for name, neighbours in sorted(ctx.snapshot.lldp.items()):
            dev = ctx.desired.devices.get(name)
            if dev is not None:
                yield from _device_cabling(dev, neighbours)


def _cabled(iface: Interface) -> bool:
    return iface.peer is not None and iface.kind == "ethernet"


def same_host(announced: str, intended: str) -> bool:
    """An LLDP system name names the intended device: hostnames are case-insensitive, and a name announced
    with a domain (``DC1-SPINE1.example.net``) is compared by its first label."""
    name, want = announced.strip().casefold(), intended.strip().casefold()
    return name == want or ("." in name and "." not in want and name.split(".", 1)[0] == want)


def _problem(neighbours: list[LldpNeighbor], port: str, want: Peer) -> tuple[str | None, list[str]]:
    """What is wrong with what a port hears (None: its intended peer and no one else), and what it hears."""
    got = [n for n in neighbours if n.port == port]
    right = [n for n in got if same_host(n.neighbor, want.device) and n.neighbor_port == want.port]
    heard = [f"{n.neighbor}:{n.neighbor_port}" for n in got]
    if not got:
        return "no LLDP neighbour", heard
    if not right:
        return "LLDP neighbour is not the intended peer", heard
    return (None if len(got) == 1 else "LLDP neighbours besides the intended peer"), heard


def _device_cabling(dev: Device, neighbours: list[LldpNeighbor]) -> Iterable[Finding]:
    for iface in dev.interfaces.values():
        if iface.peer is None or not _cabled(iface):
            continue
        problem, heard = _problem(neighbours, iface.name, iface.peer)
        if problem is not None:  # a point-to-point port hears its peer and no one else
            want = f"{iface.peer.device}:{iface.peer.port}"
            yield Finding(dev.name, iface.name, problem, want, ", ".join(heard) or "none", port=iface.name)
    cabled_ports = {i.name for i in dev.interfaces.values() if _cabled(i)}
    uncabled: dict[str, list[str]] = {}
    for n in neighbours:
        intended = dev.interfaces.get(n.port)
        if n.port in cabled_ports or (intended is not None and intended.kind == "mgmt"):
            continue
        uncabled.setdefault(n.port, []).append(f"{n.neighbor}:{n.neighbor_port}")
    for port, got in sorted(uncabled.items()):
        yield Finding(
            dev.name, port, "LLDP neighbour on a port the intent leaves uncabled", "none", ", ".join(got), port=port
        )


@register
class BgpSessions(Check):
    """A BGP session that is not Established, peers with the wrong AS, is missing, or is not intended:
    the underlay loses paths (ECMP width) or leaks routes."""

    id = "bgp.sessions"
    tags = ("routing",)
    title = "BGP sessions Established with the intended peers and ASNs"
    needs = frozenset({"observed"})
    hint = "check the peer's address/ASN and the link (show bgp summary); push the intended BGP config"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return None if ctx.snapshot.bgp_sessions else "the snapshot has no BGP sessions"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        routers = {d.name for d in ctx.desired.devices.values() if d.bgp is not None}
        self.note = not_judged(ctx.chosen(routers - set(ctx.snapshot.bgp_sessions)), "no BGP sessions observed")
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
