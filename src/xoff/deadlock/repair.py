"""Incremental repair of one destination class's routes after a link failure (the failure sweep, deadlock.md §5.2).

A repair writes a :data:`~xoff.deadlock.routing.Delta` against the class's baseline routes instead of
recomputing them; :class:`RouteView` reads the routes through it. The result is what
``routing.route_class`` computes on the failed fabric (tests/deadlock/routing checks it).
"""

from __future__ import annotations

import heapq
from collections import deque

from xoff.deadlock.fabric import Fabric, Paths
from xoff.deadlock.routing import Delta, Entry, Routes, Routing, route_class


class RouteView:
    """Reads a class's routes through a delta (the scenario's changes)."""

    __slots__ = ("base", "delta")

    def __init__(self, base: Routes, delta: Delta) -> None:
        self.base, self.delta = base, delta

    def __call__(self, v: int) -> Entry | None:
        if v in self.delta:
            return self.delta[v]
        return self.base.get(v)


def repair(fab: Fabric, routing: Routing, dest: int, base: Routes, delta: Delta, dead: set[int], link: int) -> None:
    """Update ``delta`` (changes to ``base``) for the failure of fabric link ``link``.

    ``dead`` already holds ``link`` and every earlier failure that ``delta`` reflects. igp: the
    two-phase decremental BFS (Ramalingam-Reps: find the switches whose distance grows, then
    re-settle only those from their unaffected neighbours). bgp: path-vector iteration from the
    link's ends until nothing changes; shortest AS_PATH with loop filtering is strictly increasing,
    so it converges to the unique stable state, which is what ``route_class`` computes. A work
    budget bounds pathological cases; past it the class is recomputed and diffed.
    """
    get = RouteView(base, delta)
    if routing == "igp":
        _repair_igp(fab, dest, get, delta, dead, link)
    else:
        _repair_bgp(fab, dest, get, delta, dead, link)


def _repair_igp(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int], link: int) -> None:
    affected = _igp_affected(fab, dest, get, delta, dead, link)
    if not affected:
        return
    settled = _igp_settle(fab, get, dead, affected)
    _igp_next_hops(fab, get, delta, dead, affected, settled)


def _igp_affected(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int], link: int) -> set[int]:
    """Phase 1: drop the failed ports from every next-hop set; the switches left without one (and, in turn,
    those that relied only on them) are the affected ones, whose distance grows."""
    owner, peer, plink, ports_of = fab.port_owner, fab.port_peer, fab.port_link, fab.ports_of
    queue: list[int] = []
    for gp in fab.link_ports[link]:
        x = owner[gp]
        e = get(x)
        if e is not None and gp in e[1]:
            nh = tuple(p for p in e[1] if p != gp)
            delta[x] = (e[0], nh, None)
            if not nh and x != dest:
                queue.append(x)
    affected: set[int] = set()
    while queue:
        x = queue.pop()
        if x in affected:
            continue
        affected.add(x)
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            q = peer[gp]
            y = owner[q]
            if y in affected or y == dest:
                continue
            e = get(y)
            if e is not None and q in e[1]:
                nh = tuple(p for p in e[1] if p != q)
                delta[y] = (e[0], nh, None)
                if not nh:
                    queue.append(y)
    return affected


def _igp_settle(fab: Fabric, get: RouteView, dead: set[int], affected: set[int]) -> dict[int, int]:
    """Phase 2: the affected switches' new distances, settled (Dijkstra) from their unaffected neighbours."""
    owner, peer, plink, ports_of = fab.port_owner, fab.port_peer, fab.port_link, fab.ports_of
    heap: list[tuple[int, int]] = []
    for x in affected:
        best = -1
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            if y in affected:
                continue
            e = get(y)
            if e is not None and (best < 0 or e[0] + 1 < best):
                best = e[0] + 1
        if best >= 0:
            heap.append((best, x))
    heapq.heapify(heap)
    settled: dict[int, int] = {}
    while heap:
        d, x = heapq.heappop(heap)
        if x in settled:
            continue
        settled[x] = d
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            if y in affected and y not in settled:
                heapq.heappush(heap, (d + 1, y))
    return settled


def _igp_next_hops(
    fab: Fabric, get: RouteView, delta: Delta, dead: set[int], affected: set[int], settled: dict[int, int]
) -> None:
    """The affected switches' entries: every live port towards a neighbour one hop closer; unreachable: withdrawn."""
    owner, peer, plink, ports_of = fab.port_owner, fab.port_peer, fab.port_link, fab.ports_of
    for x in affected:
        d = settled.get(x, -1)
        if d < 0:
            delta[x] = None
            continue
        nh_list = []
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            dy = settled.get(y, -1) if y in affected else (e[0] if (e := get(y)) is not None else -1)
            if dy == d - 1:
                nh_list.append(gp)
        delta[x] = (d, tuple(nh_list), None)


