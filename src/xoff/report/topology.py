"""The fabric as a picture: one row of boxes per tier (super-spines, spines, leaves, hosts), links between them,
each box coloured by the worst status of what it stands for. Readable at any size: a tier with more devices than
fit in a row is drawn as groups (consecutive names, the count in the box), hosts grouped per rack (the leaves they
attach to) with counts instead of one box per NIC; links between groups are drawn once, with their count. Geometry
only; the HTML template prints it as inline SVG."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xoff.desired.models import Device, FabricState

WIDTH = 1200
MARGIN = 30
BOX_H = 38
TIER_GAP = 90  # from one tier's boxes to the next
GAP = 10  # between boxes of a tier
MIN_BOX_W = 84
MAX_BOX_W = 150
PER_ROW = (WIDTH - 2 * MARGIN + GAP) // (MIN_BOX_W + GAP)  # boxes a tier holds before it is grouped
HOSTS_EACH = 4  # hosts drawn one box each up to this many per rack; more share boxes
HOSTS_PER_BOX = 8  # hosts of a big rack per box (a failing host stays in a small box)
TITLE_NAMES = 24  # names a group's tooltip lists
CHAR_W = 6.2  # width of a character at the label's font size, for cutting long labels
WORST = ("ok", "skipped", "warning", "failing")  # later is worse
_RANK = {"super_spine": 0, "super-spine": 0, "superspine": 0, "core": 0, "spine": 1, "leaf": 2}


@dataclass(frozen=True)
class Node:
    """One box: a device, or a group of devices of one tier (``count`` > 1)."""

    label: str
    sub: str  # a second line: how many devices a group holds ("" for one device)
    x: float  # left
    y: float  # top
    w: float
    h: float
    kind: str
    state: str  # ok | skipped | warning | failing
    count: int
    span: str  # the device, or the first and last of the group
    title: str  # the members (the first and last of a long run), the state, and which members are failing

    @property
    def cx(self) -> float:
        return round(self.x + self.w / 2, 1)


@dataclass(frozen=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    failing: bool
    count: int
    title: str


@dataclass
class Picture:
    width: int
    height: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    note: str | None = None


def worst(states: Iterable[str]) -> str:
    return max(states, key=WORST.index, default="ok")


def _rank(dev: Device) -> float:
    if dev.kind == "host":
        return 3
    return _RANK.get(dev.role.lower(), 2.5)


def _span(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]}"


def _chunks(names: list[str], size: int) -> list[list[str]]:
    return [names[i : i + size] for i in range(0, len(names), size)]


def _host_groups(hosts: list[Device], peers: dict[str, set[str]]) -> list[list[str]]:
    """Hosts per rack (the same set of switches), in rack order, at most HOSTS_EACH per box when the rack is big."""
    racks: dict[tuple[str, ...], list[str]] = {}
    for h in sorted(hosts, key=lambda d: d.name):
        racks.setdefault(tuple(sorted(peers.get(h.name, ()))), []).append(h.name)
    groups: list[list[str]] = []
    for names in racks.values():
        groups += [[n] for n in names] if len(names) <= HOSTS_EACH else _chunks(names, HOSTS_PER_BOX)
    if len(groups) > PER_ROW:  # many racks: consecutive racks share a box
        per = -(-len(groups) // PER_ROW)
        groups = [[n for g in groups[i : i + per] for n in g] for i in range(0, len(groups), per)]
    return groups


def _switch_groups(devices: list[Device]) -> list[list[str]]:
    names = sorted(d.name for d in devices)
    if len(names) <= PER_ROW:
        return [[n] for n in names]
    return _chunks(names, -(-len(names) // PER_ROW))


def _tiers(members: list[Device], peers: dict[str, set[str]]) -> list[list[list[str]]]:
    by_rank: dict[float, list[Device]] = {}
    for d in members:
        by_rank.setdefault(_rank(d), []).append(d)
    return [_host_groups(devs, peers) if rank == 3 else _switch_groups(devs) for rank, devs in sorted(by_rank.items())]


def _fit(text: str, width: float) -> str:
    fits = int((width - 8) / CHAR_W)
    return text if len(text) <= fits else text[: max(fits - 1, 1)] + "\u2026"


def _label(names: list[str], width: float) -> str:
    """One name, or a run of names as its common start and the two ends (``spine01-03``)."""
    first, last = names[0], names[-1]
    if len(names) == 1:
        return _fit(first, width)
    common = 0
    while common < min(len(first), len(last)) and first[common] == last[common]:
        common += 1
    while common and first[common - 1].isdigit():  # a number stays whole: gpu09-16, not gpu09-6
        common -= 1
    return _fit(f"{first}-{last[common:]}", width)


def _title(names: list[str], kind: str, state: str, device_state: dict[str, str]) -> str:
    if len(names) == 1:
        return f"{names[0]} ({kind}): {state}"
    members = ", ".join(names) if len(names) <= TITLE_NAMES else _span(names)
    bad = [n for n in names if device_state.get(n) in ("warning", "failing")]
    listed = ", ".join(bad[:TITLE_NAMES]) + (f" and {len(bad) - TITLE_NAMES} more" if len(bad) > TITLE_NAMES else "")
    return f"{members} ({len(names)} {kind}s): {state}" + (f"; with findings: {listed}" if bad else "")


def _place(tiers: list[list[list[str]]], state: FabricState, device_state: dict[str, str]) -> list[Node]:
    nodes = []
    for level, groups in enumerate(tiers):
        n = len(groups)
        w = max(MIN_BOX_W, min(MAX_BOX_W, (WIDTH - 2 * MARGIN - GAP * (n - 1)) / n))
        left = (WIDTH - n * w - GAP * (n - 1)) / 2
        for i, names in enumerate(groups):
            kind = state.devices[names[0]].kind
            st = worst(device_state.get(m, "ok") for m in names)
            x, y = round(left + i * (w + GAP), 1), MARGIN + level * (BOX_H + TIER_GAP)
            sub = f"{len(names)} {'hosts' if kind == 'host' else 'switches'}" if len(names) > 1 else ""
            title = _title(names, kind, st, device_state)
            nodes.append(
                Node(_label(names, w), sub, x, y, round(w, 1), BOX_H, kind, st, len(names), _span(names), title)
            )
    return nodes


def _edges(state: FabricState, box_of: dict[str, Node], failing_ports: dict[tuple[str, str], str]) -> list[Edge]:
    pairs: dict[tuple[int, int], list[str | None]] = {}
    ends: dict[tuple[int, int], tuple[Node, Node]] = {}
    for link in state.links:
        a, b = box_of.get(link.a.device), box_of.get(link.b.device)
        if a is None or b is None or a is b:
            continue
        if a.y > b.y:
            a, b = b, a
        key = (id(a), id(b))
        ends[key] = (a, b)
        why = failing_ports.get((link.a.device, link.a.port)) or failing_ports.get((link.b.device, link.b.port))
        text = f"{link.a.device}:{link.a.port} - {link.b.device}:{link.b.port}: {why}" if why else None
        pairs.setdefault(key, []).append(text)
    edges = []
    for key, whys in pairs.items():
        a, b = ends[key]
        bad = [w for w in whys if w]
        title = f"{a.span} - {b.span}: {len(whys)} link(s)"
        if bad:
            title += f", {len(bad)} failing: " + "; ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
        edges.append(Edge(a.cx, a.y + a.h, b.cx, b.y, bool(bad), len(whys), title))
    edges.sort(key=lambda e: e.failing)  # failing links drawn last, on top
    return edges


def topology(state: FabricState, failing_ports: dict[tuple[str, str], str], device_state: dict[str, str]) -> Picture:
    """``failing_ports``: (device, port) -> why; ``device_state``: device -> ok|skipped|warning|failing."""
    peers: dict[str, set[str]] = {}
    for link in state.links:
        peers.setdefault(link.a.device, set()).add(link.b.device)
        peers.setdefault(link.b.device, set()).add(link.a.device)
    members = [d for d in state.devices.values() if d.name in peers]
    if not members:
        return Picture(WIDTH, 60, note="no links in this fabric: nothing to draw")
    tiers = _tiers(members, peers)
    nodes = _place(tiers, state, device_state)
    box_of: dict[str, Node] = {}
    for node, names in zip(nodes, (g for groups in tiers for g in groups), strict=True):
        box_of |= dict.fromkeys(names, node)
    grouped = sum(1 for n in nodes if n.count > 1)
    note = f"{len(members)} devices in {len(nodes)} boxes ({grouped} groups, count in the box)" if grouped else None
    height = int(2 * MARGIN + len(tiers) * BOX_H + (len(tiers) - 1) * TIER_GAP)
    return Picture(WIDTH, height, nodes, _edges(state, box_of, failing_ports), note)
