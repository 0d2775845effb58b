"""A slow, obviously-correct reference for the PFC deadlock analysis, written from the normative
rules of forwarding-snapshot.md and sharing no code with ``xoff.deadlock`` beyond the model.

Edges are found by walking packets hop by hop, for every destination ``d`` and every priority,
from every place that sends ``d``-traffic: every host other than ``d`` (out of its one up port)
and every switch port in ``forwarding[d]`` (rule 3 asks for "some destination d such that u sends
d-traffic out of pu", not for reachability from a host, so the walks also start at switches). At
each switch every next hop is followed (conservative FIB semantics, rule 4); an edge is recorded
when both buffers exist (rule 2). A node lies on a cycle if it can reach itself (rule 5).
"""

from __future__ import annotations

from collections import deque

from xoff.deadlock.model import Snapshot

Node = tuple[str, int]  # ("u:pu->v:pv", priority)
End = tuple[str, str]  # (device, port)


def _name(tx: End, rx: End) -> str:
    return f"{tx[0]}:{tx[1]}->{rx[0]}:{rx[1]}"


class Reference:
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.switches = set(snap.switches)
        self.peer: dict[End, End] = {}
        for link in snap.links:
            if link.up:
                self.peer[(link.a, link.a_port)] = (link.b, link.b_port)
                self.peer[(link.b, link.b_port)] = (link.a, link.a_port)
        self.ends = {_name(tx, rx): (tx, rx) for tx, rx in self.peer.items()}
        self.nodes: set[Node] = set()
        for tx, rx in self.peer.items():
            for p in range(8):
                if self.exists(tx, rx, p):
                    self.nodes.add((_name(tx, rx), p))
        self.edges: dict[Node, set[Node]] = {n: set() for n in self.nodes}
        self._walk_all()

    def lossless(self, end: End) -> frozenset[int]:
        device, port = end
        if device in self.snap.lossless and port in self.snap.lossless[device]:
            return self.snap.lossless[device][port]
        return self.snap.lossless_default

    def exists(self, tx: End, rx: End, p: int) -> bool:
        return p in self.lossless(tx) and p in self.lossless(rx)

    def rewrite(self, switch: str, in_port: str, out_port: str, p: int) -> int:
        for rule in self.snap.rewrites:  # in order, first match wins
            if (
                rule.switch == switch
                and rule.from_prio == p
                and (rule.in_ports is None or in_port in rule.in_ports)
                and (rule.out_ports is None or out_port in rule.out_ports)
            ):
                return rule.to_prio
        return p

    def senders(self, dest: str) -> list[End]:
        """Every (device, port) that sends dest-traffic."""
        out: list[End] = []
        for host in self.snap.hosts:
            if host != dest:
                out.extend(end for end in self.peer if end[0] == host)
        for switch, ports in self.snap.forwarding[dest].items():
            out.extend((switch, port) for port in ports)
        return out

    def _walk_all(self) -> None:
        for dest in self.snap.forwarding:
            fib = self.snap.forwarding[dest]
            seen: set[tuple[End, int]] = set()
            todo: deque[tuple[End, int]] = deque()
            for start in self.senders(dest):
                for p in range(8):
                    if (start, p) not in seen:
                        seen.add((start, p))
                        todo.append((start, p))
            while todo:  # a packet leaves `tx` on priority p: follow it one hop
                tx, p = todo.popleft()
                rx = self.peer[tx]
                v, pv = rx
                if v not in self.switches:
                    continue  # delivered to a host, which never forwards
                for qv in fib.get(v, ()):
                    p2 = self.rewrite(v, pv, qv, p)
                    out = (v, qv)
                    nxt = self.peer[out]
                    if self.exists(tx, rx, p) and self.exists(out, nxt, p2):
                        self.edges[(_name(tx, rx), p)].add((_name(out, nxt), p2))
                    if (out, p2) not in seen:
                        seen.add((out, p2))
                        todo.append((out, p2))

    def reaches_itself(self, node: Node) -> bool:
        seen: set[Node] = set()
        todo = list(self.edges[node])
        while todo:
            n = todo.pop()
            if n == node:
                return True
            if n not in seen:
                seen.add(n)
                todo.extend(self.edges[n])
        return False

    def on_cycles(self) -> set[Node]:
        return {n for n in self.nodes if self.reaches_itself(n)}

    def mismatches(self) -> set[tuple[str, tuple[int, ...]]]:
        out = set()
        for link in self.snap.links:
            if link.up:
                diff = self.lossless((link.a, link.a_port)) ^ self.lossless((link.b, link.b_port))
                if diff:
                    out.add((link.id, tuple(sorted(diff))))
        return out

    def justifies(self, dest: str, edge: tuple[Node, Node]) -> bool:
        """Rule 3 for one destination: u sends dest out of pu, and v sends it out of qv."""
        (u, pu), (v, _) = self.ends[edge[0][0]]
        (v2, qv), _ = self.ends[edge[1][0]]
        fib = self.snap.forwarding.get(dest, {})
        sends = (u != dest) if u in self.snap.hosts else pu in fib.get(u, ())
        return v == v2 and v in self.switches and sends and qv in fib.get(v, ())

    def check_cycle(self, cycle: list[Node]) -> None:
        """Assert the witness rules of forwarding-snapshot.md against this graph."""
        assert len(set(cycle)) >= 2, cycle
        assert len(set(cycle)) == len(cycle), f"witness repeats a node: {cycle}"
        for n in cycle:
            assert n in self.nodes, f"{n} is not a node"
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert b in self.edges[a], f"{a} -> {b} is not an edge"
