"""Routing one destination class per orbit of routing twins and renaming it for the others (deadlock/orbits.py)
against routing every class: the same next-hop matrix (``deadlock.cbd``'s certificate), the same routes, the same
critical-class index and the same sweep, on random fabrics, templated twin fabrics, the inventories and the sweep
cases; fabrics without two classes in one orbit, and fabrics with static routes, take the full path."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from deadlock_fabrics import clos3_intent, hand_built, leaf_spine_intent, load_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sweep_cases import NAMES, exact, state_of
from test_routing_fast import fabrics
from test_sweep_twins import twin_fabric

from tests.support.paths import INVENTORY
from xoff.deadlock import next_hops
from xoff.deadlock.analysis import analyse
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.failures import _Sweeper, sweep
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.orbits import Orbits, orbit_routes
from xoff.deadlock.routing import Routing, route_all
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent

ROUTINGS: tuple[Routing, ...] = ("bgp", "igp")


def _matrices_agree(fab: Fabric, routing: Routing, dead: frozenset[int]) -> bool:
    """The next-hop matrix by orbits equals the one routing every class; True when some class was renamed."""
    dests = list(dict.fromkeys(fab.classes))
    by_orbit = next_hops.next_hop_matrix(fab, dests, routing == "bgp", dead)
    every = next_hops.next_hop_matrix(fab, dests, routing == "bgp", dead, orbits=False)
    assert (by_orbit is None) == (every is None)
    if by_orbit is None or every is None:
        return False
    assert (by_orbit.ports.port == every.ports.port).all()
    assert (by_orbit.bits == every.bits).all()
    reps = set(Orbits(fab, routing == "bgp", dead).representatives(dests).values())
    return len(reps) < len(dests)


def _routes_agree(fab: Fabric, routing: Routing) -> bool:
    """Renamed routes, forwarding tables and critical-class index equal those of every class routed; True when
    some class was renamed."""
    dead = frozenset(fab.down)
    orb = orbit_routes(fab, routing == "bgp", dead)
    if orb is None:
        return False
    full = route_all(fab, routing, dead)
    assert set(orb) == set(full)
    for c in full:
        assert orb[c] == full[c], c
    by_orbit = _Sweeper(fab, routing, analyse, use_orbits=True)
    every = _Sweeper(fab, routing, analyse)
    assert by_orbit.orbit_routes is not None and every.orbit_routes is None
    assert by_orbit.crit == every.crit
    assert {c: by_orbit.fwd0[c] for c in full} == dict(every.fwd0)
    return len(orb.reps) < len(full)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(ROUTINGS))
def test_random_fabrics_give_the_same_matrix(case: tuple[FabricState, list[int]], routing: Routing) -> None:
    state, dead_list = case
    fab = fabric_of(state)
    _matrices_agree(fab, routing, fab.down | {li for li in dead_list if li < len(fab.link_ids)})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(ROUTINGS))
def test_random_fabrics_give_the_same_routes_and_index(case: tuple[FabricState, list[int]], routing: Routing) -> None:
    _routes_agree(fabric_of(case[0]), routing)


@pytest.mark.parametrize("routing", ROUTINGS)
def test_twin_fabrics_rename_and_agree(routing: Routing) -> None:
    """Templated clos3 fabrics (pods of twin leaves; ASNs shared or per switch; odd links breaking some twins),
    also with one fabric link dead: most have classes renamed, and every one agrees."""
    renamed = 0
    for seed in range(10):
        fab = fabric_of(twin_fabric(seed))
        renamed += _matrices_agree(fab, routing, frozenset(fab.down))
        renamed += _matrices_agree(fab, routing, frozenset(fab.down | {seed % len(fab.link_ids)}))
        renamed += _routes_agree(fab, routing)
    assert renamed >= 15


@pytest.mark.parametrize("routing", ROUTINGS)
def test_reference_shapes_and_inventories_agree(tmp_path: Path, routing: Routing, lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    pod = build_fabric_state(load_intent(INVENTORY / "roce-pod"))
    cases = [
        (load_state(tmp_path, leaf_spine_intent(6, 4)), "compute"),
        (load_state(tmp_path, clos3_intent(4, 4, 2, 4)), "compute"),
        (lab_mini_state[1], "compute"),
        (pod, "compute"),
        (pod, "storage"),
    ]
    renamed = 0
    for state, network in cases:
        fab = fabric_of(state, network)
        renamed += _matrices_agree(fab, routing, frozenset(fab.down))
        renamed += _routes_agree(fab, routing)
    assert renamed >= 4  # the two templated shapes at least


@pytest.mark.parametrize("routing", ROUTINGS)
def test_the_sweep_by_orbits_decides_what_the_full_path_decides(tmp_path: Path, routing: Routing) -> None:
    """The sweep with a certified baseline renames routes by orbit; the full path (an analyser that is not
    ``analyse`` itself) routes every class and analyses the snapshot: the same report, up to double failures."""
    states = []
    for name in NAMES:
        (tmp_path / name).mkdir()
        states.append(state_of(name, tmp_path / name))
    states += [(twin_fabric(seed), ()) for seed in range(10)]
    states += [(load_state(tmp_path, clos3_intent(3, 3, 2, 2)), ())]
    for state, statics in states:
        quick = sweep(state, routing=routing, max_failures=2, static_routes=statics)
        full = sweep(state, routing=routing, max_failures=2, static_routes=statics, analyser=partial(analyse))
        assert exact(quick) == exact(full)


def test_fabrics_without_two_classes_in_an_orbit_and_static_routes_fall_back(tmp_path: Path) -> None:
    """No two leaves alike (each its own set of spines): nothing to rename, every class routed. Static routes:
    never renamed (they name ports)."""
    switches = {"l0": ("leaf", 65001), "l1": ("leaf", 65002), "l2": ("leaf", 65003)}
    switches |= {"s0": ("spine", 65100), "s1": ("spine", 65100), "s2": ("spine", 65100)}
    links = [("l0", "s0"), ("l1", "s0"), ("l1", "s1"), ("l2", "s1"), ("l2", "s2"), ("l0", "s2"), ("l0", "s1")]
    fab = fabric_of(hand_built(switches, links, ["l0", "l1", "l2"]))
    assert orbit_routes(fab, True, frozenset()) is None
    assert not _matrices_agree(fab, "bgp", frozenset())
    assert _Sweeper(fab, "bgp", analyse, use_orbits=True).orbit_routes is None
    state, statics = state_of("static-bounce", tmp_path)
    pinned = fabric_of(state, static_routes=statics)
    assert pinned.static or pinned.fallback
    assert orbit_routes(pinned, True, frozenset(pinned.down)) is None
    twin = fabric_of(twin_fabric(0))
    assert orbit_routes(twin, True, frozenset(twin.down)) is not None  # the same shape without statics renames
