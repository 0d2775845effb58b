"""Deadlock risk after link failures: incremental single sweep and filtered double search (deadlock.md §5).

Baseline: route every destination class once (``routing``), judge the snapshot with the core
``analyse``. For each fabric link ``f``:

1. Only classes for which ``f`` is *critical* are re-routed: a switch forwards over ``f`` and
   losing it changes more than its own ECMP set (it was the last next hop, or, under BGP, the only
   contributor of one of its AS paths). Anywhere else a failure only shrinks one ECMP set, which
   removes turns and cannot create a cycle. The re-routing itself is incremental
   (``repair.repair``), and skipped where a renaming of twin switches (``twins``: in a rail-optimised
   clos3 the leaves of a pod, the super-spines of a plane) maps the (failure, class) pair onto one
   already found to add no turn: it adds none either.
2. The turns the re-routed classes add are collected. Removals alone cannot create a cycle, and
   when the baseline holds the up*/down* certificate every cycle needs a down -> up turn
   (bounce): no new bounce, no risk.
3. Otherwise a targeted search, per lossless priority: is the tail of a new bounce (of any new
   turn when the baseline is not certified) reachable from the head of one, over the baseline
   turns plus every new turn (a superset of the scenario's graph)? Bidirectional breadth-first
   search. No: no cycle, proven. Maybe: the core ``analyse`` judges the scenario's exact snapshot
   and gives the witness.

Double failures (§5.3): a pair can only close a cycle if both of its single failures add bounces;
in a 2-tier leaf-spine the two must also bounce in opposite spine directions (S1 -> L -> S2 and
S2 -> L' -> S1). Surviving pairs are re-routed (both failures, incrementally) and checked as above.
With a risky baseline every scenario is judged in full by ``analyse`` (no incremental shortcut
applies) and pairs are not searched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from operator import itemgetter

from xoff.deadlock.analysis import Result, analyse
from xoff.deadlock.certify import certified_baseline
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.forwarding import build_snapshot, describe, forwarding_ports
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.model import Snapshot
from xoff.deadlock.orbits import LazyMap, orbit_routes
from xoff.deadlock.pool import run_chunked
from xoff.deadlock.repair import RouteView, repair
from xoff.deadlock.routing import Delta, Entry, Routes, Routing, route_all
from xoff.deadlock.statics import StaticRoute
from xoff.deadlock.sweep_report import BounceTurn, LevelStats, Scenario, SweepReport
from xoff.deadlock.turn_search import TurnSearch
from xoff.deadlock.twins import PairKey, Twins, twins_of
from xoff.desired.models import FabricState

Analyser = Callable[[Snapshot], Result]


class _Sweeper:
    def __init__(
        self,
        fab: Fabric,
        routing: Routing,
        analyser: Analyser,
        workers: int = 1,
        use_twins: bool = True,
        use_orbits: bool = False,
    ) -> None:
        """``use_orbits``: route one class per orbit of routing twins and rename the routes, the forwarding tables
        and the critical-class index of the others from it, each when first read (``orbits``; the same values).
        The routes' dict order then differs, so only when no baseline snapshot is built from them."""
        self.routing = routing
        self.analyser = analyser
        self.fab = fab
        self.base_dead: frozenset[int] = frozenset(fab.down)
        self.orbit_routes = orbit_routes(fab, routing == "bgp", self.base_dead) if use_orbits else None
        self.routes: Mapping[int, Routes]
        self.fwd0: Mapping[int, dict[int, tuple[int, ...]]]
        if self.orbit_routes is not None:
            self.routes = self.orbit_routes
            self.fwd0 = LazyMap(self.routes, self._fwd_table)
        else:
            self.routes = route_all(fab, routing, self.base_dead, workers)
            self.fwd0 = {c: self._fwd_table(c, per) for c, per in self.routes.items()}
        self._crit: dict[int, list[int]] | None = None
        self._turns0: tuple[dict[int, set[int]], dict[int, set[int]]] | None = None
        self.certified = False
        # twin groups (``twins``) and the orbits of (failure, class) pairs found to add no turn
        self.twins: Twins | None = twins_of(self.fab) if use_twins else None
        self.quiet: set[PairKey] = set()

    # -- baseline indexes --------------------------------------------------------------------------

    def _fwd_table(self, c: int, per: Routes) -> dict[int, tuple[int, ...]]:
        fab, dead = self.fab, self.base_dead
        if not fab.static and not fab.fallback:  # forwarding_ports is the route's next hops then
            return {v: e[1] for v, e in per.items() if e[1]}
        # the destination switch's own entry has no next hops: it forwards only when a static route says so
        out = {v: forwarding_ports(fab, c, v, e, dead) for v, e in per.items()}
        for sc, v in [*fab.static, *fab.fallback]:
            if sc == c:
                out[v] = forwarding_ports(fab, c, v, per.get(v), dead)
        return {v: f for v, f in out.items() if f}

    @property
    def crit(self) -> dict[int, list[int]]:
        """Fabric link -> classes whose routing changes beyond one ECMP set shrinking when it fails."""
        if self._crit is None:
            orb = self.orbit_routes
            if orb is None:
                self._crit = self._critical(self.routes.items())
            else:  # the representatives' index, renamed for the other classes of their orbits
                self._crit = orb.renamed_index(self._critical((r, orb[r]) for r in orb.reps))
        return self._crit

    def _critical(self, routes: Iterable[tuple[int, Routes]]) -> dict[int, list[int]]:  # noqa: C901, PLR0912 -- one pass over every (class, switch) route, the sweep's hot loop: kept in one frame for speed
        fab = self.fab
        owner, peer, plink, asn = fab.port_owner, fab.port_peer, fab.port_link, fab.asn
        crit: dict[int, set[int]] = {}
        bgp = self.routing == "bgp"
        # next-hop tuple -> its neighbours (an itemgetter of their entries) and those reached over one port only;
        # a switch's next hops are the same tuple towards most classes, so it is grouped once
        grouped: dict[tuple[int, ...], tuple[list[int], Callable[[Routes], tuple[Entry, ...]], dict[int, int]]] = {}
        paths_of = itemgetter(2)
        for c, per in routes:
            for v, (_, nh, paths) in per.items():
                if not nh:
                    continue
                if len(nh) == 1:
                    crit.setdefault(plink[nh[0]], set()).add(c)
                    continue
                if not bgp or paths is None:
                    continue  # igp: a shrink keeps the distance
                group = grouped.get(nh)
                if group is None:
                    by_nbr: dict[int, list[int]] = {}
                    for gp in nh:
                        by_nbr.setdefault(owner[peer[gp]], []).append(gp)
                    single = {n: gps[0] for n, gps in by_nbr.items() if len(gps) == 1}
                    group = grouped[nh] = (list(by_nbr), itemgetter(*by_nbr), single)
                nbrs, entries, single = group
                if len(nbrs) == 1 or not single:
                    continue  # parallel links to one neighbour: a shrink keeps the distance
                if len(set(map(paths_of, entries(per)))) == 1:
                    continue  # every neighbour offers the same paths: each has >= 2 contributors
                a = asn[v]
                for p in paths:
                    rest = p - {a}
                    contributors = [n for n in nbrs if rest in (per[n][2] or ())]
                    if len(contributors) == 1 and contributors[0] in single:
                        crit.setdefault(plink[single[contributors[0]]], set()).add(c)
            for (sc, _), gps in [*fab.static.items(), *fab.fallback.items()]:
                if sc == c:
                    for gp in gps:
                        crit.setdefault(plink[gp], set()).add(c)
        return {li: sorted(cs) for li, cs in crit.items()}

    def turns0(self) -> tuple[dict[int, set[int]], dict[int, set[int]]]:
        """Baseline turns (fabric only) as ingress -> egress ports and egress -> ingress ports; built when first needed."""
        if self._turns0 is None:
            fab = self.fab
            owner, peer = fab.port_owner, fab.port_peer
            succ: dict[int, set[int]] = {}
            seen: set[tuple[int, int]] = set()
            for fwd in self.fwd0.values():
                for qs in fwd.values():
                    for q in qs:
                        pv = peer[q]
                        out = fwd.get(owner[pv])
                        if out and (pv, id(out)) not in seen:
                            seen.add((pv, id(out)))
                            succ.setdefault(pv, set()).update(out)
            pred: dict[int, set[int]] = {}
            for pv, outs in succ.items():
                for qv in outs:
                    pred.setdefault(qv, set()).add(pv)
            self._turns0 = (succ, pred)
        return self._turns0

    # -- one scenario ------------------------------------------------------------------------------

    def reroute(self, links: Sequence[int]) -> tuple[dict[int, Delta], frozenset[int]]:
        """Deltas of the classes the failure of ``links`` (in order) changes beyond a shrink."""
        classes: set[int] = set()
        for li in links:
            classes.update(self.crit.get(li, ()))
        if len(links) > 1:
            classes.update(self._shared_end_classes(links))
        deltas: dict[int, Delta] = {}
        for c in sorted(classes):
            delta: Delta = {}
            dead = set(self.base_dead)
            for li in links:
                dead.add(li)
                repair(self.fab, self.routing, self.fab.dest_of(c), self.routes[c], delta, dead, li)
            deltas[c] = delta
        return deltas, self.base_dead | frozenset(links)

    def _shared_end_classes(self, links: Sequence[int]) -> set[int]:
        """Classes in which one switch forwards over two of the failed links (the second may be critical then)."""
        fab = self.fab
        ends: dict[int, list[int]] = {}
        for li in links:
            for gp in fab.link_ports[li]:
                ends.setdefault(fab.port_owner[gp], []).append(gp)
        out: set[int] = set()
        for x, gps in ends.items():
            if len(gps) < 2:
                continue
            for c, fwd in self.fwd0.items():
                hops = fwd.get(x, ())
                if sum(1 for gp in gps if gp in hops) >= 2:
                    out.add(c)
        return out

    def added_turns(
        self, deltas: dict[int, Delta], dead: frozenset[int], *, only_bounces: bool = False
    ) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """(bounces, other new turns) as (in-port, out-port, class), only those with a lossless edge.

        ``only_bounces``: the other turns are not looked for (returned empty); the bounces are the same list,
        in the same order, as without it (the same turns are recorded in the same order, less the others)."""
        found: dict[int, int] = {}  # new turn (in-port * width + out-port) -> the last class that makes it
        for c, delta in deltas.items():
            found.update(self.class_turns(c, delta, dead, only_bounces))
        return self.split_turns(found)

    def split_turns(self, found: dict[int, int]) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """``found`` (turn key -> class) as (bounces, other turns), in its order, those with a lossless edge only."""
        fab = self.fab
        plink, up, ll = fab.port_link, fab.up_facing, fab.link_lossless
        width = len(fab.port_owner)
        bounces: list[tuple[int, int, int]] = []
        others: list[tuple[int, int, int]] = []
        for key, c in found.items():
            pv, qv = divmod(key, width)
            if ll[plink[pv]] & ll[plink[qv]]:
                (bounces if up[pv] and up[qv] else others).append((pv, qv, c))
        return bounces, others

    def class_turns(  # noqa: C901 -- per changed switch of one class, the sweep's hot loop: kept in one frame for speed
        self, c: int, delta: Delta, dead: frozenset[int], only_bounces: bool
    ) -> dict[int, int]:
        """The turns class ``c``'s repair ``delta`` adds (in-port * width + out-port -> ``c``), in the order found."""
        fab = self.fab
        owner, peer, plink, up = fab.port_owner, fab.port_peer, fab.port_link, fab.up_facing
        width = len(owner)
        found: dict[int, int] = {}
        old = self.fwd0[c]
        get = RouteView(self.routes[c], delta)
        cache: dict[int, tuple[int, ...]] = {}

        def new_fwd(v: int) -> tuple[int, ...]:
            got = cache.get(v)
            if got is None:
                got = forwarding_ports(fab, c, v, get(v), dead)
                cache[v] = got
            return got

        changed = {v for v in delta if new_fwd(v) != old.get(v, ())}
        changed.update(v for (sc, v) in [*fab.static, *fab.fallback] if sc == c and new_fwd(v) != old.get(v, ()))
        # A turn pv -> qv at v is new iff qv is a new egress of v, or pv a new ingress, i.e. the
        # upstream switch's new egress. Switches whose next hops only shrank add nothing.
        for u in changed:
            out_old = set(old.get(u, ()))
            added = [q for q in new_fwd(u) if q not in out_old]
            if not added:
                continue
            # a bounce pv -> qv arrives from above (up[pv]) and leaves upwards (up[qv])
            added_in = [q for q in added if up[q]] if only_bounces else added
            for pv in fab.ports_of[u] if added_in else ():
                if only_bounces and not up[pv]:
                    continue
                if plink[pv] not in dead and peer[pv] in new_fwd(owner[peer[pv]]):
                    key = pv * width
                    for qv in added_in:
                        found[key + qv] = c
            for q in added:
                pv = peer[q]
                if only_bounces and not up[pv]:
                    continue
                key = pv * width
                for qv in new_fwd(owner[pv]):
                    if not only_bounces or up[qv]:
                        found[key + qv] = c
        return found

    def may_cycle(
        self, seeds: Sequence[tuple[int, int, int]], new_turns: Sequence[tuple[int, int, int]], dead: frozenset[int]
    ) -> bool:
        """Is the tail of some seed turn reachable from the head of one, over the baseline plus the new turns?

        A cycle of the scenario's graph must use a seed (a new bounce when the baseline is certified,
        any new turn otherwise). Per lossless priority, a bidirectional breadth-first search (forward
        from the seeds' heads, backward from their tails, always growing the smaller frontier) over
        the baseline turns plus ``new_turns`` (a superset of the scenario's turns); nodes are ingress
        ports (directed links). False means no cycle; True means "maybe", for ``analyse`` to decide.
        """
        fab = self.fab
        plink, ll = fab.port_link, fab.link_lossless
        succ0, pred0 = self.turns0()
        search = TurnSearch(fab, succ0, pred0, dead)
        search.add_turns(new_turns)
        by_prio: dict[int, list[tuple[int, int]]] = {}
        for pv, qv, _ in seeds:
            for p in ll[plink[pv]] & ll[plink[qv]]:
                by_prio.setdefault(p, []).append((pv, qv))
        return any(search.meets(p, by_prio[p]) for p in sorted(by_prio))

    def snapshot(self, links: Sequence[int]) -> Snapshot:
        """The exact snapshot of a failure scenario (every class re-routed)."""
        dead = self.base_dead | frozenset(links)
        routes = route_all(self.fab, self.routing, dead)
        ids = [self.fab.link_ids[li] for li in links]
        return build_snapshot(self.fab, routes, dead, description=describe(self.fab, self.routing, ids), per_class=True)

    def name_bounce(self, b: tuple[int, int, int]) -> BounceTurn:
        fab = self.fab
        pv, qv, c = b
        return BounceTurn(
            switch=fab.switches[fab.port_owner[pv]],
            in_port=fab.port_name[pv],
            out_port=fab.port_name[qv],
            came_from=fab.switches[fab.port_owner[fab.port_peer[pv]]],
            goes_to=fab.switches[fab.port_owner[fab.port_peer[qv]]],
            dest=fab.switches[fab.dest_of(c)],
        )


