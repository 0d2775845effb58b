"""Many destination classes routed at once, as arrays: ``routing.route_class``'s rounds for a block of classes together.

The rule is route_class's (deadlock.md §5.1): round d gives a route to every switch without one that has a live port
towards a switch routed in round d-1 whose AS-path set passes its loop check (under bgp: some path without the
switch's ASN); its next hops are every such port, ascending; under bgp its AS-path set is the union of the accepted
sets, each extended by its ASN (the same interned objects, ``fab.paths``). The result is equal to route_class's, dict
order included (by round, then in the order the switches of the previous round found them).

How: per round, the switches routed in round d-1 mark their unrouted neighbours (push); each marked switch then
reads its own live ports in port order (pull), so next hops come out grouped and sorted. The loop check is one AND
on a bit mask: an ASN that only one switch holds is never in the path set of another switch routed before it (a
path through that ASN goes through that switch), so only ASNs held by several switches get a bit, and a path set's
mask holds the ASNs in every one of its paths. With more shared ASNs than bits, route_class runs per class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, pairwise, repeat

import numpy as np
import numpy.typing as npt

from xoff.deadlock.fabric import Fabric, Paths

Ints = npt.NDArray[np.int64]
Hops = tuple[int, ...]
Routes = dict[int, tuple[int, Hops, Paths | None]]  # routing.Routes (that module imports this one)

EDGE_BUDGET = 1_000_000  # classes x directed fabric ports per block: bounds the arrays of one round
MASK_BITS = 62  # shared ASNs a bit mask holds (int64, sign bit unused)


@dataclass(frozen=True)
class _Ports:
    """Every switch's live fabric ports in port order (compressed rows): ``port[off[v]:off[v+1]]`` are v's ports,
    ``peer`` the switch at the other end, ``pos`` the other end's place in that switch's port list."""

    off: Ints
    deg: Ints
    port: Ints
    peer: Ints
    pos: Ints
    owner: Ints  # the switch of each row entry


def _live_ports(fab: Fabric, dead: frozenset[int] | set[int]) -> _Ports:
    """In bulk (409,600 ports at 100,000 GPUs): each switch's listed ports sorted by one stable sort of (switch,
    port), the dead links' ports dropped, and each port's peer switch and place in the peer's list (as listed)."""
    lens = np.fromiter(map(len, fab.ports_of), dtype=np.int64, count=len(fab.ports_of))
    listed = np.fromiter(chain.from_iterable(fab.ports_of), dtype=np.int64, count=int(lens.sum()))
    row = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
    where = np.zeros(len(fab.port_owner), dtype=np.int64)  # each port's place in its switch's list
    where[listed] = np.arange(len(listed), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    order = np.lexsort((listed, row))
    port, row = listed[order], row[order]
    if dead:
        gone = np.fromiter(dead, dtype=np.int64, count=len(dead))
        live = ~np.isin(np.asarray(fab.port_link, dtype=np.int64)[port], gone)
        port, row = port[live], row[live]
    deg = np.bincount(row, minlength=len(lens)).astype(np.int64)
    off = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(deg, out=off[1:])
    across = np.asarray(fab.port_peer, dtype=np.int64)[port]
    return _Ports(
        off=off,
        deg=deg,
        port=port,
        peer=np.asarray(fab.port_owner, dtype=np.int64)[across],
        pos=where[across],
        owner=np.repeat(np.arange(len(lens), dtype=np.int64), deg),
    )


def _expand(rows: Ints, first: Ints, count: Ints) -> tuple[Ints, Ints]:
    """Row ``rows[i]`` repeated ``count[i]`` times beside the indices ``first[i] .. first[i]+count[i]-1``."""
    total = int(count.sum())
    starts = np.cumsum(count) - count
    idx = np.arange(total, dtype=np.int64) + np.repeat(first - starts, count)
    return np.repeat(rows, count), idx


class _PathIds:
    """AS-path sets as small integers, each with two bit masks of shared ASNs: those in every one of its paths
    (the loop check) and those in any (so an extension by an ASN in none derives both masks without a scan)."""

    def __init__(self, fab: Fabric, bit: dict[int, int]) -> None:
        self.fab, self.bit = fab, bit
        self.objs: list[Paths] = []
        self.ids: dict[Paths, int] = {}
        self.masks: list[int] = []
        self.anys: list[int] = []
        self.mask_array: Ints = np.zeros(0, dtype=np.int64)

    def of(self, paths: Paths, masks: tuple[int, int] | None = None) -> int:
        got = self.ids.get(paths)
        if got is None:
            got = self.ids[paths] = len(self.objs)
            self.objs.append(paths)
            if masks is None:
                every = frozenset.intersection(*paths) if paths else frozenset()
                masks = self._mask(every), self._mask(frozenset().union(*paths))
            self.masks.append(masks[0])
            self.anys.append(masks[1])
        return got

    def _mask(self, asns: frozenset[int]) -> int:
        return sum(1 << self.bit[a] for a in asns if a in self.bit)

    def masks_now(self) -> Ints:
        if len(self.mask_array) != len(self.masks):
            self.mask_array = np.array(self.masks, dtype=np.int64)
        return self.mask_array

    def extended(self, p: int, a: int) -> int:
        paths = self.fab.paths
        src = self.objs[p]
        ext = paths.extensions(src)
        e = ext.get(a)
        if e is None:
            e = ext[a] = paths.extend(src, a)
        b = 1 << self.bit[a] if a in self.bit else 0
        fresh = (self.masks[p] | b, self.anys[p] | b) if not self.anys[p] & b else None  # a in no path of src
        return self.of(e, fresh)

    def extend_pairs(self, src: Ints, asn: Ints, bits: Ints) -> Ints:  # noqa: ARG002 -- bits: for LazyPathIds
        """``extended`` for each (set id, ASN) pair; ``bits`` are the ASNs' mask bits (0 for an unshared ASN)."""
        return np.array([self.extended(p, a) for p, a in zip(src.tolist(), asn.tolist(), strict=True)], dtype=np.int64)

    def union(self, ps: Sequence[int], a: int) -> int:
        exts = {self.extended(p, a) for p in ps}
        if len(exts) == 1:
            return exts.pop()
        return self.of(self.fab.paths.union(self.objs[e] for e in exts))


@dataclass
class _Round:
    """The switches one round routed, in their dict order, and where their next hops are."""

    dist: int
    cls: list[int]
    sw: list[int]
    lo: list[int]
    hi: list[int]
    ports: tuple[int, ...]
    paths: list[int] | None
    cuts: list[int]  # where the class changes in ``cls``, with 0 and the end


@dataclass(frozen=True)
class _Step:
    """One round as arrays: the accepted (class, port row) pairs, the routed (class, switch) pairs in dict order,
    where each one's accepted pairs are (``lo``/``hi``), and their AS-path set ids (bgp)."""

    c: Ints
    i: Ints
    gc: Ints
    gv: Ints
    lo: Ints
    hi: Ints
    paths: Ints | None


class _Block:
    """The rounds of one block of destination classes."""

    def __init__(
        self, fab: Fabric, ports: _Ports, dests: Sequence[int], ids: _PathIds | None, hops: dict[Hops, Hops]
    ) -> None:
        self.fab, self.ports, self.dests, self.ids, self.hops = fab, ports, list(dests), ids, hops
        n, s = len(dests), len(fab.switches)
        self.dist = np.full((n, s), -1, dtype=np.int64)
        self.rank = np.zeros((n, s), dtype=np.int64)
        self.pid = np.zeros((n, s), dtype=np.int64)
        rows = np.arange(n, dtype=np.int64)
        d = np.array(self.dests, dtype=np.int64)
        self.dist[rows, d] = 0
        self.rank[rows, d] = 0
        if ids is not None:
            self.pid[rows, d] = [ids.of(fab.paths.start(fab.asn[x])) for x in self.dests]
        self.bits = np.array([1 << ids.bit[a] if ids and a in ids.bit else 0 for a in fab.asn], dtype=np.int64)
        # ``pos`` counts every port of a switch, dead ones too (route_class walks them all and skips the dead), so
        # the rank stride must exceed the full port count: the live count lets (rank r, pos p) tie (rank r+1, pos 0)
        self.span = max(map(len, fab.ports_of), default=0) + 1
        self.flat_pid = self.pid.reshape(-1)
        self.asns = sorted(set(fab.asn))
        where = {a: k for k, a in enumerate(self.asns)}
        self.asn_index = np.array([where[a] for a in fab.asn], dtype=np.int64)
        self.asn_values = np.array(self.asns, dtype=np.int64)
        self.asn_bits = np.array([1 << ids.bit[a] if ids and a in ids.bit else 0 for a in self.asns], dtype=np.int64)

    def rounds(self) -> list[_Round]:
        out: list[_Round] = []
        d = 1
        while (r := self._round(d)) is not None:
            out.append(r)
            d += 1
        return out

    def _accepted(self, d: int) -> tuple[Ints, Ints]:
        """The ports over which a switch without a route accepts one in round d, as (class, port row index) sorted
        by class, switch and port: every live port whose other end was routed in round d-1, on a switch without a
        route yet, that passes the loop check. One (classes x ports) boolean matrix per round, over the ports that
        can take part in it for some class of the block (their ascending order keeps the result's order)."""
        pt = self.ports
        last, open_ = self.dist == d - 1, self.dist < 0
        seen = np.any(last, axis=0)
        waiting = np.any(open_, axis=0)
        cols = np.flatnonzero(seen[pt.peer] & waiting[pt.owner])
        told = last[:, pt.peer[cols]]
        told &= open_[:, pt.owner[cols]]
        c, j = np.nonzero(told)
        i = cols[j]
        if self.ids is not None and len(c):
            bits = self.bits[pt.owner[i]]
            ok = (self.ids.masks_now()[self.flat_pid[c * self.dist.shape[1] + pt.peer[i]]] & bits) == 0
            c, i = c[ok], i[ok]
        return c, i

    def _advance(self, d: int, *, ordered: bool = True) -> _Step | None:
        """Round d: every switch it routes gets its distance, (bgp) AS-path set and, when ``ordered``, its discovery
        rank (the routes' dict order; ``next_hops`` needs none, and its (class, switch) pairs stay sorted)."""
        pt = self.ports
        c, i = self._accepted(d)
        if not len(c):
            return None
        v, n = pt.owner[i], pt.peer[i]
        key = c * self.dist.shape[1] + v  # sorted: np.nonzero goes class by class, port rows switch by switch
        lo = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        hi = np.append(lo[1:], len(key))
        p = self.pid[c, n] if self.ids is not None else None
        one = (np.minimum.reduceat(p, lo) == np.maximum.reduceat(p, lo)) if p is not None else None
        if ordered:
            found = np.minimum.reduceat(self.rank[c, n] * self.span + pt.pos[i], lo)
            order = np.lexsort((found, c[lo]))
            lo, hi = lo[order], hi[order]
            one = one[order] if one is not None else None
        gc, gv = c[lo], v[lo]
        self.dist[gc, gv] = d
        if ordered:
            self.rank[gc, gv] = np.arange(len(lo), dtype=np.int64)
        paths = None
        if p is not None and one is not None:
            paths = self._paths(p, v, lo, hi, one)
            self.pid[gc, gv] = paths
        return _Step(c, i, gc, gv, lo, hi, paths)

    def _round(self, d: int) -> _Round | None:
        step = self._advance(d)
        if step is None:
            return None
        gc, paths = step.gc, step.paths
        cuts = [0, *(np.flatnonzero(gc[1:] != gc[:-1]) + 1).tolist(), len(gc)]
        ports = tuple(self.ports.port[step.i].tolist())
        pids = paths.tolist() if paths is not None else None
        return _Round(d, gc.tolist(), step.gv.tolist(), step.lo.tolist(), step.hi.tolist(), ports, pids, cuts)

    def next_hops(self) -> npt.NDArray[np.bool_]:
        """(classes of this block x live port rows): True where the port is one of the class's next hops at its
        switch, the same rounds as ``routes`` without building them."""
        used = np.zeros((len(self.dests), len(self.ports.port)), dtype=np.bool_)
        d = 1
        while (step := self._advance(d, ordered=False)) is not None:
            used[step.c, step.i] = True
            d += 1
        return used

    def _paths(self, p: Ints, v: Ints, lo: Ints, hi: Ints, single: npt.NDArray[np.bool_]) -> Ints:
        """Each routed switch's AS-path set: its accepted neighbours' sets (``p``) extended by its ASN, united.
        Most switches accept one set: those are extended once per distinct (set, ASN) pair."""
        assert self.ids is not None
        ids, asn, k = self.ids, self.fab.asn, len(self.asns)
        pairs, back = np.unique(p[lo] * k + self.asn_index[v[lo]], return_inverse=True)
        src, which = np.divmod(pairs, k)
        out = ids.extend_pairs(src, self.asn_values[which], self.asn_bits[which])[back]
        for g in np.flatnonzero(~single).tolist():
            s, e = int(lo[g]), int(hi[g])
            out[g] = ids.union(sorted(set(p[s:e].tolist())), asn[int(v[s])])
        return out

    def routes(self) -> list[Routes]:
        """Every class's routes: the destination switch first, then round by round in discovery order."""
        fab, ids = self.fab, self.ids
        out: list[Routes] = [{x: (0, (), fab.paths.start(fab.asn[x]) if ids else None)} for x in self.dests]
        for r in self.rounds():
            cut = [*map(r.ports.__getitem__, map(slice, r.lo, r.hi))]
            hops = map(self.hops.setdefault, cut, cut)  # equal next-hop tuples one object, over every class
            paths = map(ids.objs.__getitem__, r.paths) if ids and r.paths is not None else repeat(None)
            entries = list(zip(repeat(r.dist), hops, paths))
            for a, b in pairwise(r.cuts):
                out[r.cls[a]].update(zip(r.sw[a:b], entries[a:b], strict=True))
        return out


def shared_asn_bits(fab: Fabric) -> dict[int, int] | None:
    """ASN -> bit, for the ASNs more than one switch holds; None when there are more than a mask holds."""
    seen: dict[int, int] = {}
    for a in fab.asn:
        seen[a] = seen.get(a, 0) + 1
    shared = sorted(a for a, k in seen.items() if k > 1)
    if len(shared) > MASK_BITS:
        return None
    return {a: b for b, a in enumerate(shared)}


def route_many(fab: Fabric, dests: Sequence[int], bgp: bool, dead: frozenset[int] | set[int]) -> list[Routes] | None:
    """Every class of ``dests`` routed (bgp or igp), in blocks; None when bgp's ASNs do not fit the masks."""
    bit = shared_asn_bits(fab) if bgp else {}
    if bit is None:
        return None
    ports = _live_ports(fab, dead)
    ids = _PathIds(fab, bit) if bgp else None
    size = max(1, EDGE_BUDGET // max(1, len(ports.port)))
    out: list[Routes] = []
    hops: dict[Hops, Hops] = {}
    for k in range(0, len(dests), size):
        out.extend(_Block(fab, ports, dests[k : k + size], ids, hops).routes())
    return out
