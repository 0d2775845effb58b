"""DSCP -> priority -> queue / PG along one path of a lossless network: host NIC -> leaf -> spine -> leaf -> host.

Each hop shows what it does with each class's DSCP on the port the traffic enters by (the sending host: its NIC):
the priority (switch traffic class), the egress queue and ingress PG, and whether PFC is on for that priority there.
A hop that does not do what the intent's class says is marked. Values are the observed ones when a snapshot holds
them, else (offline) the plan's; a hop whose mapping the snapshot does not hold says ``not observed``, never the
plan's value."""

from __future__ import annotations

from dataclasses import dataclass

from xoff.desired.models import Device, FabricState, TrafficClassPlan
from xoff.validate.coverage import unread
from xoff.validate.run import Validation

SWITCH_READS = ("qos.dscp_to_tc", "qos.tc_to_queue", "qos.tc_to_priority_group", "interfaces.*.pfc_priorities")
HOST_READS = ("host.nics.*.dscp_to_priority", "host.nics.*.pfc")


@dataclass(frozen=True)
class Hop:
    device: str
    port: str  # the port the traffic enters by (the sending host: its NIC)
    role: str
    origin: str  # observed | plan | not observed


@dataclass(frozen=True)
class HopCell:
    text: str
    differs: bool
    tip: str


@dataclass(frozen=True)
class PathRow:
    name: str  # the class
    dscp: int
    intended: str
    cells: list[HopCell]


@dataclass
class PathMap:
    network: str
    hops: list[Hop]
    rows: list[PathRow]


def _peer_of(dev: Device, port: str) -> tuple[str, str] | None:
    iface = dev.interfaces.get(port)
    return (iface.peer.device, iface.peer.port) if iface is not None and iface.peer is not None else None


def _uplinks(state: FabricState, dev: Device, network: str, role: str) -> list[tuple[str, str, str]]:
    """(my port, peer, peer port) towards devices of ``role`` on ``network``."""
    out = []
    for name, iface in sorted(dev.interfaces.items()):
        if iface.peer is None or iface.network != network:
            continue
        peer = state.devices.get(iface.peer.device)
        if peer is not None and (peer.role == role if role != "host" else peer.kind == "host"):
            out.append((name, iface.peer.device, iface.peer.port))
    return out


def _path(state: FabricState, network: str, prefer: set[str]) -> list[Hop]:
    """The first path host -> leaf -> spine -> leaf -> host (through a device in ``prefer`` when one has such a
    path), shortened where the network has no spine or a single leaf."""
    hosts = sorted(
        (d for d in state.devices.values() if d.kind == "host"), key=lambda d: (d.name not in prefer, d.name)
    )
    best: list[Hop] = []
    for host in hosts:
        for nic, leaf, leaf_port in _uplinks(state, host, network, "leaf"):
            hops = [Hop(host.name, nic, "host NIC", "plan"), Hop(leaf, leaf_port, "leaf", "plan")]
            hops += _down(state, network, state.devices[leaf], host.name)
            if len(hops) > len(best) or (len(hops) == len(best) and prefer & {h.device for h in hops} > set()):
                best = hops
            if len(best) == 5:
                return best
    return best


def _down(state: FabricState, network: str, leaf: Device, source: str) -> list[Hop]:
    for _, spine, spine_port in _uplinks(state, leaf, network, "spine"):
        for _, leaf2, leaf2_port in _uplinks(state, state.devices[spine], network, "leaf"):
            if leaf2 == leaf.name:
                continue
            for _, host2, host2_port in _uplinks(state, state.devices[leaf2], network, "host"):
                if host2 == source:
                    continue
                return [
                    Hop(spine, spine_port, "spine", "plan"),
                    Hop(leaf2, leaf2_port, "leaf", "plan"),
                    Hop(host2, host2_port, "host NIC", "plan"),
                ]
    for _, host2, host2_port in _uplinks(state, leaf, network, "host"):
        if host2 != source:
            return [Hop(host2, host2_port, "host NIC", "plan")]
    return []


