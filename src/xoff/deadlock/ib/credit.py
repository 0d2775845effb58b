"""InfiniBand credit loops: the channel dependency graph of the programmed LFTs and SL2VL tables.

Nodes are (directed link, VL): the receive buffer at the far end of a link for one virtual lane,
which credits guard (deadlock.md §3.1, ibdm's ``VChannel``). For a destination LID ``d`` and a
service level ``s``:

- ``IN_v(d)`` is the set of in ports of switch ``v`` on which packets for ``d`` arrive: ports whose
  neighbour is a CA other than ``d`` (every CA may send to ``d``) or a switch whose LFT sends ``d``
  to ``v`` (every installed route may carry traffic: the conservative semantics of §4.1);
- a packet entering ``v`` on ``p ∈ IN_v(d)`` leaves on ``q = LFT_v(d)`` on VL ``SL2VL_v[p][q][s]``;
  it arrived on the VL its previous hop gave it (``SL2VL`` of the CA port, or of the upstream
  switch for each of its in ports), so the edges are ``(link into p, VL_in) -> (link out of q, VL_out)``;
- VL15 is management only: an SL mapped to it is dropped and makes no edge;
- links from CAs are left out (deadlock.md §4.1): nothing forwards into them, so no cycle uses them,
  and the CAs' own SL2VL tables are not needed.

SLs whose VL column is the same in every table give the same graph, so one SL per such group is
analysed. Cycles come from the shared machinery (``deadlock.cycles.find_cycles``); each witness step
names a destination LID and SL that make the turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xoff.contracts.infiniband import NUM_SLS, VL15, IbObservation, PortRef
from xoff.deadlock.cycles import find_cycles

Port = tuple[str, int]  # (node GUID, port number)


class IbAnalysisError(ValueError):
    """The observation lacks what the analysis needs (an SL2VL table of a port that routes)."""


@dataclass(frozen=True, slots=True)
class IbStep:
    """One channel of a witness cycle and the turn from it to the next one."""

    link: str  # "ibsw1:5 -> ibsw2:6"
    vl: int
    switch: str  # where the turn happens (the link's far end)
    in_port: int
    out_port: int
    dest_lid: int  # a destination whose route makes this turn
    dest: str  # its description
    sl: int
    next_vl: int

    def to_json(self) -> dict[str, Any]:
        because = {
            "dest_lid": self.dest_lid,
            "dest": self.dest,
            "sl": self.sl,
            "turn": f"{self.switch}: {self.in_port} -> {self.out_port}",
        }
        if self.next_vl != self.vl:
            because["vl_change"] = [self.vl, self.next_vl]
        return {"link": self.link, "vl": self.vl, "because": because}


@dataclass(frozen=True, slots=True)
class IbCycle:
    scc_size: int
    vls: tuple[int, ...]
    steps: tuple[IbStep, ...]

    @property
    def switches(self) -> list[str]:
        return [s.switch for s in self.steps]


@dataclass
class IbResult:
    source: str
    credit_loop: bool
    sls: list[list[int]]  # the SLs analysed, grouped by identical VL columns
    destinations: int
    channels: int
    edges: int
    cycles: list[IbCycle] = field(default_factory=list)
    nodes_on_cycles: int = 0
    unrouted: list[tuple[str, int]] = field(default_factory=list)  # (switch, CA LID) with no usable LFT entry
    routing_engine: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "credit_loop": self.credit_loop,
            "routing_engine": self.routing_engine,
            "sl_groups": self.sls,
            "destinations": self.destinations,
            "channels": self.channels,
            "edges": self.edges,
            "nodes_on_cycles": self.nodes_on_cycles,
            "cycles": [
                {"scc_size": c.scc_size, "vls": list(c.vls), "witness": [s.to_json() for s in c.steps]}
                for c in self.cycles
            ],
            "unrouted": [{"switch": s, "lid": lid} for s, lid in self.unrouted],
        }


class _Fabric:
    """Lookups over one observation: links, LID owners, SL2VL tables."""

    def __init__(self, obs: IbObservation) -> None:
        self.obs = obs
        self.kind = {g: n.kind for g, n in obs.nodes.items()}
        self.name = {g: n.description for g, n in obs.nodes.items()}
        self.peer: dict[Port, Port] = {
            (g, p.number): (p.peer.guid, p.peer.port)
            for g, n in obs.nodes.items()
            for p in n.ports.values()
            if p.peer is not None and p.peer.guid in obs.nodes
        }
        self.links = sorted(self.peer)  # directed link = the port it leaves by
        self.link_id = {end: i for i, end in enumerate(self.links)}
        self.tables = {g: obs.sl2vl_table(g) for g in obs.nodes}
        self.switches = sorted(g for g, k in self.kind.items() if k == "switch")
        self.ca_ports = sorted(end for end in self.peer if self.kind[end[0]] != "switch")

    def vl(self, node: str, in_port: int, out_port: int, sl: int) -> int:
        table = self.tables[node].get((in_port, out_port))
        if table is None:
            raise IbAnalysisError(
                f"{self.name[node]}: no SL2VL table for in port {in_port}, out port {out_port} (collect smpquery sl2vl)"
            )
        return table[sl]

    def link_name(self, end: Port) -> str:
        far = self.peer[end]
        return f"{self.name[end[0]]}:{end[1]} -> {self.name[far[0]]}:{far[1]}"


def _sl_groups(f: _Fabric, sls: Iterable[int]) -> list[list[int]]:
    """SLs with the same VL in every table route identically: analyse one of each group."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for sl in sorted(set(sls)):
        if not 0 <= sl < NUM_SLS:
            raise IbAnalysisError(f"SL {sl} outside 0..{NUM_SLS - 1}")
        column = tuple(vls[sl] for g in sorted(f.tables) for _, vls in sorted(f.tables[g].items()))
        groups.setdefault(column, []).append(sl)
    return list(groups.values())