def _two_tier(fab: Fabric) -> bool:
    """Every fabric link joins a rank-1 switch to a rank-2 switch (the §5.3 direction filter applies)."""
    return all(
        {fab.rank[fab.port_owner[x]], fab.rank[fab.port_owner[y]]} == {1, 2}
        for li, (x, y) in enumerate(fab.link_ports)
        if li not in fab.down
    )


def sweep(
    state: FabricState,
    *,
    routing: Routing = "bgp",
    max_failures: int = 1,
    network: str = "compute",
    static_routes: Sequence[StaticRoute] = (),
    analyser: Analyser = analyse,
    workers: int = 1,
    twins: bool = True,
) -> SweepReport:
    """Baseline analysis, then every single (and filtered double) fabric-link failure; see the module doc.

    ``workers`` > 1: the single failures are judged in that many forked processes (``pool.run_chunked``),
    with the same result as one process. ``twins`` False: every critical class of every single failure is
    repaired (no twin renaming skips one; the reference the renaming is tested against)."""
    if max_failures not in (0, 1, 2):
        raise ValueError(f"max_failures {max_failures} is not supported (allowed: 0, 1, 2)")
    clock = time.perf_counter()
    fab = fabric_of(state, network, static_routes)
    # the certificate from the routing rounds, when it holds (the same result as analyse's); the sweep then renames
    # the routes of one class per orbit for the others (no baseline snapshot is built from them)
    quick = certified_baseline(fab, routing, frozenset(fab.down)) if analyser is analyse else None
    if quick is not None:
        baseline = quick
        certificate = quick.timings["certificate"]
        if max_failures:
            sw = _Sweeper(fab, routing, analyser, workers, twins, use_orbits=True)
            sw.certified = True
        seconds = {"routing": time.perf_counter() - clock - certificate, "baseline_analysis": certificate}
    else:
        sw = _Sweeper(fab, routing, analyser, workers, twins)
        seconds = {"routing": time.perf_counter() - clock}
        clock = time.perf_counter()
        snap = build_snapshot(fab, sw.routes, sw.base_dead, description=describe(fab, routing, ()), per_class=True)
        baseline = analyser(snap)
        sw.certified = baseline.certified
        seconds["baseline_analysis"] = time.perf_counter() - clock
    levels: dict[int, LevelStats] = {
        0: LevelStats(scenarios=1, checked=1, analysed=1, risky=int(baseline.deadlock_risk))
    }
    risky: list[Scenario] = []
    links = [li for li in range(len(fab.link_ids)) if li not in fab.down]
    report = SweepReport(
        fabric=fab.fabric,
        network=network,
        routing=routing,
        max_failures=max_failures,
        fabric_links=len(links),
        baseline=baseline,
        levels=levels,
        risky=risky,
        resilient_to=None if baseline.deadlock_risk else 0,
        seconds=seconds,
    )
    if max_failures == 0:
        return report
    clock = time.perf_counter()
    single = levels[1] = LevelStats(scenarios=len(links))
    bounces_of = _single_failures(sw, links, single, risky, baseline.deadlock_risk, workers)
    seconds["single_failures"] = time.perf_counter() - clock
    if baseline.deadlock_risk:
        return report
    if not single.risky:
        report.resilient_to = 1
    if max_failures < 2:
        return report
    clock = time.perf_counter()
    double = levels[2] = LevelStats(scenarios=len(links) * (len(links) - 1) // 2)
    _double_failures(sw, report, links, bounces_of, double)
    seconds["double_failures"] = time.perf_counter() - clock
    if not single.risky and not double.risky:
        report.resilient_to = 2
    return report


Bounces = list[tuple[int, int, int]]


def _single_failures(
    sw: _Sweeper, links: list[int], single: LevelStats, risky: list[Scenario], baseline_risky: bool, workers: int
) -> dict[int, Bounces]:
    """Judge every single failure (in ``workers`` forked processes when > 1); add the risky ones to ``risky``
    and the counts to ``single``, in link order; return the bounces each failure adds."""
    if workers > 1:  # built once here, inherited by every worker
        sw.crit  # noqa: B018 -- the property builds the index
        if not baseline_risky and (sw.routing == "igp" or not sw.certified):
            sw.turns0()

    def judge(chunk: Sequence[int]) -> tuple[list[Scenario], dict[int, Bounces], LevelStats]:
        found: list[Scenario] = []
        stats = LevelStats()
        bounces: dict[int, Bounces] = {}
        for li in chunk:
            scenario, bounces[li] = _judge_single(sw, li, stats, baseline_risky)
            if scenario is not None:
                found.append(scenario)
        return found, bounces, stats

    bounces_of: dict[int, Bounces] = {}
    for found, bounces, stats in run_chunked(judge, links, workers):
        risky.extend(found)
        bounces_of.update(bounces)
        single.add(stats)
    return bounces_of


def _double_failures(
    sw: _Sweeper,
    report: SweepReport,
    links: list[int],
    bounces_of: dict[int, list[tuple[int, int, int]]],
    double: LevelStats,
) -> None:
    """Search the pairs that can close a cycle (§5.3), after a certified or risk-free single sweep."""
    fab, risky = sw.fab, report.risky
    risky_single = {fab.link_index()[sc.failed[0]] for sc in risky}
    if sw.certified:
        candidates = sorted(li for li, b in bounces_of.items() if b and li not in risky_single)
        report.pair_filter = "both single failures add down-to-up turns"
    else:  # bounces exist already: no filter is sound, every pair is searched
        candidates = [li for li in links if li not in risky_single]
        report.pair_filter = "every pair (the baseline has down-to-up turns, so no pair filter applies)"
    two_tier = sw.certified and _two_tier(fab)
    dirs: dict[int, set[tuple[int, int]]] = {}
    if two_tier:
        owner, peer = fab.port_owner, fab.port_peer
        for li in candidates:
            dirs[li] = {(owner[peer[pv]], owner[peer[qv]]) for pv, qv, _ in bounces_of[li]}
        report.pair_filter += ", in opposite spine directions (2-tier leaf-spine)"
    if risky_single:
        report.pair_filter += f"; pairs holding one of the {len(risky_single)} risky single failures are not searched"
    for f, g in combinations(candidates, 2):
        if two_tier and not any((b, a) in dirs[g] for a, b in dirs[f]):
            continue
        scenario, _ = _judge(sw, [f, g], double, False)
        if scenario is not None:
            risky.append(scenario)


def _judge(
    sw: _Sweeper, links: list[int], stats: LevelStats, baseline_risky: bool
) -> tuple[Scenario | None, list[tuple[int, int, int]]]:
    """Check one failure set: (the scenario if it has deadlock risk, else None; the bounces it adds)."""
    stats.checked += 1
    deltas, dead = sw.reroute(links)
    stats.rerouted += len(deltas)
    # certified baseline: only a new bounce can close a cycle; the other new turns matter only if there is one.
    # Under bgp (RFC 7938 ASNs) a failure rarely adds a bounce, so look for bounces alone first (under igp
    # nearly every failure does, and the second pass would double the work)
    quick = sw.certified and not baseline_risky and sw.routing == "bgp"
    bounces, others = sw.added_turns(deltas, dead, only_bounces=quick)
    if quick and bounces:
        bounces, others = sw.added_turns(deltas, dead)
    return _decide(sw, links, stats, baseline_risky, dead, bounces, others)


def _judge_single(
    sw: _Sweeper, li: int, stats: LevelStats, baseline_risky: bool
) -> tuple[Scenario | None, list[tuple[int, int, int]]]:
    """``_judge`` of one failure, skipping the classes a twin renaming shows to add no turn (``twins``).

    A class whose (failure, class) pair is in the orbit of one found to add no turn (no bounce in the
    first, bounces-only pass) adds none either, so its repair is skipped; the others' turns are merged
    in class order, as ``added_turns`` does, so the turns (and what follows from them) are ``_judge``'s.
    When that first pass finds a bounce, the skipped classes are repaired after all: the second pass
    needs every class's other turns. With a risky baseline every failure is analysed in full: ``_judge``."""
    twins = sw.twins
    if twins is None or baseline_risky:
        return _judge(sw, [li], stats, baseline_risky)
    stats.checked += 1
    quick = sw.certified and sw.routing == "bgp"  # as in _judge
    fab, dead = sw.fab, sw.base_dead | {li}
    quiet = sw.quiet
    classes = sw.crit.get(li, ())
    stats.rerouted += len(classes)
    deltas: dict[int, Delta] = {}
    found: dict[int, int] = {}
    for c, key in zip(classes, twins.keys(li, classes), strict=True):
        if key in quiet:
            continue
        delta = deltas[c] = {}
        repair(fab, sw.routing, fab.dest_of(c), sw.routes[c], delta, set(dead), li)
        turns = sw.class_turns(c, delta, dead, quick)
        if turns:
            found.update(turns)
        else:
            quiet.add(key)
    bounces, others = sw.split_turns(found)
    if quick and bounces:
        for c in classes:
            if c not in deltas:
                repair(fab, sw.routing, fab.dest_of(c), sw.routes[c], deltas.setdefault(c, {}), set(dead), li)
        bounces, others = sw.added_turns({c: deltas[c] for c in classes}, dead)
    return _decide(sw, [li], stats, baseline_risky, dead, bounces, others)


def _decide(
    sw: _Sweeper,
    links: list[int],
    stats: LevelStats,
    baseline_risky: bool,
    dead: frozenset[int],
    bounces: list[tuple[int, int, int]],
    others: list[tuple[int, int, int]],
) -> tuple[Scenario | None, list[tuple[int, int, int]]]:
    """A failure set's verdict from the turns it adds (``_judge``)."""
    if bounces:
        stats.with_bounces += 1
    if baseline_risky:
        return _analyse(sw, links, stats, bounces), bounces
    new_turns = bounces + others
    # certified baseline: every cycle needs a down -> up turn, and only the new ones exist
    seeds = bounces if sw.certified else new_turns
    if not seeds:
        return None, bounces
    stats.targeted += 1
    if not sw.may_cycle(seeds, new_turns, dead):
        return None, bounces
    return _analyse(sw, links, stats, bounces), bounces


def _analyse(sw: _Sweeper, links: list[int], stats: LevelStats, bounces: list[tuple[int, int, int]]) -> Scenario | None:
    stats.analysed += 1
    result = sw.analyser(sw.snapshot(links))
    if not result.deadlock_risk:
        return None
    stats.risky += 1
    return Scenario(
        failed=tuple(sw.fab.link_ids[li] for li in links),
        result=result,
        bounces=tuple(sw.name_bounce(b) for b in bounces),
    )


def brute_force(
    state: FabricState,
    *,
    routing: Routing = "bgp",
    failures: int = 1,
    network: str = "compute",
    static_routes: Sequence[StaticRoute] = (),
    analyser: Analyser = analyse,
) -> list[tuple[str, ...]]:
    """The naive reference: every failure set of size ``failures`` re-routed from scratch and fully
    analysed. Returns the failure sets with deadlock risk (for tests and the benchmark)."""
    fab = fabric_of(state, network, static_routes)
    links = [li for li in range(len(fab.link_ids)) if li not in fab.down]
    out = []
    for combo in combinations(links, failures):
        dead = fab.down | frozenset(combo)
        routes = route_all(fab, routing, dead)
        ids = tuple(fab.link_ids[li] for li in combo)
        if analyser(build_snapshot(fab, routes, dead, description=describe(fab, routing, ids))).deadlock_risk:
            out.append(ids)
    return out
