"""Routing models: per-destination ECMP next hops on one indexed network (deadlock.md §5.1).

The network is a :class:`~xoff.deadlock.fabric.Fabric` (``index_state.fabric_of``). All endpoints
behind one switch share the next hops everywhere except at that switch, so routing runs once per
*destination class* (the switch the hosts hang off) and the host port is added per host when the
snapshot is built.

Routing models:

- ``bgp``: eBGP as RFC 7938 runs it: the ASNs of the FabricState (``Device.bgp.asn``), best path =
  shortest AS_PATH, ECMP over every equal-length path (multipath-relax), AS_PATH loop prevention
  (a router rejects a path that holds its own ASN, allowas-in off). A router may hold several
  equal-length paths with different ASNs; it is modelled as advertising all of them (each is a
  possible best path), so a neighbour accepts the route if any of them passes its loop check.
  AS paths never repeat an ASN, so a path is kept as the frozenset of its ASNs.
- ``igp``: shortest path by hop count with ECMP (OSPF/IS-IS with equal link costs).

Both are computed by rounds of a breadth-first propagation from the destination switch (``route_class``;
``route_all`` runs the same rounds for every class at once as arrays, ``routing_batch``); the failure sweep repairs a computed class incrementally (``repair.repair``) instead of recomputing it;
``forwarding`` turns routes into a forwarding snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Literal

from xoff.deadlock.fabric import Fabric, Paths
from xoff.deadlock.pool import run_chunked
from xoff.deadlock.routing_batch import route_many

Routing = Literal["bgp", "igp"]
ROUTINGS: tuple[Routing, ...] = ("bgp", "igp")

# One switch's route to one destination class: (distance, next-hop ports, AS paths or None for igp).
# Distance is the hop count (igp) or the AS_PATH length minus one (bgp); 0 at the destination switch.
Entry = tuple[int, tuple[int, ...], Paths | None]
Routes = dict[int, Entry]  # switch index -> its entry; switches without a route are absent
Delta = dict[int, Entry | None]  # changes against a base Routes; None = the route is withdrawn


def route_class(fab: Fabric, dest: int, routing: Routing, dead: frozenset[int] | set[int]) -> Routes:
    """Every switch's entry towards the hosts behind switch ``dest``; links in ``dead`` do not exist.

    Breadth-first by rounds. Under bgp an AS-path set is extended once per (set, ASN) pair and the
    result interned (``fab.paths``), so switches reached the same way share one object and the loop
    check of a neighbour is one dictionary lookup per port.
    """
    if routing == "bgp":
        return _route_bgp(fab, dest, dead)
    return _route_igp(fab, dest, dead)


def _route_igp(fab: Fabric, dest: int, dead: frozenset[int] | set[int]) -> Routes:
    adj = fab.adjacency()
    routes: Routes = {dest: (0, (), None)}
    frontier = [dest]
    dist = 0
    while frontier:
        dist += 1
        cand: dict[int, list[int]] = {}
        for n in frontier:
            for q, v, li in adj[n]:
                if v in routes or (dead and li in dead):
                    continue
                got = cand.get(v)
                if got is None:
                    cand[v] = [q]
                else:
                    got.append(q)
        for v, qs in cand.items():
            qs.sort()
            routes[v] = (dist, tuple(qs), None)
        frontier = list(cand)
    return routes


def _route_bgp(fab: Fabric, dest: int, dead: frozenset[int] | set[int]) -> Routes:
    adj = fab.adjacency()
    asn = fab.asn
    paths = fab.paths
    routes: Routes = {dest: (0, (), paths.start(asn[dest]))}
    frontier = [dest]
    dist = 0
    while frontier:
        dist += 1
        cand: dict[int, list[int]] = {}
        via: dict[int, Paths] = {}  # v -> the advertisement it accepts (the first one)
        more: dict[int, list[Paths]] = {}  # v -> every accepted advertisement, when they differ
        for n in frontier:
            paths_n = routes[n][2]
            assert paths_n is not None
            ext = paths.extensions(paths_n)
            for q, v, li in adj[n]:
                if v in routes or (dead and li in dead):
                    continue
                a = asn[v]
                e = ext.get(a)
                if e is None:
                    e = ext[a] = paths.extend(paths_n, a)
                if not e:
                    continue  # every path holds v's ASN: rejected by the loop check
                got = cand.get(v)
                if got is None:
                    cand[v] = [q]
                    via[v] = e
                else:
                    got.append(q)
                    if via[v] is not e:
                        more.setdefault(v, [via[v]]).append(e)
        for v, qs in cand.items():
            qs.sort()
            multi = more.get(v)
            routes[v] = (dist, tuple(qs), via[v] if multi is None else paths.union(multi))
        frontier = list(cand)
    return routes


def route_all(fab: Fabric, routing: Routing, dead: frozenset[int] | set[int], workers: int = 1) -> dict[int, Routes]:
    """Every destination class, computed once each (``workers`` > 1: in that many forked processes); the same
    routes as ``route_class`` per class, dict order included, computed for all classes together."""
    dests = list(dict.fromkeys(fab.dest_of(c) for c in fab.classes))
    if workers > 1 and len(dests) > 1:
        parts = run_chunked(lambda chunk: route_dests(fab, chunk, routing, dead), dests, workers)
        done = {d: _interned(fab, r) for d, r in zip(dests, chain.from_iterable(parts), strict=True)}
    else:
        done = dict(zip(dests, route_dests(fab, dests, routing, dead), strict=True))
    # classes split by static routes share their switch's dynamic routes
    return {c: done[fab.dest_of(c)] for c in fab.classes}


def route_dests(fab: Fabric, dests: Sequence[int], routing: Routing, dead: frozenset[int] | set[int]) -> list[Routes]:
    """``route_class`` for every switch of ``dests``: all at once as arrays (``routing_batch``), or one by one when
    the fabric's shared ASNs do not fit its loop-check masks."""
    got = route_many(fab, dests, routing == "bgp", dead)
    return got if got is not None else [route_class(fab, d, routing, dead) for d in dests]


def _interned(fab: Fabric, routes: Routes) -> Routes:
    """Routes computed in a worker, their AS-path sets made this process's interned objects again."""
    intern = fab.paths.intern
    for v, (d, nh, paths) in routes.items():
        if paths is not None:
            routes[v] = (d, nh, intern(paths))
    return routes