class _Channels:
    """The channel dependency graph being built: (link, VL) nodes, edges, and why each edge exists."""

    def __init__(self) -> None:
        self.node_id: dict[tuple[int, int], int] = {}
        self.succ: list[list[int]] = []
        self.why: dict[tuple[int, int], tuple[int, int, str, int, int]] = {}  # edge -> (dest, sl, switch, in, out)

    def nid(self, link: int, vl: int) -> int:
        key = (link, vl)
        if key not in self.node_id:
            self.node_id[key] = len(self.succ)
            self.succ.append([])
        return self.node_id[key]


def analyse_ib(obs: IbObservation, sls: Iterable[int] | None = None) -> IbResult:
    """Credit-loop analysis of one observation, over ``sls`` (default: all 16)."""
    f = _Fabric(obs)
    owner: dict[int, PortRef] = obs.lid_owner()
    dests = sorted(lid for lid, ref in owner.items() if f.kind[ref.guid] != "switch")
    groups = _sl_groups(f, range(NUM_SLS) if sls is None else sls)
    g = _Channels()
    unrouted: set[tuple[str, int]] = set()
    for d in dests:
        out, arrivals = _routes_to(f, d, owner[d], unrouted)
        for group in groups:
            _add_dependencies(f, g, d, group[0], out, arrivals)
    cycles, on_cycles = _witnesses(f, g, owner)
    return IbResult(
        source=obs.source,
        credit_loop=bool(cycles),
        sls=groups,
        destinations=len(dests),
        channels=len(g.succ),
        edges=len(g.why),
        cycles=cycles,
        nodes_on_cycles=on_cycles,
        unrouted=sorted(unrouted),
        routing_engine=obs.routing_engine,
    )


def _routes_to(
    f: _Fabric, d: int, target: PortRef, unrouted: set[tuple[str, int]]
) -> tuple[dict[str, int], dict[str, list[int]]]:
    """For destination LID ``d``: each switch's (cabled) out port, and each switch's in ports carrying ``d``."""
    out: dict[str, int] = {}
    for sw in f.switches:
        q = f.obs.lfts.get(sw, {}).get(d)
        if q is None or (sw, q) not in f.peer:
            unrouted.add((f.name[sw], d))
            continue
        out[sw] = q
    arrivals: dict[str, list[int]] = {}
    for sw, q in out.items():
        far, far_port = f.peer[(sw, q)]
        if f.kind[far] == "switch":
            arrivals.setdefault(far, []).append(far_port)
    for ca, p in f.ca_ports:
        if (ca, p) != (target.guid, target.port):
            far, far_port = f.peer[(ca, p)]
            if f.kind[far] == "switch":
                arrivals.setdefault(far, []).append(far_port)
    return out, arrivals


