"""The buffer dependency graph of a snapshot: nodes (directed link, priority), edges from turns.

Construction follows deadlock.md §4.2 without enumerating paths. For every port the set of
destinations whose traffic leaves through it is a bitmask (bit i = destination i), built once
per distinct next-hop tuple of a switch. A turn ``pv -> qv`` at switch ``v`` exists (rule 3)
exactly when ``dests_out(peer(pv)) & dests_out(v, qv)`` is not empty: some destination ``d`` is
sent by the upstream device out of the port facing ``pv`` and by ``v`` out of ``qv``. The lowest
such ``d`` justifies the turn. Ports with equal masks are grouped, so turns are found per block
(in-group x out-group) and successor lists are shared by every in-port of a group.

Host links are left out: a host never forwards, so ``host -> switch`` nodes have no in-edges and
``switch -> host`` nodes no out-edges; neither can lie on a cycle (deadlock.md §4.1).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from xoff.deadlock.model import Rewrite, Snapshot, directed_link

PortRef = tuple[str, str]  # (device, port)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """An up link whose two ends have different lossless sets (symmetric difference)."""

    link: str
    priorities: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn at ``switch`` from ``in_port`` to ``out_port`` that yields at least one edge."""

    switch: str
    in_port: str
    out_port: str
    dest: str


@dataclass
class Graph:
    """Nodes are ints; ``succ[n]`` lists successors (lists may be shared between nodes: read only)."""

    dl_tx: list[PortRef]
    dl_rx: list[PortRef]
    in_dl: dict[PortRef, int]  # receiving switch port -> directed link into it
    node_dl: list[int]
    node_prio: list[int]
    succ: list[list[int]]
    dests: list[str]
    port_dests: dict[PortRef, int]
    ranked: bool
    up_facing: set[PortRef]  # switch ports whose peer ranks higher (only when ranked)
    bounces: list[Turn] = field(default_factory=list)  # down -> up turns with edges (only when ranked)
    turns: int = 0
    edges: int = 0
    built: bool = True  # False when the certificate held and the node graph was not expanded

    def link_name(self, dl: int) -> str:
        (u, pu), (v, pv) = self.dl_tx[dl], self.dl_rx[dl]
        return directed_link(u, pu, v, pv)

    def node_name(self, n: int) -> tuple[str, int]:
        return self.link_name(self.node_dl[n]), self.node_prio[n]

    def justify(self, switch: str, in_port: str, out_port: str) -> str | None:
        """One destination that makes ``in_port -> out_port`` a turn at ``switch`` (rule 3)."""
        peer = self.dl_tx[self.in_dl[(switch, in_port)]]
        mask = self.port_dests.get(peer, 0) & self.port_dests.get((switch, out_port), 0)
        return self.dests[(mask & -mask).bit_length() - 1] if mask else None

    def turn_kind(self, switch: str, in_port: str, out_port: str) -> str:
        """``up-up``, ``up-down``, ``down-down``, ``bounce`` (down -> up), or ``unknown`` without ranks."""
        if not self.ranked:
            return "unknown"
        came = "down" if (switch, in_port) in self.up_facing else "up"
        goes = "up" if (switch, out_port) in self.up_facing else "down"
        return "bounce" if (came, goes) == ("down", "up") else f"{came}-{goes}"


def pfc_mismatches(snap: Snapshot) -> list[Mismatch]:
    """Rule 6: every up link (host links included) whose ends' lossless sets differ."""
    out = []
    for link in snap.links:
        if link.up:
            diff = snap.lossless_at(link.a, link.a_port) ^ snap.lossless_at(link.b, link.b_port)
            if diff:
                out.append(Mismatch(link.id, tuple(sorted(diff))))
    return out


