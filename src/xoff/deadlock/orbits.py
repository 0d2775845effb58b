"""Destination classes up to the fabric's renamings: route one class per orbit, rename its routes (issue 19).

Routing (``routing_batch``, ``route_class``: bgp or igp) reads only which switches the live links join and, under
bgp, whether two switches hold the same ASN. Two switches ``x`` and ``y`` are *routing twins* when they have the
same live neighbours, over as many live links each, and an ASN a renaming can carry along (the same ASN, or each
its own ASN held by no other switch; any ASN under igp). Swapping them (their live ports matched neighbour by
neighbour, parallel links in port order) is then an automorphism ``s`` of what routing reads, so the routes
towards ``y`` are the renamed routes towards ``x``: ``NH_y(s(v)) = s(NH_x(v))``, with distances kept and AS-path
sets renamed by the ASN swap. Twins are never neighbours (a twin of its own neighbour would be its own
neighbour; a switch on a self-link is alone), so ``s`` moves only their ports and the ports facing them.

An orbit of destination classes is then a group of twins; its first class (in the given order) is routed, the
others renamed from it. This differs from ``twins`` (the failure sweep's skip of repairs) in what it asks: the
routes alone, not the turn check, so ranks, lossless sets and link attributes do not matter here; callers keep
every non-routing attribute of the real fabric (the turns are counted on the renamed routes themselves).
A fabric with static or fallback routes is not renamed (a static route names ports, which a swap moves).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from xoff.deadlock.fabric import Fabric, Paths
from xoff.deadlock.routing import route_dests
from xoff.deadlock.routing_batch import Routes

Ints = npt.NDArray[np.int64]


class Orbits:
    """Routing twins of one fabric with some links dead, and the swap that maps one twin onto another."""

    def __init__(self, fab: Fabric, bgp: bool, dead: frozenset[int] | set[int]) -> None:
        self.fab, self.bgp, self.dead = fab, bgp, frozenset(dead)
        self.live_to: list[dict[int, list[int]]] = _live_ports_to(fab, self.dead)
        self.group: list[int] = _groups(fab, bgp, self.live_to)

    def representatives(self, dests: Sequence[int]) -> dict[int, int]:
        """Each switch of ``dests`` -> the first switch of ``dests`` in its twin group (itself when first)."""
        first: dict[int, int] = {}
        return {d: first.setdefault(self.group[d], d) for d in dests}

    def port_swap(self, x: int, y: int) -> tuple[list[int], list[int]]:
        """The ports the swap of twins ``x`` and ``y`` moves, and where each goes (an involution: ``src[i]`` goes to
        ``dst[i]`` and ``dst[i]`` is also in ``src``, going back). Live ports only."""
        peer = self.fab.port_peer
        src: list[int] = []
        dst: list[int] = []
        mine, theirs = self.live_to[x], self.live_to[y]
        for n, xs in mine.items():
            for px, py in zip(xs, theirs[n], strict=True):
                src += [px, py, peer[px], peer[py]]
                dst += [py, px, peer[py], peer[px]]
        return src, dst

    def asn_swap(self, x: int, y: int) -> dict[int, int]:
        """The ASN renaming of the swap (empty when they share their ASN, and under igp)."""
        a, b = self.fab.asn[x], self.fab.asn[y]
        return {a: b, b: a} if self.bgp and a != b else {}


def _live_ports_to(fab: Fabric, dead: frozenset[int]) -> list[dict[int, list[int]]]:
    """Per switch: neighbour -> its live ports towards that neighbour, in port id order."""
    owner, peer, plink = fab.port_owner, fab.port_peer, fab.port_link
    out: list[dict[int, list[int]]] = [{} for _ in fab.switches]
    for v, ports in enumerate(fab.ports_of):
        to = out[v]
        for gp in sorted(ports) if not dead else sorted(gp for gp in ports if plink[gp] not in dead):
            to.setdefault(owner[peer[gp]], []).append(gp)
    return out


def _groups(fab: Fabric, bgp: bool, live_to: list[dict[int, list[int]]]) -> list[int]:
    """Per switch, the smallest index of its routing-twin group (itself when it has no twin)."""
    held = Counter(fab.asn)
    group: list[int] = []
    first: dict[tuple[object, ...], int] = {}
    for v, to in enumerate(live_to):
        if v in to:  # a link to itself: alone
            group.append(v)
            continue
        seen = tuple(sorted(zip(to, map(len, to.values()), strict=True)))  # (neighbour, live links to it)
        asn = fab.asn[v]
        renamable: tuple[object, ...] = ("own",) if held[asn] == 1 or not bgp else ("shared", asn)
        group.append(first.setdefault((renamable, seen), v))
    return group


class OrbitRoutes(Mapping[int, Routes]):
    """Every class's baseline routes, the representatives' computed and the others renamed from them on first read.

    Equal, entry for entry, to ``routing.route_all``'s routes (the dict order of a renamed class's entries is its
    representative's, which nothing reads)."""

    def __init__(self, fab: Fabric, orbits: Orbits, rep_of: dict[int, int], rep_routes: dict[int, Routes]) -> None:
        self.fab, self.orbits, self.rep_of = fab, orbits, rep_of
        self.reps: list[int] = list(rep_routes)
        self.done: dict[int, Routes] = dict(rep_routes)

    def __getitem__(self, c: int) -> Routes:
        got = self.done.get(c)
        if got is None:
            r = self.rep_of[c]  # KeyError for a class not in the fabric, as a dict
            got = self.done[c] = renamed_routes(self.fab, self.orbits, r, c, self.done[r])
        return got

    def __iter__(self) -> Iterator[int]:
        return iter(self.rep_of)

    def __len__(self) -> int:
        return len(self.rep_of)

    def renamed_index(self, rep_index: dict[int, list[int]]) -> dict[int, list[int]]:
        """A link -> classes index (classes ascending) of the representatives, for every class: class ``c`` is
        listed under the swap's image of each link its representative is listed under. Exact for an index whose
        entries a renaming carries along (the failure sweep's critical classes: they read the routes alone)."""
        plink = np.array(self.fab.port_link, dtype=np.int64)
        links_of: dict[int, list[int]] = {}
        for li, cs in rep_index.items():
            for r in cs:
                links_of.setdefault(r, []).append(li)
        arrays = {r: np.array(ls, dtype=np.int64) for r, ls in links_of.items()}
        link_map = np.arange(len(self.fab.link_ids), dtype=np.int64)
        all_links: list[Ints] = []
        all_classes: list[Ints] = []
        for c, r in self.rep_of.items():
            got = arrays.get(r)
            if got is None:
                continue
            if c != r:
                src, dst = self.orbits.port_swap(r, c)
                moved = plink[np.array(src, dtype=np.int64)]
                link_map[moved] = plink[np.array(dst, dtype=np.int64)]
                got = link_map[got]
                link_map[moved] = moved
            all_links.append(got)
            all_classes.append(np.full(len(got), c, dtype=np.int64))
        if not all_links:
            return {}
        links, classes = np.concatenate(all_links), np.concatenate(all_classes)
        order = np.lexsort((classes, links))
        links, classes = links[order], classes[order]
        cuts = np.flatnonzero(links[1:] != links[:-1]) + 1
        starts = np.concatenate(([0], cuts)).tolist()
        ends = [*cuts.tolist(), len(links)]
        heads = links[starts].tolist()
        flat = classes.tolist()
        return {li: flat[a:b] for li, a, b in zip(heads, starts, ends, strict=True)}


