"""The fabric as a picture: tiers top-down (super-spines, spines, leaves, hosts), links between them,
failing links and devices marked. Geometry only; the HTML template prints it as inline SVG."""

from __future__ import annotations

from dataclasses import dataclass, field

from xoff.desired.models import Device, FabricState

WIDTH = 1200
TIER_GAP = 110
MARGIN = 40
MAX_NODES = 600  # beyond this, hosts are left out; beyond it again, no picture (it would be unreadable)
_RANK = {"super_spine": 0, "super-spine": 0, "superspine": 0, "core": 0, "spine": 1, "leaf": 2}


@dataclass(frozen=True)
class Node:
    name: str
    x: float
    y: float
    kind: str
    state: str  # ok | warning | failing
    label: bool


@dataclass(frozen=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    failing: bool
    title: str


@dataclass
class Picture:
    width: int
    height: int
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    note: str | None = None


def _rank(dev: Device) -> float:
    if dev.kind == "host":
        return 3
    return _RANK.get(dev.role.lower(), 2.5)


def topology(state: FabricState, failing_ports: dict[tuple[str, str], str], device_state: dict[str, str]) -> Picture:
    """``failing_ports``: (device, port) -> why; ``device_state``: device -> warning|failing."""
    linked = {p.device for link in state.links for p in (link.a, link.b)}
    members = [d for d in state.devices.values() if d.name in linked]
    note = None
    if len(members) > MAX_NODES:
        members = [d for d in members if d.kind != "host"]
        note = f"hosts left out: {len(linked)} devices are too many to draw"
    if len(members) > MAX_NODES:
        return Picture(WIDTH, 60, note=f"{len(linked)} devices, {len(state.links)} links: too many to draw")
    tiers: dict[float, list[Device]] = {}
    for d in members:
        tiers.setdefault(_rank(d), []).append(d)
    pos: dict[str, tuple[float, float]] = {}
    nodes: list[Node] = []
    for level, (_, devices) in enumerate(sorted(tiers.items())):
        step = (WIDTH - 2 * MARGIN) / max(len(devices), 1)
        for i, d in enumerate(devices):
            x, y = MARGIN + step * (i + 0.5), MARGIN + level * TIER_GAP
            pos[d.name] = (x, y)
            nodes.append(Node(d.name, round(x, 1), y, d.kind, device_state.get(d.name, "ok"), step >= 48))
    edges = []
    for link in state.links:
        a, b = pos.get(link.a.device), pos.get(link.b.device)
        if a is None or b is None:
            continue
        why = failing_ports.get((link.a.device, link.a.port)) or failing_ports.get((link.b.device, link.b.port))
        title = f"{link.a.device}:{link.a.port} - {link.b.device}:{link.b.port}" + (f": {why}" if why else "")
        edges.append(Edge(round(a[0], 1), a[1], round(b[0], 1), b[1], why is not None, title))
    edges.sort(key=lambda e: e.failing)  # failing links drawn last, on top
    return Picture(WIDTH, int(2 * MARGIN + TIER_GAP * (len(tiers) - 1) + 20), nodes, edges, note)
