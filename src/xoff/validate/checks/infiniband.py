"""InfiniBand checks (reference/lossless.md §5, deadlock.md §6): routing engine and credit loops,
SL -> VL -> arbitration weight, partitions, link width/speed, LFT routes to every host.

Each check judges the desired FabricState and, when a snapshot carries one (``Snapshot.infiniband``),
the fabric as read back by infiniband-diags (:class:`IbObservation`).
What holds on intent alone runs without an observation; what only the running fabric can show
is skipped without one. Switches are matched by ``Device.guid``, host HCAs by the port GUIDs of
``desired.ib_guids.hca_port_guids``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from xoff.contracts.infiniband import GENERATIONS, IbObservation, PortRef, link_width_speed
from xoff.deadlock.ib.credit import analyse_ib
from xoff.desired.ib_guids import IB_NETWORK, hca_port_guids
from xoff.desired.models import FabricState, SubnetManager
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

_TIER = {"leaf": 1, "spine": 2, "super-spine": 3}
# Deadlock-free by construction on any topology (opensm(8), deadlock.md §6); updn/dnup subject to roots.
_FREE_ANYWHERE = frozenset({"updn", "dnup", "lash", "dfsssp", "nue"})
# Shortest-path engines: every min-hop path of a fat tree goes up then down, elsewhere they can loop.
_FREE_ON_FAT_TREE = frozenset({"ftree", "minhop", "sssp"})


def _guid(text: str) -> str:
    return f"0x{int(text, 16):016x}"


def _sm(subject: FabricState) -> tuple[str, SubnetManager] | None:
    for d in subject.devices.values():
        if d.subnet_manager is not None:
            return d.name, d.subnet_manager
    return None


def _has_ib(subject: FabricState) -> str | None:
    if not any(n.kind == "infiniband" for n in subject.networks.values()) or _sm(subject) is None:
        return "no InfiniBand network with a subnet manager in this fabric"
    return None


def _switch_links(subject: FabricState) -> Iterator[tuple[str, str]]:
    ib = {d.name for d in subject.devices.values() if d.kind == "ib_switch"}
    for link in subject.links:
        if link.a.device in ib and link.b.device in ib:
            yield link.a.device, link.b.device


def topology_kind(subject: FabricState) -> str:
    """``fat-tree`` when every switch-switch link joins adjacent tiers, else ``other``."""
    role = {d.name: d.role for d in subject.devices.values() if d.kind == "ib_switch"}
    for a, b in _switch_links(subject):
        if abs(_TIER.get(role[a], 0) - _TIER.get(role[b], 0)) != 1:
            return "other"
    return "fat-tree"


def observation(ctx: CheckContext) -> IbObservation | None:
    """The InfiniBand observation of the context's snapshot (``Snapshot.infiniband``), if one was collected."""
    return None if ctx.observed is None else ctx.observed.infiniband


@dataclass(frozen=True)
class HcaPort:
    """An intended host HCA port (its host and netdev, as the intent names it) and where the fabric read
    back has it (``ref``: None when it is not there)."""

    host: str
    netdev: str
    guid: str
    ref: PortRef | None

    def finding(self, problem: str, expected: str, actual: str) -> Finding:
        return Finding(self.host, self.netdev, problem, expected, actual, port=self.netdev)


def hca_ports(desired: FabricState, observed: IbObservation) -> Iterator[HcaPort]:
    """Every intended host HCA port, found (or not) in the fabric read back: the per-port loop of the
    checks that judge each host's port."""
    ports = observed.port_by_guid()
    for (host, netdev), guid in hca_port_guids(desired).items():
        yield HcaPort(host, netdev, guid, ports.get(guid))


class InfinibandCheck(Check):
    """Base: ``judge(desired, observed)`` is the pure core; ``check(ctx)`` feeds it the context's
    desired state and its snapshot's InfiniBand observation (None = intent only)."""

    needs_observation: ClassVar[bool] = False

    def skip_reason(self, ctx: CheckContext) -> str | None:
        reason = _has_ib(ctx.desired)
        if reason is None and self.needs_observation and observation(ctx) is None:
            return (
                "needs the running InfiniBand fabric (collect with infiniband-diags); nothing to judge on intent alone"
            )
        if reason is None and ctx.observed is not None and observation(ctx) is None:
            # judging running state: the intent alone would be a pass on what was never seen (it is judged offline)
            return "the snapshot has no InfiniBand observation (collect it with infiniband-diags on the SM host)"
        return reason

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        return self.judge(ctx.desired, observation(ctx))

    @abstractmethod
    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        """The findings on the intent and, when collected, the running InfiniBand fabric."""