def _port_dests(snap: Snapshot, dests: list[str]) -> dict[PortRef, int]:
    """Bitmask of the destinations each switch port sends to (one OR per (switch, next-hop tuple, dest))."""
    masks: dict[tuple[str, int], int] = {}
    tuples: dict[tuple[str, int], tuple[str, ...]] = {}
    for bit, dest in enumerate(dests):
        b = 1 << bit
        for sw, hops in snap.forwarding[dest].items():
            key = (sw, id(hops))  # the snapshot keeps every tuple alive, so ids are stable here
            mask = masks.get(key)
            if mask is None:
                masks[key] = b
                tuples[key] = hops
            else:
                masks[key] = mask | b
    out: dict[PortRef, int] = {}
    for key, mask in masks.items():
        sw = key[0]
        for q in tuples[key]:
            ref = (sw, q)
            out[ref] = out.get(ref, 0) | mask
    return out


def _rank_key(snap: Snapshot) -> dict[str, tuple[int, str]] | None:
    ranks = snap.ranks
    if ranks is None or any(s not in ranks for s in snap.switches):
        return None
    return {s: (ranks[s], s) for s in snap.switches}


def _rules_by_prio(rewrites: tuple[Rewrite, ...]) -> dict[str, dict[int, list[Rewrite]]]:
    out: dict[str, dict[int, list[Rewrite]]] = {}
    for rule in rewrites:
        out.setdefault(rule.switch, {}).setdefault(rule.from_prio, []).append(rule)
    return out


def _rewrite(rules: list[Rewrite], in_port: str, out_port: str, prio: int) -> int:
    for rule in rules:
        if rule.matches(in_port, out_port, prio):
            return rule.to_prio
    return prio