def orbit_routes(fab: Fabric, bgp: bool, dead: frozenset[int]) -> OrbitRoutes | None:
    """Every class's routes by orbit (``OrbitRoutes``); None when static routes pin ports or no orbit holds two
    classes (``route_all`` then)."""
    if fab.static or fab.fallback or fab.class_dest:
        return None
    orb = Orbits(fab, bgp, dead)
    rep_of = orb.representatives(list(dict.fromkeys(fab.classes)))
    reps = list(dict.fromkeys(rep_of.values()))
    if len(reps) == len(rep_of):
        return None
    routed = route_dests(fab, reps, "bgp" if bgp else "igp", dead)
    return OrbitRoutes(fab, orb, rep_of, dict(zip(reps, routed, strict=True)))


K = TypeVar("K")
V = TypeVar("V")
W = TypeVar("W")


class LazyMap(Mapping[K, W]):
    """``{k: make(k, base[k]) for k in base}``, each value made when first read."""

    def __init__(self, base: Mapping[K, V], make: Callable[[K, V], W]) -> None:
        self.base, self.make = base, make
        self.done: dict[K, W] = {}

    def __getitem__(self, k: K) -> W:
        got = self.done.get(k)
        if got is None:
            got = self.done[k] = self.make(k, self.base[k])
        return got

    def __iter__(self) -> Iterator[K]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)


