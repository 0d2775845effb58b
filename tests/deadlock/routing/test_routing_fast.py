"""The fast routing paths against the straightforward computation, on random small fabrics.

- ``route_class`` (interned AS-path sets, memoised loop checks) equals a plain breadth-first
  path-vector computation that rebuilds every AS-path set from its neighbours' sets.
- The per-class analysis snapshot (one destination per class, what the sweep analyses) gives the
  same result as the per-host snapshot: risk, nodes on cycles, witness with its justifying
  destinations, PFC mismatches.
"""

from __future__ import annotations

from itertools import chain, combinations
from pathlib import Path

import pytest
from deadlock_fabrics import hand_built
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sweep_cases import NAMES, state_of

from xoff.deadlock import routing_batch
from xoff.deadlock.analysis import analyse
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.forwarding import build_snapshot
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.routing import Entry, Routes, route_all, route_class
from xoff.deadlock.statics import StaticRoute
from xoff.desired.models import FabricState

ROLES = ("leaf", "spine", "super-spine")


def reference_route_class(fab: Fabric, dest: int, routing: str, dead: set[int]) -> Routes:
    """Rounds of a breadth-first propagation; every AS-path set recomputed from scratch."""
    bgp = routing == "bgp"
    owner, peer, plink = fab.port_owner, fab.port_peer, fab.port_link
    routes: dict[int, Entry] = {dest: (0, (), frozenset({frozenset({fab.asn[dest]})}) if bgp else None)}
    frontier, dist = [dest], 0
    while frontier:
        dist += 1
        cand: dict[int, list[int]] = {}
        for n in frontier:
            for gp in fab.ports_of[n]:
                q = peer[gp]
                v = owner[q]
                if plink[gp] in dead or v in routes:
                    continue
                paths_n = routes[n][2]
                if bgp and paths_n is not None and all(fab.asn[v] in p for p in paths_n):
                    continue
                cand.setdefault(v, []).append(q)
        for v, qs in cand.items():
            paths = None
            if bgp:
                a = fab.asn[v]
                paths = frozenset(p | {a} for q in qs for p in (routes[owner[peer[q]]][2] or frozenset()) if a not in p)
            routes[v] = (dist, tuple(sorted(qs)), paths)
        frontier = list(cand)
    return routes


@st.composite
def fabrics(draw: st.DrawFn) -> tuple[FabricState, list[int]]:
    n = draw(st.integers(3, 9))
    asn_pool = draw(st.integers(1, n))  # few ASNs: the loop check rejects often
    switches = {f"s{i}": (draw(st.sampled_from(ROLES)), 65000 + draw(st.integers(0, asn_pool - 1))) for i in range(n)}
    pairs = [(f"s{i}", f"s{j}") for i in range(n) for j in range(i + 1, n)]
    links = draw(st.lists(st.sampled_from(pairs), min_size=n - 1, max_size=3 * n))
    hosts = draw(st.lists(st.sampled_from(sorted(switches)), min_size=1, max_size=n, unique=True))
    dead = draw(st.lists(st.integers(0, max(0, len(links) - 1)), max_size=3))
    return hand_built(switches, links, hosts), dead


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(["bgp", "igp"]))
def test_route_class_equals_the_straightforward_computation(case: tuple[FabricState, list[int]], routing: str) -> None:
    state, dead_list = case
    fab = fabric_of(state)
    dead = {li for li in dead_list if li < len(fab.link_ids)}
    for c in fab.classes:
        assert route_class(fab, c, routing, dead) == reference_route_class(fab, c, routing, dead)  # type: ignore[arg-type]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(["bgp", "igp"]), st.data())