def _repair_bgp(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int], link: int) -> None:
    todo: deque[int] = deque()
    # switch -> the neighbours whose advertisement changed since it was queued; None = recompute fully
    pending: dict[int, set[int] | None] = {}
    for gp in fab.link_ports[link]:
        x = fab.port_owner[gp]
        e = get(x)
        # an end that did not forward over the link keeps its routes: it lost a candidate it did not pick
        if x != dest and x not in pending and e is not None and gp in e[1]:
            todo.append(x)
            pending[x] = None
    budget = 64 * (len(fab.switches) + 16)
    while todo:
        budget -= 1
        if budget < 0:
            _recompute(fab, dest, get, delta, dead)
            return
        v = todo.popleft()
        changed = pending.pop(v)
        old = get(v)
        new = _bgp_shrunk(fab, v, old, changed, get, dead) if changed is not None and old is not None else None
        if new is None:
            new = _bgp_entry(fab, v, get, dead)
        if new == old:
            continue
        delta[v] = new
        if new is not None and old is not None and new[0] == old[0] and new[2] == old[2]:
            continue  # only the ECMP set changed: neighbours see the same advertisement
        for _, y, li in fab.neighbours[v]:
            if li in dead or y == dest:
                continue
            if y not in pending:
                todo.append(y)
                pending[y] = {v}
            else:
                waiting = pending[y]
                if waiting is not None:
                    waiting.add(v)


def _bgp_shrunk(fab: Fabric, v: int, old: Entry, changed: set[int], get: RouteView, dead: set[int]) -> Entry | None:
    """``v``'s new entry when only the neighbours in ``changed`` changed, or None if a full recompute is needed.

    Unchanged neighbours still offer what they offered: ``v``'s old next hops towards them, and
    nothing shorter. So if one of them remains and no changed neighbour now offers a shorter path,
    the distance stays and only the changed neighbours need evaluating.
    """
    d_v, old_nh, _ = old
    a = fab.asn[v]
    owner, peer, plink = fab.port_owner, fab.port_peer, fab.port_link
    ports_to = fab.ports_to[v]
    keep = _kept(fab, v, old_nh, changed, dead)
    if not keep:
        return None
    before = len(keep)
    for n in changed:
        e = get(n)
        if e is None or e[2] is None or e[0] + 1 > d_v:
            continue
        if all(a in p for p in e[2]):
            continue  # rejected by the loop check
        if e[0] + 1 < d_v:
            return None  # a shorter path appeared: recompute
        keep.extend(gp for gp in ports_to[n] if plink[gp] not in dead)
    added = len(keep) > before
    keep.sort()
    if not added:
        # the kept neighbours are unchanged next hops, so their paths are a subset of the old ones;
        # when one of them alone gives all the old paths (the RFC 7938 norm), nothing else to do
        first = get(owner[peer[keep[0]]])
        if first is not None and first[2] is not None:
            own = frozenset(p | {a} for p in first[2] if a not in p)
            if own == old[2]:
                return d_v, tuple(keep), old[2]
    sources = {get(owner[peer[gp]])[2] for gp in keep}  # type: ignore[index]
    return d_v, tuple(keep), frozenset(p | {a} for paths in sources for p in paths or () if a not in p)


def _kept(fab: Fabric, v: int, old_nh: tuple[int, ...], changed: set[int], dead: set[int]) -> list[int]:
    """``old_nh`` less the ports towards ``changed`` neighbours and the ports on ``dead`` links, in order.

    The ports to drop are gathered from the (few) changed neighbours and dead links, so a switch with
    hundreds of next hops is walked in C (``isdisjoint``, ``list``) unless one of them goes."""
    ports_to = fab.ports_to[v]
    drop: set[int] = set()
    for n in changed:
        drop.update(ports_to.get(n, ()))
    if len(dead) > _FEW_DEAD:
        plink = fab.port_link
        return [gp for gp in old_nh if gp not in drop and plink[gp] not in dead]
    owner = fab.port_owner
    for li in dead:
        drop.update(gp for gp in fab.link_ports[li] if owner[gp] == v)
    if drop.isdisjoint(old_nh):
        return list(old_nh)
    return [gp for gp in old_nh if gp not in drop]


_FEW_DEAD = 16  # up to this many dead links, their ports are gathered rather than each next hop's link tested


def _recompute(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int]) -> None:
    fresh = route_class(fab, dest, "bgp", dead)
    touched = set(get.base) | set(delta) | set(fresh)
    for v in touched:
        new = fresh.get(v)
        if new != get(v):
            delta[v] = new


def apply_delta(base: Routes, delta: Delta) -> Routes:
    out = dict(base)
    for v, e in delta.items():
        if e is None:
            out.pop(v, None)
        else:
            out[v] = e
    return out


def _bgp_entry(fab: Fabric, v: int, get: RouteView, dead: set[int]) -> Entry | None:
    """Switch ``v``'s best routes from its neighbours' current advertisements (shortest accepted AS path)."""
    a = fab.asn[v]
    best = 1 << 30
    nh: list[int] = []
    sources: list[Paths] = []
    base, delta = get.base, get.delta
    for gp, n, li in fab.neighbours[v]:
        if li in dead:
            continue
        e = delta[n] if n in delta else base.get(n)
        if e is None:
            continue
        d = e[0] + 1
        if d > best:
            continue
        paths = e[2]
        if paths is None:
            continue
        for p in paths:
            if a not in p:
                break
        else:
            continue  # every path holds our ASN: rejected by the loop check
        if d < best:
            best, nh, sources = d, [gp], [paths]
        else:
            nh.append(gp)
            sources.append(paths)
    if not nh:
        return None
    return best, tuple(nh), frozenset(p | {a} for paths in sources for p in paths if a not in p)
