"""Can new turns close a cycle? A bidirectional breadth-first search over the baseline's turns plus a scenario's.

The failure sweep asks it per lossless priority before paying for a full ``analyse`` (deadlock.md §5.2).
"""

from __future__ import annotations

from collections.abc import Sequence

from xoff.deadlock.fabric import Fabric


class TurnSearch:
    """The bidirectional breadth-first search of ``failures._Sweeper.may_cycle`` over the baseline turns plus new ones.

    Nodes are ingress ports (directed links). ``succ``/``pred`` hold the scenario's turns only where
    they differ from the baseline's (merged once, read per node); elsewhere the baseline's are read.
    """

    def __init__(
        self, fab: Fabric, succ0: dict[int, set[int]], pred0: dict[int, set[int]], dead: frozenset[int]
    ) -> None:
        self.fab, self.succ0, self.pred0, self.dead = fab, succ0, pred0, dead
        self.succ: dict[int, set[int]] = {}
        self.pred: dict[int, set[int]] = {}

    def add_turns(self, turns: Sequence[tuple[int, int, int]]) -> None:
        succ, pred, succ0, pred0 = self.succ, self.pred, self.succ0, self.pred0
        for pv, qv, _ in turns:
            got = succ.get(pv)
            if got is None:
                got = succ[pv] = set(succ0.get(pv, ()))
            got.add(qv)
            got = pred.get(qv)
            if got is None:
                got = pred[qv] = set(pred0.get(qv, ()))
            got.add(pv)

    def meets(self, p: int, seeds: list[tuple[int, int]]) -> bool:
        """On priority ``p``: is the tail of a seed turn reachable from the head of one? (Grow the smaller frontier.)"""
        peer = self.fab.port_peer
        fseen = {peer[qv] for _, qv in seeds}
        bseen = {pv for pv, _ in seeds}
        if not fseen.isdisjoint(bseen):
            return True
        ffront: list[int] | None = list(fseen)
        bfront: list[int] | None = list(bseen)
        while ffront and bfront:
            if len(ffront) <= len(bfront):
                ffront = self._forward(p, ffront, fseen, bseen)
            else:
                bfront = self._backward(p, bfront, fseen, bseen)
            if ffront is None or bfront is None:
                return True
        return False

    def _forward(self, p: int, front: list[int], fseen: set[int], bseen: set[int]) -> list[int] | None:
        """One forward step from ``front``; None when it reaches the backward side."""
        peer, plink, ll, dead = self.fab.port_peer, self.fab.port_link, self.fab.link_lossless, self.dead
        succ, succ0 = self.succ, self.succ0
        grow: list[int] = []
        for n in front:
            outs = succ.get(n)
            for qv in succ0.get(n, _EMPTY) if outs is None else outs:
                li = plink[qv]
                if li in dead or p not in ll[li]:
                    continue
                m = peer[qv]
                if m in bseen:
                    return None
                if m not in fseen:
                    fseen.add(m)
                    grow.append(m)
        return grow

    def _backward(self, p: int, front: list[int], fseen: set[int], bseen: set[int]) -> list[int] | None:
        """One backward step from ``front``; None when it reaches the forward side."""
        peer, plink, ll, dead = self.fab.port_peer, self.fab.port_link, self.fab.link_lossless, self.dead
        pred, pred0 = self.pred, self.pred0
        grow: list[int] = []
        for m in front:
            qv = peer[m]  # the egress port that feeds m
            ins = pred.get(qv)
            for pv in pred0.get(qv, _EMPTY) if ins is None else ins:
                li = plink[pv]
                if li in dead or p not in ll[li]:
                    continue
                if pv in fseen:
                    return None
                if pv not in bseen:
                    bseen.add(pv)
                    grow.append(pv)
        return grow


_EMPTY: frozenset[int] = frozenset()