@register
class RoutingDeadlockFree(InfinibandCheck):
    id = "infiniband.routing_deadlock_free"
    tags = ("deadlock",)
    title = "The routing engine is deadlock-free for the topology, and the programmed LFT/SL2VL have no credit loop"
    hint = "choose a routing engine that fits the topology (ftree on a fat tree; updn, dfsssp otherwise) in opensm.conf, then restart OpenSM"

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        found = _sm(desired)
        assert found is not None
        host, sm = found
        kind = topology_kind(desired)
        used = next((e for e in sm.routing_engine if e != "ftree" or kind == "fat-tree"), None)
        if used is None:
            used = None if sm.no_fallback else "minhop"
        engines = ",".join(sm.routing_engine)
        if used is None:
            yield Finding(
                host,
                "routing_engine",
                f"no engine of {engines} can route a {kind} topology",
                "an engine for it",
                engines,
            )
        elif not (used in _FREE_ANYWHERE or (used in _FREE_ON_FAT_TREE and kind == "fat-tree")):
            yield Finding(
                host,
                "routing_engine",
                f"OpenSM would route this {kind} topology with {used}, which is not credit-loop free on it",
                "ftree/updn on a fat tree; updn, dfsssp, lash or nue otherwise",
                used,
            )
        elif used in {"updn", "dnup"}:
            roots = {_guid(g) for g in sm.root_guids}
            guid_of = {d.name: _guid(d.guid) for d in desired.devices.values() if d.kind == "ib_switch" and d.guid}
            for a, b in _switch_links(desired):
                if guid_of.get(a) in roots and guid_of.get(b) in roots:
                    # OpenSM's updn takes a root-to-root link as up in both directions: no turn is forbidden on it
                    yield Finding(
                        host,
                        "root_guids",
                        f"{used} roots {a} and {b} are cabled to each other",
                        "roots not cabled to each other",
                        f"{a} - {b}",
                    )
                    break
        if observed is None:
            return
        if observed.routing_engine is not None and observed.routing_engine not in sm.routing_engine:
            yield Finding(
                host,
                "routing_engine",
                "OpenSM routed with an engine the intent does not list (fallback)",
                engines,
                observed.routing_engine,
            )
        result = analyse_ib(observed)
        for cycle in result.cycles:
            first = cycle.steps[0]
            path = " -> ".join([*cycle.switches, cycle.switches[0]])
            yield Finding(
                first.switch,
                f"VL {', '.join(map(str, cycle.vls))}",
                f"credit loop of {cycle.scc_size} (link, VL) channels; witness {path}; "
                f"first turn {first.in_port}->{first.out_port} for LID {first.dest_lid} ({first.dest}) SL{first.sl}",
                "no credit loop",
                f"cycle {path}",
                port=str(first.out_port),  # the first turn's out port on the witness switch
            )


def _used_sls(sm: SubnetManager) -> list[int]:
    return [sm.service_level]  # the qos-ulps policy puts everything on it (platforms/opensm/builders.qos_policy)


@register
class SlVlWeight(InfinibandCheck):
    id = "infiniband.sl_vl_weight"
    title = "Every used SL maps to a VL with arbitration weight > 0 (intent, and on every transmitting port)"
    hint = "map the SL to a VL below max_vls and give that VL a weight > 0 in vlarb_high or vlarb_low (opensm.conf / qos-policy)"

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        found = _sm(desired)
        assert found is not None
        host, sm = found
        weights: dict[int, int] = {}
        for vl, w in (*sm.vlarb_high, *sm.vlarb_low):
            weights[vl] = weights.get(vl, 0) + w
        for sl in _used_sls(sm):
            vl = sm.sl2vl[sl]
            if vl >= sm.max_vls or weights.get(vl, 0) <= 0:
                yield Finding(
                    host,
                    f"SL{sl}",
                    f"maps to VL{vl}, which has no arbitration weight (or is beyond max_vls {sm.max_vls})",
                    "> 0",
                    str(weights.get(vl, 0)),
                )
        if observed is None:
            return
        hosts = {g: key for key, g in hca_port_guids(desired).items()}  # HCA port GUID -> (host, netdev)
        for guid, node in sorted(observed.nodes.items()):
            arb = observed.vlarb.get(guid, {})
            for table in observed.sl2vl.get(guid, []):
                port = table.out_port
                if port == 0 or port not in node.ports or node.ports[port].peer is None:
                    continue  # the switch's management port, or a port with no cable
                for sl in _used_sls(sm):
                    vl = table.vls[sl]
                    have = arb[port].weight(vl) if port in arb else None
                    if have is None or have <= 0:
                        where = f"port {port}" + (f" (from port {table.in_port})" if node.kind == "switch" else "")
                        # an HCA port is named as the intent names it: its host and netdev
                        device, name = hosts.get(node.ports[port].guid or "", (node.description, str(port)))
                        yield Finding(
                            device, where, f"SL{sl} -> VL{vl} has no arbitration weight", "> 0", str(have), port=name
                        )