def _add_dependencies(
    f: _Fabric, g: _Channels, d: int, sl: int, out: dict[str, int], arrivals: dict[str, list[int]]
) -> None:
    """The (link, VL) -> (link, VL) dependencies traffic to ``d`` on ``sl`` creates at every switch."""
    # VLs each link carries for (d, sl): what the sending end's SL2VL gives it
    # (a CA's link has no in-edges, so it is on no cycle: its VL, and the CA's table, do not matter)
    link_vls: dict[Port, set[int]] = {}
    for sw, q in out.items():
        link_vls[(sw, q)] = {f.vl(sw, pin, q, sl) for pin in arrivals.get(sw, [])}
    for sw, ins in arrivals.items():
        if sw not in out:
            continue
        q = out[sw]
        out_link = f.link_id[(sw, q)]
        for pin in ins:
            vl_out = f.vl(sw, pin, q, sl)
            if vl_out == VL15:
                continue
            b = g.nid(out_link, vl_out)
            upstream = f.peer[(sw, pin)]
            for vl_in in link_vls.get(upstream, ()):
                if vl_in == VL15:
                    continue
                a = g.nid(f.link_id[upstream], vl_in)
                if (a, b) not in g.why:
                    g.why[(a, b)] = (d, sl, sw, pin, q)
                    g.succ[a].append(b)


def _witnesses(f: _Fabric, g: _Channels, owner: dict[int, PortRef]) -> tuple[list[IbCycle], int]:
    """Every credit loop with a witness cycle, and how many channels lie on one."""
    back = {v: k for k, v in g.node_id.items()}
    cycles = []
    on_cycles = 0
    for comp, path in find_cycles(g.succ):
        on_cycles += len(comp)
        steps = []
        for i, a in enumerate(path):
            b = path[(i + 1) % len(path)]
            d, sl, sw, pin, q = g.why[(a, b)]
            link, vl = back[a]
            steps.append(
                IbStep(
                    link=f.link_name(f.links[link]),
                    vl=vl,
                    switch=f.name[sw],
                    in_port=pin,
                    out_port=q,
                    dest_lid=d,
                    dest=f.name[owner[d].guid],
                    sl=sl,
                    next_vl=back[b][1],
                )
            )
        cycles.append(IbCycle(len(comp), tuple(sorted({back[v][1] for v in comp})), tuple(steps)))
    return cycles, on_cycles


def render_text(result: IbResult) -> str:
    engine = f", routing engine {result.routing_engine}" if result.routing_engine else ""
    lines = [
        f"InfiniBand credit loops: {result.source}{engine}",
        f"  {result.destinations} destination LIDs, SL groups {result.sls}, "
        f"{result.channels} (link, VL) channels, {result.edges} dependencies",
    ]
    if not result.credit_loop:
        lines.append("  no credit loop: the channel dependency graph is acyclic")
    for i, c in enumerate(result.cycles, 1):
        lines.append(f"  CREDIT LOOP {i}: {c.scc_size} channels on VL {', '.join(map(str, c.vls))}; witness:")
        for s in c.steps:
            lines.append(
                f"    {s.link} VL{s.vl} -> at {s.switch} {s.in_port}->{s.out_port} (VL{s.next_vl}) "
                f"for LID {s.dest_lid} ({s.dest}) SL{s.sl}"
            )
    if result.unrouted:
        shown = ", ".join(f"{sw} LID {lid}" for sw, lid in result.unrouted[:5])
        more = f" ... {len(result.unrouted) - 5} more" if len(result.unrouted) > 5 else ""
        lines.append(f"  {len(result.unrouted)} (switch, CA LID) without a usable route: {shown}{more}")
    return "\n".join(lines)