class _Builder:
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        switches = set(snap.switches)
        self.dl_tx: list[PortRef] = []
        self.dl_rx: list[PortRef] = []
        self.out_dl: dict[PortRef, int] = {}
        self.in_dl: dict[PortRef, int] = {}
        self.fabric_ports: dict[str, list[str]] = {s: [] for s in snap.switches}
        self.peer: dict[PortRef, PortRef] = {}
        self.node_dl: list[int] = []
        self.node_prio: list[int] = []
        self.node_at: list[dict[int, int]] = []  # per directed link: priority -> node
        for link in snap.links:
            if not (link.up and link.a in switches and link.b in switches):
                continue
            a, b = (link.a, link.a_port), (link.b, link.b_port)
            common = snap.lossless_at(*a) & snap.lossless_at(*b)
            for tx, rx in ((a, b), (b, a)):
                dl = len(self.dl_tx)
                self.dl_tx.append(tx)
                self.dl_rx.append(rx)
                self.out_dl[tx] = dl
                self.in_dl[rx] = dl
                self.peer[rx] = tx
                self.fabric_ports[rx[0]].append(rx[1])
                at: dict[int, int] = {}
                for p in sorted(common):
                    at[p] = len(self.node_dl)
                    self.node_dl.append(dl)
                    self.node_prio.append(p)
                self.node_at.append(at)
        self.dests = list(snap.forwarding)
        self.port_dests = _port_dests(snap, self.dests)
        self.rank = _rank_key(snap)
        self.up_facing: set[PortRef] = set()
        if self.rank is not None:
            rank = self.rank
            self.up_facing = {rx for rx, tx in self.peer.items() if rank[tx[0]] > rank[rx[0]]}
        self.rules = _rules_by_prio(snap.rewrites)
        # per switch: list of (in-ports, [(out-ports, dest mask)]) blocks
        self.blocks: dict[str, list[tuple[list[str], list[tuple[list[str], int]]]]] = {}
        self.turns = 0

    def find_turns(self) -> None:
        pd = self.port_dests
        for v, ports in self.fabric_ports.items():
            ins: dict[int, list[str]] = {}
            outs: dict[int, list[str]] = {}
            for port in ports:
                m_in = pd.get(self.peer[(v, port)], 0)
                if m_in:
                    ins.setdefault(m_in, []).append(port)
                m_out = pd.get((v, port), 0)
                if m_out:
                    outs.setdefault(m_out, []).append(port)
            blocks = []
            out_items = [(m_out, qos, len(qos)) for m_out, qos in outs.items()]
            for m_in, pis in ins.items():
                hits = []
                width = 0
                for m_out, qos, n_out in out_items:
                    common = m_in & m_out
                    if common:
                        hits.append((qos, common))
                        width += n_out
                if hits:
                    blocks.append((pis, hits))
                    self.turns += len(pis) * width
            self.blocks[v] = blocks

    def _prio_map(self, v: str, pv: str, qv: str, p: int) -> int:
        rules = self.rules.get(v, {}).get(p)
        return _rewrite(rules, pv, qv, p) if rules else p

    def _has_edge(self, v: str, pv: str, qv: str) -> bool:
        at_out = self.node_at[self.out_dl[(v, qv)]]
        return any(self._prio_map(v, pv, qv, p) in at_out for p in self.node_at[self.in_dl[(v, pv)]])

    def find_bounces(self) -> list[Turn]:
        """Down -> up turns that yield at least one edge (needs ranks)."""
        found: list[Turn] = []
        up = self.up_facing
        for v, blocks in self.blocks.items():
            for pis, hits in blocks:
                downs = [pv for pv in pis if (v, pv) in up]
                if not downs:
                    continue
                for qos, mask in hits:
                    for qv in qos:
                        if (v, qv) not in up:
                            continue
                        for pv in downs:
                            if self._has_edge(v, pv, qv):
                                dest = self.dests[(mask & -mask).bit_length() - 1]
                                found.append(Turn(v, pv, qv, dest))
        return found

    def expand(self) -> tuple[list[list[int]], int]:
        """Successor lists of every node; lists are shared across an in-group when no rewrite applies."""
        empty: list[int] = []
        succ: list[list[int]] = [empty] * len(self.node_dl)
        edges = 0
        out_nodes: dict[tuple[int, int], list[int]] = {}  # (id(out-group), prio) -> nodes
        for v, blocks in self.blocks.items():
            rules = self.rules.get(v, {})
            for pis, hits in blocks:
                shared: dict[int, list[int]] = {}
                for pv in pis:
                    for p, node in self.node_at[self.in_dl[(v, pv)]].items():
                        if p in rules:
                            lst = self._rewritten(v, pv, p, hits, rules[p])
                        else:
                            lst_or_none = shared.get(p)
                            if lst_or_none is None:
                                lst_or_none = []
                                for qos, _ in hits:
                                    key = (id(qos), p)
                                    nodes = out_nodes.get(key)
                                    if nodes is None:
                                        nodes = [
                                            n
                                            for n in (self.node_at[self.out_dl[(v, q)]].get(p) for q in qos)
                                            if n is not None
                                        ]
                                        out_nodes[key] = nodes
                                    lst_or_none.extend(nodes)
                                shared[p] = lst_or_none
                            lst = lst_or_none
                        succ[node] = lst
                        edges += len(lst)
        return succ, edges

    def _rewritten(self, v: str, pv: str, p: int, hits: list[tuple[list[str], int]], rules: list[Rewrite]) -> list[int]:
        out = []
        for qos, _ in hits:
            for qv in qos:
                n = self.node_at[self.out_dl[(v, qv)]].get(_rewrite(rules, pv, qv, p))
                if n is not None:
                    out.append(n)
        return out


def build_graph(snap: Snapshot, *, use_certificate: bool = True, timings: dict[str, float] | None = None) -> Graph:
    """Turns, bounces and (unless the up*/down* certificate holds) the expanded node graph.

    ``timings`` (if given) receives seconds per phase: ``index``, ``turns``, ``certificate``, ``expand``.
    """
    t = timings if timings is not None else {}
    clock = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        t[phase] = now - clock
        clock = now

    b = _Builder(snap)
    lap("index")
    b.find_turns()
    lap("turns")
    ranked = b.rank is not None
    bounces = b.find_bounces() if ranked else []
    certified = ranked and not bounces and use_certificate
    lap("certificate")
    succ, edges = ([], 0) if certified else b.expand()
    lap("expand")
    return Graph(
        dl_tx=b.dl_tx,
        dl_rx=b.dl_rx,
        in_dl=b.in_dl,
        node_dl=b.node_dl,
        node_prio=b.node_prio,
        succ=succ,
        dests=b.dests,
        port_dests=b.port_dests,
        ranked=ranked,
        up_facing=b.up_facing,
        bounces=bounces,
        turns=b.turns,
        edges=edges,
        built=not certified,
    )