def renamed_routes(fab: Fabric, orbits: Orbits, x: int, y: int, routes: Routes) -> Routes:
    """The routes towards ``y`` from those towards its twin ``x``: every entry moved by the swap."""
    src, dst = orbits.port_swap(x, y)
    port = dict(zip(src, dst, strict=True))
    asn = orbits.asn_swap(x, y)
    intern = fab.paths.intern
    renamed: dict[Paths, Paths] = {}
    hops: dict[tuple[int, ...], tuple[int, ...]] = {}
    out: Routes = {}
    for v, (dist, nh, paths) in routes.items():
        w = y if v == x else x if v == y else v
        got = hops.get(nh)
        if got is None:
            got = hops[nh] = tuple(sorted(port.get(p, p) for p in nh)) if any(p in port for p in nh) else nh
        sets = paths
        if paths is not None and asn:
            sets = renamed.get(paths)
            if sets is None:
                sets = renamed[paths] = intern(frozenset(frozenset(asn.get(a, a) for a in p) for p in paths))
        out[w] = (dist, got, sets)
    return out


def renamed_bits(
    orbits: Orbits,
    row_of: Ints,
    rep_rows: npt.NDArray[np.bool_],
    reps: Sequence[int],
    dests: Sequence[int],
    rep_of: dict[int, int],
) -> npt.NDArray[np.uint8]:
    """The next-hop matrix packed as (bytes of classes x port rows), bit ``7 - k % 8`` of byte ``k // 8`` for the
    k-th class of ``dests`` (numpy's big-endian bit order): each class's row is its representative's
    (``rep_rows``, in ``reps`` order) with the bits of the ports the swap moves exchanged.

    A row holds 0 or 1 per byte, so shifting it as 64-bit words moves every byte's bit within that byte: eight
    ports per operation (at 100,000 GPUs 1,568 classes x 409,600 ports, 0.39 -> ~0.08 s)."""
    where = {r: k for k, r in enumerate(reps)}
    n = rep_rows.shape[1]
    wide = (n + 7) // 8 * 8  # whole words per row
    ones = np.zeros((len(reps), wide), dtype=np.uint8)  # 0 or 1 per port row
    ones[:, :n] = rep_rows
    out = np.zeros(((len(dests) + 7) // 8, wide), dtype=np.uint8)
    ones_w, out_w = ones.view(np.uint64), out.view(np.uint64)
    for j, d in enumerate(dests):
        r = rep_of[d]
        shift = 7 - j % 8
        out_w[j // 8] |= ones_w[where[r]] << np.uint64(shift)
        if r != d:
            row, byte = ones[where[r]], out[j // 8]
            src, dst = orbits.port_swap(r, d)
            # NH_d = s(NH_r): port p is a next hop towards d iff s(p) is one towards r (s is its own inverse)
            at, came = row_of[np.array(src, dtype=np.int64)], row_of[np.array(dst, dtype=np.int64)]
            byte[at] = (byte[at] & ~np.uint8(1 << shift)) | (row[came] << shift)
    return out[:, :n]