def test_per_class_snapshot_gives_the_per_host_answer(
    case: tuple[FabricState, list[int]], routing: str, data: st.DataObject
) -> None:
    state, dead_list = case
    fab = fabric_of(state)
    # a static route or two, so that some cases have cycles
    statics = []
    for _ in range(data.draw(st.integers(0, 2))):
        if not fab.classes or not fab.port_owner:
            break
        gp = data.draw(st.integers(0, len(fab.port_owner) - 1))
        dest = fab.switches[data.draw(st.sampled_from(fab.classes))]
        statics.append(StaticRoute(fab.switches[fab.port_owner[gp]], dest, (fab.port_name[gp],)))
    fab = fabric_of(state, static_routes=statics)
    dead = fab.down | {li for li in dead_list if li < len(fab.link_ids)}
    routes = route_all(fab, routing, dead)  # type: ignore[arg-type]
    full = analyse(build_snapshot(fab, routes, dead)).to_json()
    compact = analyse(build_snapshot(fab, routes, dead, per_class=True)).to_json()
    for key in ("deadlock_risk", "risky_priorities", "nodes_on_cycles", "example_cycle", "pfc_mismatches", "cycles"):
        assert full[key] == compact[key], key


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(["bgp", "igp"]))
def test_route_all_equals_route_class_per_class(case: tuple[FabricState, list[int]], routing: str) -> None:
    """All classes routed at once (routing_batch) give route_class's routes, the dict order included."""
    state, dead_list = case
    fab = fabric_of(state)
    dead = {li for li in dead_list if li < len(fab.link_ids)}
    together = route_all(fab, routing, dead)  # type: ignore[arg-type]
    for c in fab.classes:
        alone = route_class(fab, fab.dest_of(c), routing, dead)  # type: ignore[arg-type]
        assert list(together[c].items()) == list(alone.items())


def test_route_all_without_room_for_the_shared_asns_routes_class_by_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """More shared ASNs than a loop-check mask holds: route_all falls back to route_class, the same routes."""
    switches = {f"s{i}": ("spine" if i % 2 else "leaf", 65000 + i % 3) for i in range(6)}
    links = [(f"s{i}", f"s{j}") for i in range(6) for j in range(i + 1, 6) if (i + j) % 2]
    fab = fabric_of(hand_built(switches, links, ["s0", "s2", "s4"]))
    batched = route_all(fab, "bgp", set())
    monkeypatch.setattr(routing_batch, "MASK_BITS", 1)
    assert routing_batch.route_many(fab, [0], True, set()) is None
    fallback = route_all(fab, "bgp", set())
    assert {c: list(r.items()) for c, r in fallback.items()} == {c: list(r.items()) for c, r in batched.items()}


def test_route_all_orders_a_round_as_route_class_when_dead_ports_precede_a_live_one() -> None:
    """Regression (a Hypothesis example, igp, links 0 and 2 dead). Towards s4, round 1 routes s6 (rank 0) then s0
    (rank 1); in round 2 route_class meets s3 first, over s6's fourth port (to_s3_1, after two dead ones), then s1
    over s0's first port. The batch ranked a switch by (rank x stride + the port's place among all the ports) with
    the stride from the live port count (3): s3 got 0*3+3, s1 got 1*3+0, a tie broken by switch index, s1 first."""
    switches = {f"s{i}": ("leaf", 65000) for i in range(7)}
    links = [("s1", "s6"), ("s4", "s6"), ("s3", "s6"), ("s0", "s1"), ("s0", "s4"), ("s3", "s6")]
    fab = fabric_of(hand_built(switches, links, ["s0", "s1", "s2", "s3", "s4"]))
    index = fab.link_index()
    dead = {index["s1:to_s6--s6:to_s1"], index["s3:to_s6--s6:to_s3"]}
    s4 = fab.index["s4"]
    alone = route_class(fab, s4, "igp", dead)
    assert [fab.switches[v] for v in alone] == ["s4", "s6", "s0", "s3", "s1"]
    together = route_all(fab, "igp", dead)
    assert [fab.switches[v] for v in together[s4]] == ["s4", "s6", "s0", "s3", "s1"]
    for c in fab.classes:
        assert list(together[c].items()) == list(route_class(fab, fab.dest_of(c), "igp", dead).items())


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_route_all_equals_route_class_after_every_failure_of_one_or_two_links(routing: str, tmp_path: Path) -> None:
    """Not left to the random draw: on every sweep harness fabric, each single and double link failure, route_all
    gives route_class's routes in route_class's dict order (dead ports before a live one once broke the order)."""
    for name in NAMES:
        state, statics = state_of(name, tmp_path)
        fab = fabric_of(state, static_routes=statics)
        links = [li for li in range(len(fab.link_ids)) if li not in fab.down]
        for dead_now in chain(combinations(links, 1), combinations(links, 2)):
            dead = fab.down | set(dead_now)
            together = route_all(fab, routing, dead)  # type: ignore[arg-type]
            for c in fab.classes:
                alone = route_class(fab, fab.dest_of(c), routing, dead)  # type: ignore[arg-type]
                assert list(together[c].items()) == list(alone.items()), (name, dead_now, c)
