"""The routes' dict order (route_all / route_class: by round, then discovery order) reaches no result.

routing_batch once ordered a round differently from route_class when dead ports came before a live one
(test_routing_fast's regression test). These tests show such a difference could not change a check or a sweep:
every class's routes reversed (any order the batch could have produced is a permutation) give the same analysis,
witness and cycles included, and the same recorded sweep reports. Why: forwarding builds each class's hop vector
over its switches sorted, the sweep's indexes are sets or sorted lists, and repair reads routes by switch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sweep_cases import exact, state_of
from test_routing_fast import fabrics

from tests.support.paths import ROOT
from xoff.deadlock import failures, orbits
from xoff.deadlock.analysis import analyse
from xoff.deadlock.forwarding import build_snapshot
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.routing import Routes, route_all, route_dests
from xoff.deadlock.statics import StaticRoute
from xoff.desired.models import FabricState

RECORDED = ROOT / "tests" / "fixtures" / "deadlock_sweep"


def reversed_routes(routes: dict[int, Routes]) -> dict[int, Routes]:
    out = {c: dict(reversed(per.items())) for c, per in routes.items()}
    assert all(list(out[c]) == list(reversed(per)) for c, per in routes.items())
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(["bgp", "igp"]), st.data())
def test_analysis_does_not_depend_on_the_routes_dict_order(
    case: tuple[FabricState, list[int]], routing: str, data: st.DataObject
) -> None:
    state, dead_list = case
    fab = fabric_of(state)
    statics = []
    for _ in range(data.draw(st.integers(0, 2))):  # static routes, so that some cases have cycles and witnesses
        if not fab.classes or not fab.port_owner:
            break
        gp = data.draw(st.integers(0, len(fab.port_owner) - 1))
        dest = fab.switches[data.draw(st.sampled_from(fab.classes))]
        statics.append(StaticRoute(fab.switches[fab.port_owner[gp]], dest, (fab.port_name[gp],)))
    fab = fabric_of(state, static_routes=statics)
    dead = fab.down | {li for li in dead_list if li < len(fab.link_ids)}
    routes = route_all(fab, routing, dead)  # type: ignore[arg-type]
    for per_class in (False, True):
        as_computed = analyse(build_snapshot(fab, routes, dead, per_class=per_class)).to_json()
        flipped = analyse(build_snapshot(fab, reversed_routes(routes), dead, per_class=per_class)).to_json()
        as_computed.pop("timings")
        flipped.pop("timings")
        assert flipped == as_computed
        event("with a witness" if as_computed["example_cycle"] else "without a cycle")


@pytest.mark.parametrize("routing", ["bgp", "igp"])
@pytest.mark.parametrize("name", ["ring", "static-bounce", "clos3-planes", "random-5", "random-9", "random-11"])
def test_sweep_does_not_depend_on_the_routes_dict_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, routing: str
) -> None:
    """The sweep on every class's routes reversed (baseline, orbit representatives and every exact re-route) gives
    the recorded report (tests/fixtures/deadlock_sweep)."""
    calls: list[str] = []

    def route_all_reversed(*args: object, **kwargs: object) -> dict[int, Routes]:
        calls.append("route_all")
        return reversed_routes(route_all(*args, **kwargs))  # type: ignore[arg-type]

    def route_dests_reversed(*args: object, **kwargs: object) -> list[Routes]:
        calls.append("route_dests")
        return [dict(reversed(per.items())) for per in route_dests(*args, **kwargs)]  # type: ignore[arg-type]

    monkeypatch.setattr(failures, "route_all", route_all_reversed)  # the baseline and the exact snapshots
    monkeypatch.setattr(orbits, "route_dests", route_dests_reversed)  # one class per orbit, the others renamed
    state, statics = state_of(name, tmp_path)
    report = failures.sweep(state, routing=routing, max_failures=2, static_routes=statics)  # type: ignore[arg-type]
    assert calls, "the sweep did not route through the reversed routes"
    assert exact(report) == json.loads((RECORDED / f"{name}.{routing}.json").read_text(encoding="utf-8"))