def _switch_names(desired: FabricState, observed: IbObservation) -> dict[str, str]:
    """Observed switch node GUID -> its intent name (by ``Device.guid``), else the description it reports."""
    by_guid = {_guid(d.guid): d.name for d in desired.devices.values() if d.kind == "ib_switch" and d.guid}
    return {g: by_guid.get(g, n.description) for g, n in observed.nodes.items() if n.kind == "switch"}


@register
class Partitions(InfinibandCheck):
    """PKeys are unique in the intent; in the fabric read back every host HCA port holds exactly the
    partitions its host is intended in (full or limited as intended), and, where OpenSM enforces
    partitions on switch ports (``part_enforce`` both/in/out: its default), the switch port facing each
    host holds every PKey of the host's partitions: a switch port without it drops the host's traffic in
    that partition (OpenSM copies the host port's table into the switch port it faces)."""

    id = "infiniband.partitions"
    title = "PKeys unique; every job host a member of its partition as intended, no other host in it"
    hint = "fix partitions.conf on the subnet manager host (one PKey per partition, the intended members), then resweep OpenSM"

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        found = _sm(desired)
        assert found is not None
        host, sm = found
        seen: set[int] = set()
        for p in sm.partitions:
            if p.pkey & 0x7FFF in seen or p.pkey & 0x7FFF == 0x7FFF:
                yield Finding(host, f"partition {p.name}", "PKey not unique", "unique, not 0x7fff", f"{p.pkey:#06x}")
            seen.add(p.pkey & 0x7FFF)
        if observed is None:
            return
        for hca in hca_ports(desired, observed):
            if hca.ref is None:
                yield hca.finding("HCA port not in the fabric read back", hca.guid, "absent")
                continue
            table = observed.pkeys.get(hca.ref.guid, {}).get(hca.ref.port)
            if table is None:
                yield hca.finding("PKey table not collected", "a PKey table", "none")
                continue
            got = {k & 0x7FFF: k for k in table}
            for p in sm.partitions:
                want = (p.pkey & 0x7FFF) | (0x8000 if p.membership == "full" else 0)
                if p.holds(hca.host, hca.netdev) and got.get(p.pkey & 0x7FFF) != want:
                    have = got.get(p.pkey & 0x7FFF)
                    yield hca.finding(
                        f"not a {p.membership} member of {p.name}",
                        f"{want:#06x}",
                        "absent" if have is None else f"{have:#06x}",
                    )
                elif not p.holds(hca.host, hca.netdev) and (p.pkey & 0x7FFF) in got:
                    yield hca.finding(
                        f"in partition {p.name} without being a member", "absent", f"{got[p.pkey & 0x7FFF]:#06x}"
                    )
        yield from self._switch_ports(desired, observed, sm)

    def _switch_ports(self, desired: FabricState, observed: IbObservation, sm: SubnetManager) -> Iterator[Finding]:
        """The switch port facing each host HCA port holds the PKeys of the host's partitions (when enforced)."""
        how = {"saquery": "saquery PKeyTableRecord (the SA)", "smpquery": "smpquery pkeys (SA refused)"}
        read = f"PKey tables read with {how.get(observed.pkey_source or '', 'an unknown tool')}"
        names = _switch_names(desired, observed)
        if not any(g in names for g in observed.pkeys):
            self.note = f"{read}; switch ports' PKey tables were not read: host-facing switch ports not judged"
            return
        enforce = observed.partition_enforcement or "both"  # OpenSM's default when its config was not read
        if enforce == "off":
            self.note = f"{read}; OpenSM's part_enforce is off: switch ports do not filter, not judged"
            return
        self.note = f"{read}; host-facing switch ports judged (OpenSM part_enforce {enforce})"
        for hca in hca_ports(desired, observed):
            port = observed.nodes[hca.ref.guid].ports.get(hca.ref.port) if hca.ref else None
            peer = port.peer if port else None
            if peer is None or peer.guid not in names:
                continue  # not cabled to a switch: LinkWidthSpeed says so
            switch, where = names[peer.guid], str(peer.port)
            table = observed.pkeys.get(peer.guid, {}).get(peer.port)
            if table is None:
                yield Finding(
                    switch, f"port {where}", f"PKey table of the port facing {hca.host} not collected", "a PKey table",
                    "none", port=where,
                )  # fmt: skip
                continue
            held = {k & 0x7FFF for k in table}
            for p in sm.partitions:
                if p.holds(hca.host, hca.netdev) and (p.pkey & 0x7FFF) not in held:
                    yield Finding(
                        switch,
                        f"port {where}",
                        f"lacks PKey {p.pkey & 0x7FFF:#06x} of partition {p.name} that {hca.host} {hca.netdev} "
                        f"(on this port) is a member of: partition enforcement ({enforce}) drops its traffic",
                        f"{p.pkey & 0x7FFF:#06x}",
                        "absent",
                        port=where,
                    )


