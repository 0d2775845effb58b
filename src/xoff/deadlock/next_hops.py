"""The next-hop relation of every destination class as one packed bit matrix, for the baseline certificate.

``next_hop_matrix`` runs ``routing_batch``'s rounds (the same routes as ``route_class``) but keeps only which live
port is a next hop of which class. Under bgp a round needs of each routed switch's AS-path set only its two masks
(the loop check of the next round reads the "in every path" mask); the set itself is built only when a later round
has to (``LazyPathIds``). At 100,000 GPUs the last round alone gives ~2.5 million (class, leaf) path sets, each a
frozenset of frozensets, that no round ever reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from xoff.deadlock.fabric import Fabric, Paths
from xoff.deadlock.orbits import Orbits, renamed_bits
from xoff.deadlock.routing_batch import Ints, _Block, _live_ports, _PathIds, _Ports, shared_asn_bits

NEXT_HOP_BUDGET = 8_000_000  # classes x ports of one block's boolean matrix (bytes)


@dataclass(frozen=True)
class NextHops:
    """Which live fabric ports are next hops of which destination class: ``bits[r]`` is port row ``r``'s classes,
    packed (bit ``k % 8`` of byte ``k // 8`` = the k-th of the routed ``dests``; numpy's bit order is big-endian)."""

    ports: _Ports
    bits: npt.NDArray[np.uint8]


class LazyPathIds(_PathIds):
    """AS-path set ids whose masks are known at once and whose sets are built on demand.

    An extension by an ASN in none of the source's paths (always so for an ASN no other switch holds) has the
    source's masks plus that ASN's bit: it gets an id at once, as arrays, and remembers (source, ASN). Any other
    extension, and a union of several sets, builds the sets (``obj``), interned as ``_PathIds`` does.
    """

    def __init__(self, fab: Fabric, bit: dict[int, int]) -> None:
        super().__init__(fab, bit)
        self.built = _PathIds(fab, bit)  # the sets built so far
        self.size = 0
        self.every = np.zeros(1024, dtype=np.int64)  # ASN bits in every path (the loop check)
        self.any = np.zeros(1024, dtype=np.int64)
        self.src = np.full(1024, -1, dtype=np.int64)  # the id it extends; -1: built
        self.asn = np.zeros(1024, dtype=np.int64)
        self.ref = np.full(1024, -1, dtype=np.int64)  # its id in ``built``; -1: not built yet
        self.of_built: dict[int, int] = {}

    def _grow(self, n: int) -> int:
        """Room for ``n`` more ids; the first of them."""
        need = self.size + n
        if need > len(self.every):
            cap = max(need, 2 * len(self.every))
            for name, fill in (("every", 0), ("any", 0), ("src", -1), ("asn", 0), ("ref", -1)):
                old = getattr(self, name)
                new = np.full(cap, fill, dtype=np.int64)
                new[: self.size] = old[: self.size]
                setattr(self, name, new)
        first, self.size = self.size, need
        return first

    def of(self, paths: Paths, masks: tuple[int, int] | None = None) -> int:
        b = self.built.of(paths, masks)
        got = self.of_built.get(b)
        if got is None:
            got = self.of_built[b] = self._grow(1)
            self.every[got], self.any[got], self.ref[got] = self.built.masks[b], self.built.anys[b], b
        return got

    def masks_now(self) -> Ints:
        return self.every[: self.size]

    def obj(self, i: int) -> Paths:
        """The set of id ``i``, built (and interned) if it was not yet."""
        r = int(self.ref[i])
        if r < 0:
            src, a = self.obj(int(self.src[i])), int(self.asn[i])
            r = self.built.extended(self.built.of(src), a)
            self.ref[i] = r
        return self.built.objs[r]

    def extended(self, p: int, a: int) -> int:
        return self.of(self.built.objs[self.built.extended(self.built.of(self.obj(p)), a)])

    def extend_pairs(self, src: Ints, asn: Ints, bits: Ints) -> Ints:
        out = np.empty(len(src), dtype=np.int64)
        fresh = (self.any[src] & bits) == 0
        k = int(fresh.sum())
        first = self._grow(k)
        new = slice(first, first + k)
        s, b = src[fresh], bits[fresh]
        self.every[new], self.any[new] = self.every[s] | b, self.any[s] | b
        self.src[new], self.asn[new] = s, asn[fresh]
        out[fresh] = np.arange(first, first + k, dtype=np.int64)
        for j in np.flatnonzero(~fresh).tolist():
            out[j] = self.extended(int(src[j]), int(asn[j]))
        return out

    def union(self, ps: Sequence[int], a: int) -> int:
        built = self.built
        exts = {built.extended(built.of(self.obj(p)), a) for p in ps}
        if len(exts) == 1:
            return self.of(built.objs[exts.pop()])
        return self.of(self.fab.paths.union(built.objs[e] for e in exts))


def next_hop_matrix(
    fab: Fabric, dests: Sequence[int], bgp: bool, dead: frozenset[int] | set[int], *, orbits: bool = True
) -> NextHops | None:
    """The next-hop relation of every class of ``dests`` (``route_many``'s rounds, the routes themselves not
    built); None when bgp's ASNs do not fit the masks. ``orbits``: route one class per orbit of routing twins and
    rename its next hops for the others (``orbits``; the same matrix), unless static routes pin ports."""
    bit = shared_asn_bits(fab) if bgp else {}
    if bit is None:
        return None
    ports = _live_ports(fab, dead)
    ids = LazyPathIds(fab, bit) if bgp else None
    size = max(8, NEXT_HOP_BUDGET // max(1, len(ports.port)) // 8 * 8)  # whole bytes per block
    renamed = _renamed(fab, ports, dests, bgp, dead, ids, size) if orbits else None
    if renamed is not None:
        return NextHops(ports, np.ascontiguousarray(renamed.T))
    # filled a block of classes (whole bytes) at a time as (bytes x port rows), each block one contiguous write,
    # then turned once; written straight into (port rows x bytes), every block was a strided write of every row
    by_byte = np.zeros(((len(dests) + 7) // 8, len(ports.port)), dtype=np.uint8)
    for k in range(0, len(dests), size):
        used = _Block(fab, ports, dests[k : k + size], ids, {}).next_hops()
        packed = np.packbits(used, axis=0)
        by_byte[k // 8 : k // 8 + len(packed)] = packed
    return NextHops(ports, np.ascontiguousarray(by_byte.T))


def _renamed(
    fab: Fabric,
    ports: _Ports,
    dests: Sequence[int],
    bgp: bool,
    dead: frozenset[int] | set[int],
    ids: LazyPathIds | None,
    size: int,
) -> npt.NDArray[np.uint8] | None:
    """The matrix as (bytes x port rows), renamed from the routed representatives (``orbits.renamed_bits``); None
    when no two classes share an orbit or static routes pin ports."""
    if fab.static or fab.fallback or fab.class_dest:
        return None
    orb = Orbits(fab, bgp, dead)
    rep_of = orb.representatives(dests)
    reps = list(dict.fromkeys(rep_of.values()))
    if len(reps) == len(rep_of):
        return None
    rep_rows = np.concatenate(
        [_Block(fab, ports, reps[k : k + size], ids, {}).next_hops() for k in range(0, len(reps), size)]
    )
    row_of = np.full(len(fab.port_owner), -1, dtype=np.int64)
    row_of[ports.port] = np.arange(len(ports.port), dtype=np.int64)
    return renamed_bits(orb, row_of, rep_rows, reps, dests, rep_of)