def _subject(validation: Validation, hop: Hop) -> tuple[Device | None, str]:
    """The device whose values the hop shows, and where they come from."""
    snap = validation.snapshot
    if snap is None:
        return validation.desired.devices[hop.device], "plan"
    seen = snap.observed.devices.get(hop.device)
    reads = HOST_READS if seen is not None and seen.kind == "host" else SWITCH_READS
    if seen is None or unread(seen, snap.observed_fields.get(hop.device, []), reads):
        return None, "not observed"
    return seen, "observed"


def _at(dev: Device, port: str, dscp: int) -> tuple[int | None, int | None, int | None, bool] | None:
    """(priority, queue, PG, PFC on) at this hop; None when the device maps nothing there."""
    if dev.host is not None:
        nic = dev.host.nics.get(port)
        if nic is None:
            return None
        prio = nic.dscp_to_priority.get(dscp)
        return prio, None, None, prio is not None and len(nic.pfc) > prio and nic.pfc[prio] == 1
    if dev.qos is None:
        return None
    tc = dev.qos.dscp_to_tc.get(dscp)
    if tc is None:
        return None
    iface = dev.interfaces.get(port)
    lossless = iface is not None and tc in iface.pfc_priorities
    return tc, dev.qos.tc_to_queue.get(tc), dev.qos.tc_to_priority_group.get(tc), lossless


def _text(prio: int | None, queue: int | None, pg: int | None, pfc: bool) -> str:
    parts = [f"prio {prio}"]
    parts += [f"Q{queue}"] if queue is not None else []
    parts += [f"PG{pg}"] if pg is not None else []
    return " \u2192 ".join(parts) + (" \u00b7 PFC" if pfc else " \u00b7 lossy")


def _cell(dev: Device | None, origin: str, hop: Hop, dscp: int, cls: TrafficClassPlan) -> HopCell:
    if dev is None:
        return HopCell("not observed", False, f"{hop.device} {hop.port}: the snapshot does not hold its mapping")
    got = _at(dev, hop.port, dscp)
    if got is None:
        return HopCell("no mapping", True, f"{hop.device} {hop.port}: DSCP {dscp} is not mapped ({origin})")
    prio, queue, pg, pfc = got
    wrong = [
        what
        for what, have, want in (
            ("priority", prio, cls.priority if dev.host is not None else cls.traffic_class),
            ("queue", queue, cls.queue),
            ("PG", pg, cls.priority_group if cls.lossless else None),
        )
        if have is not None and want is not None and have != want
    ]
    wrong += ["PFC off" if cls.lossless else "PFC on"] if pfc != cls.lossless else []
    tip = f"{hop.device} {hop.port} ({origin}): DSCP {dscp} -> " + _text(prio, queue, pg, pfc)
    return HopCell(_text(prio, queue, pg, pfc), bool(wrong), tip + (f"; differs: {', '.join(wrong)}" if wrong else ""))


def _classes(dev: Device) -> list[tuple[TrafficClassPlan, int]]:
    assert dev.qos is not None
    used = {d for c in dev.qos.classes for d in c.dscp}
    other = next((d for d in range(64) if d not in used), 0)
    return [(c, c.dscp[0] if c.dscp else other) for c in dev.qos.classes]


def path_map(validation: Validation, prefer: set[str]) -> PathMap | None:
    """The first lossless network's path (through a device of ``prefer``, the failing ones, when there is one)."""
    state = validation.desired
    for name, net in sorted(state.networks.items()):
        if net.kind != "roce" or not net.lossless_priorities:
            continue
        hops = _path(state, name, prefer)
        leaf = state.devices[hops[1].device] if len(hops) > 1 else None
        if leaf is None or leaf.qos is None:
            continue
        subjects = [_subject(validation, h) for h in hops]
        hops = [Hop(h.device, h.port, h.role, origin) for h, (_, origin) in zip(hops, subjects, strict=True)]
        rows = []
        for cls, dscp in _classes(leaf):
            cells = [_cell(d, o, h, dscp, cls) for h, (d, o) in zip(hops, subjects, strict=True)]
            want = _text(cls.priority, cls.queue, cls.priority_group if cls.lossless else None, cls.lossless)
            rows.append(PathRow(cls.name, dscp, want, cells))
        return PathMap(name, hops, rows)
    return None