def _capped(expected: str, cap: str | None) -> str:
    if cap is not None and GENERATIONS.index(expected) > GENERATIONS.index(cap):
        return cap
    return expected


@register
class LinkWidthSpeed(InfinibandCheck):
    id = "infiniband.link_width_speed"
    title = "Every intended InfiniBand link is up (Active) at its intended width and speed"
    hint = (
        "reseat or replace the cable or transceiver at the named port; check both ends' width and speed (ibportstate)"
    )
    needs_observation = True

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        assert observed is not None
        hcas = observed.port_by_guid()
        hca_guid = hca_port_guids(desired)

        def end(device: str, port: str) -> tuple[str, int] | None:
            d = desired.devices[device]
            if d.kind == "ib_switch" and d.guid:
                return _guid(d.guid), int(port)
            ref = hcas.get(hca_guid.get((device, port), ""))
            return (ref.guid, ref.port) if ref else None

        for link in desired.links:
            if link.network != IB_NETWORK or desired.networks[link.network].kind != "infiniband":
                continue
            width, speed = link_width_speed(link.speed_mbps)
            want = f"{width} {_capped(speed, observed.speed_cap)} Active"
            for near, far in ((link.a, link.b), (link.b, link.a)):  # each end reads its own port
                here, there = end(near.device, near.port), end(far.device, far.port)
                where = f"{near.port} -> {far.device}:{far.port}"
                node = observed.nodes.get(here[0]) if here else None
                port = node.ports.get(here[1]) if node and here else None
                if port is None:
                    yield Finding(
                        near.device, where, "link not in the fabric read back", want, "absent", port=near.port
                    )
                    continue
                got = f"{port.width} {port.speed} {port.state}"
                if got != want:
                    yield Finding(
                        near.device, where, "link width/speed/state not as intended", want, got, port=near.port
                    )
                elif port.peer is None or there is None or (port.peer.guid, port.peer.port) != there:
                    peer = f"{port.peer.guid}:{port.peer.port}" if port.peer else "nothing"
                    yield Finding(
                        near.device,
                        where,
                        "cabled to another port than intended",
                        f"{far.device}:{far.port}",
                        peer,
                        port=near.port,
                    )


def _walk(observed: IbObservation, start: str, lid: int, target: PortRef) -> str | None:
    """None when the LFTs lead from switch ``start`` to ``target``, else what goes wrong on the way."""
    hop, seen = start, set()
    while hop not in seen:
        seen.add(hop)
        node = observed.nodes[hop]
        out = observed.lfts.get(hop, {}).get(lid)
        port = node.ports.get(out) if out is not None else None
        if port is None or port.peer is None:
            return f"no route at {node.description} (LFT port {out})"
        if port.peer == target:
            return None
        nxt = observed.nodes.get(port.peer.guid)
        if nxt is None or nxt.kind != "switch":
            return f"{node.description} port {out} leads to {nxt.description if nxt else port.peer.guid}"
        hop = nxt.guid
    return f"the route loops through {observed.nodes[hop].description}"


@register
class LftRoutes(InfinibandCheck):
    id = "infiniband.lft_routes"
    title = "Every switch's LFT routes to every host HCA, and the routes reach it"
    hint = "make the subnet manager resweep (an HCA without a LID is not in the subnet: check its link); then re-read the LFTs"
    needs_observation = True

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        assert observed is not None
        switches = sorted(g for g, n in observed.nodes.items() if n.kind == "switch")
        for hca in hca_ports(desired, observed):
            lid = observed.nodes[hca.ref.guid].ports[hca.ref.port].lid if hca.ref else None
            if hca.ref is None or lid is None:
                yield hca.finding("HCA port has no LID in the fabric read back", "a LID", "none")
                continue
            for sw in switches:
                wrong = _walk(observed, sw, lid, hca.ref)
                if wrong is not None:
                    name = observed.nodes[sw].description
                    yield Finding(
                        name, f"LID {lid}", f"no working route to {hca.host} {hca.netdev}: {wrong}", "a route", "none"
                    )
