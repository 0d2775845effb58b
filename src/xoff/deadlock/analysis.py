"""``analyse(snapshot) -> Result``: PFC deadlock risk of one fabric state (deadlock.md §4).

1. Build turns from per-destination next-hop sets (``graph``), and the PFC mismatches.
2. With ranks for every switch: if no down -> up turn yields an edge, the up*/down* certificate
   proves the graph acyclic (§3.4) and the node graph is never expanded.
3. Otherwise expand the (directed link, priority) graph, peel, run iterative Tarjan, and give
   one shortest witness cycle per non-trivial SCC, each edge with a destination that justifies
   it, its turn and the turn's kind (``bounce`` = down -> up; ``unknown`` without ranks).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xoff.deadlock.cycles import peel, strong_components, witness
from xoff.deadlock.graph import Graph, Mismatch, Turn, build_graph, pfc_mismatches
from xoff.deadlock.model import Snapshot

NodeName = tuple[str, int]  # (directed link, priority)


@dataclass(frozen=True, slots=True)
class WitnessStep:
    """One node of a witness cycle and the edge from it to the next node (the last one closes the loop)."""

    link: str
    prio: int
    switch: str  # where the turn to the next node happens
    in_port: str
    out_port: str
    dest: str  # a destination whose forwarding makes this turn (rule 3)
    kind: str  # up-up, up-down, down-down, bounce (down -> up), or unknown (no ranks)
    next_prio: int  # the next node's priority (differs when a rewrite applies)

    @property
    def turn(self) -> str:
        return f"{self.switch}: {self.in_port} -> {self.out_port}"

    def to_json(self) -> dict[str, Any]:
        because: dict[str, Any] = {"dest": self.dest, "turn": self.turn, "kind": self.kind}
        if self.in_port == self.out_port:
            because["u_turn"] = True
        if self.next_prio != self.prio:
            because["rewrite"] = [self.prio, self.next_prio]
        return {"link": self.link, "prio": self.prio, "because": because}


@dataclass(frozen=True, slots=True)
class Cycle:
    """One non-trivial strongly connected component and a shortest witness cycle inside it."""

    scc_size: int
    priorities: tuple[int, ...]
    steps: tuple[WitnessStep, ...]

    @property
    def nodes(self) -> list[NodeName]:
        return [(s.link, s.prio) for s in self.steps]

    @property
    def bounces(self) -> list[WitnessStep]:
        return [s for s in self.steps if s.kind == "bounce"]

    def to_json(self) -> dict[str, Any]:
        return {
            "scc_size": self.scc_size,
            "priorities": list(self.priorities),
            "witness": [s.to_json() for s in self.steps],
        }


@dataclass(frozen=True)
class Result:
    """What the analysis found; ``to_json`` gives the keys of forwarding-snapshot.md plus extras."""

    snapshot: str
    deadlock_risk: bool
    risky_priorities: tuple[int, ...]
    nodes_on_cycles: tuple[NodeName, ...]  # sorted
    cycles: tuple[Cycle, ...]
    pfc_mismatches: tuple[Mismatch, ...]
    certified: bool  # the up*/down* certificate proved the graph acyclic
    ranked: bool  # ranks were given for every switch (turn kinds are known)
    bounces: tuple[Turn, ...]  # every down -> up turn that yields an edge (empty without ranks)
    counts: Mapping[str, int] = field(default_factory=dict)
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds per phase

    @property
    def example_cycle(self) -> list[NodeName]:
        return self.cycles[0].nodes if self.cycles else []

    def to_json(self) -> dict[str, Any]:
        return {
            "deadlock_risk": self.deadlock_risk,
            "risky_priorities": list(self.risky_priorities),
            "nodes_on_cycles": [[link, prio] for link, prio in self.nodes_on_cycles],
            "example_cycle": [[link, prio] for link, prio in self.example_cycle],
            "pfc_mismatches": [{"link": m.link, "priorities": list(m.priorities)} for m in self.pfc_mismatches],
            "cycles": [c.to_json() for c in self.cycles],
            "certified": self.certified,
            "counts": dict(self.counts),
            "timings": {f"{k}_ms": round(v * 1000, 3) for k, v in self.timings.items()},
        }


def _steps(graph: Graph, cycle: list[int]) -> tuple[WitnessStep, ...]:
    steps = []
    for i, node in enumerate(cycle):
        nxt = cycle[(i + 1) % len(cycle)]
        switch, in_port = graph.dl_rx[graph.node_dl[node]]
        out_port = graph.dl_tx[graph.node_dl[nxt]][1]
        dest = graph.justify(switch, in_port, out_port)
        if dest is None:  # pragma: no cover - every edge comes from a turn
            raise AssertionError(f"edge without a turn at {switch}: {in_port} -> {out_port}")
        link, prio = graph.node_name(node)
        kind = graph.turn_kind(switch, in_port, out_port)
        steps.append(WitnessStep(link, prio, switch, in_port, out_port, dest, kind, graph.node_prio[nxt]))
    return tuple(steps)


def analyse(snapshot: Snapshot, *, use_certificate: bool = True) -> Result:
    """Judge one snapshot. Assumes it is structurally sound (``validate.check_snapshot``)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    mismatches = tuple(pfc_mismatches(snapshot))
    timings["mismatches"] = time.perf_counter() - start
    graph = build_graph(snapshot, use_certificate=use_certificate, timings=timings)
    cycles: list[Cycle] = []
    on_cycles: list[int] = []
    if graph.built:
        clock = time.perf_counter()
        alive = peel(graph.succ)
        timings["peel"] = time.perf_counter() - clock
        clock = time.perf_counter()
        components = strong_components(graph.succ, alive) if any(alive) else []
        timings["scc"] = time.perf_counter() - clock
        clock = time.perf_counter()
        for comp in components:
            on_cycles.extend(comp)
            prios = tuple(sorted({graph.node_prio[n] for n in comp}))
            cycles.append(Cycle(len(comp), prios, _steps(graph, witness(graph.succ, comp))))
        timings["witness"] = time.perf_counter() - clock
        survivors = sum(alive)
    else:
        survivors = 0
    nodes = tuple(sorted(graph.node_name(n) for n in on_cycles))
    timings["total"] = time.perf_counter() - start
    counts = {
        "switches": len(snapshot.switches),
        "hosts": len(snapshot.hosts),
        "links_up": sum(1 for x in snapshot.links if x.up),
        "destinations": len(graph.dests),
        "fabric_directed_links": len(graph.dl_tx),
        "nodes": len(graph.node_dl),
        "turns": graph.turns,
        "edges": graph.edges if graph.built else -1,  # -1: not expanded, the certificate held
        "after_peel": survivors,
        "sccs": len(cycles),
        "nodes_on_cycles": len(nodes),
        "bounce_turns": len(graph.bounces) if graph.ranked else -1,  # -1: unknown without ranks
    }
    return Result(
        snapshot=snapshot.name,
        deadlock_risk=bool(cycles),
        risky_priorities=tuple(sorted({p for _, p in nodes})),
        nodes_on_cycles=nodes,
        cycles=tuple(cycles),
        pfc_mismatches=mismatches,
        certified=graph.ranked and not graph.built,
        ranked=graph.ranked,
        bounces=tuple(graph.bounces),
        counts=counts,
        timings=timings,
    )
