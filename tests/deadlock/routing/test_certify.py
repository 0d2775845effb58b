"""The baseline certificate from the routing rounds (``certify.certified_baseline``) against the full path it
replaces for ``max_failures: 0``: ``analyse`` of the per-class snapshot built from ``route_all``'s routes.

Where the full path certifies the baseline, the quick one gives the same result (counts, PFC mismatches, every
field but the timings); where it does not (a bounce with a lossless edge), the quick one declines (None)."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
from deadlock_fabrics import clos3_intent, load_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sweep_cases import NAMES, state_of
from test_routing_fast import fabrics

from tests.support.paths import INVENTORY
from xoff.deadlock import certify, next_hops, routing_batch
from xoff.deadlock.analysis import Result, analyse
from xoff.deadlock.certify import certified_baseline
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.failures import sweep
from xoff.deadlock.forwarding import build_snapshot
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.routing import Routing, route_all
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent


def _untimed(result: Result) -> dict[str, Any]:
    return {k: v for k, v in result.to_json().items() if k != "timings"}


def _both(fab: Fabric, routing: Routing, dead: frozenset[int]) -> tuple[Result | None, Result]:
    full = analyse(build_snapshot(fab, route_all(fab, routing, dead), dead, per_class=True))
    return certified_baseline(fab, routing, dead), full


def _agree(fab: Fabric, routing: Routing, dead: frozenset[int]) -> bool:
    """The two paths agree; True when the baseline is certified."""
    quick, full = _both(fab, routing, dead)
    if full.certified:
        assert quick is not None
        assert _untimed(quick) == _untimed(full)
    else:
        assert quick is None
    return full.certified


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_the_sweep_cases_agree_and_both_answers_occur(tmp_path: Path, routing: Routing) -> None:
    certified = {}
    for name in NAMES:
        (tmp_path / name).mkdir()
        state, statics = state_of(name, tmp_path / name)
        if statics:  # static routes: the quick path always declines
            assert certified_baseline(fabric_of(state, static_routes=statics), routing, frozenset()) is None
        fab = fabric_of(state)
        certified[name] = _agree(fab, routing, frozenset(fab.down))
    assert certified["clos3-planes"] and certified["leaf-spine-4x6"]
    assert not certified["ring"]


def test_the_inventories_agree(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    """lab-mini and roce-pod (two networks, parallel links, a storage network without hosts on some leaves)."""
    pod = build_fabric_state(load_intent(INVENTORY / "roce-pod"))
    for state, network in ((lab_mini_state[1], "compute"), (pod, "compute"), (pod, "storage")):
        fab = fabric_of(state, network)
        for routing in ("bgp", "igp"):
            assert _agree(fab, routing, frozenset(fab.down))  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics(), st.sampled_from(["bgp", "igp"]))
def test_random_fabrics_agree(case: tuple[FabricState, list[int]], routing: Routing) -> None:
    state, dead_list = case
    fab = fabric_of(state)
    _agree(fab, routing, fab.down | {li for li in dead_list if li < len(fab.link_ids)})


def test_small_blocks_give_the_same_matrix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Classes split over several blocks (as at 100,000 GPUs): the same packed matrix."""
    fab = fabric_of(load_state(tmp_path, clos3_intent(4, 3, 2, 4)))  # 12 classes: blocks of 8 and 4
    whole = next_hops.next_hop_matrix(fab, list(fab.classes), True, fab.down)
    monkeypatch.setattr(next_hops, "NEXT_HOP_BUDGET", 1)
    split = next_hops.next_hop_matrix(fab, list(fab.classes), True, fab.down)
    assert whole is not None and split is not None and len(fab.classes) > 8
    assert whole.bits.any() and (whole.bits == split.bits).all()


def test_baseline_sweep_takes_the_quick_path_with_the_full_paths_report(tmp_path: Path) -> None:
    """``sweep(max_failures=0)`` (what ``xoff check`` runs) reports what the full path reports."""
    state, _ = state_of("clos3-planes", tmp_path)
    quick = sweep(state, max_failures=0)
    full = sweep(state, max_failures=0, analyser=partial(analyse, use_certificate=True))  # not the default: full path
    assert "routing" in quick.baseline.timings and "routing" not in full.baseline.timings  # the two paths ran
    assert {**quick.to_json(), "seconds": None} == {**full.to_json(), "seconds": None}


def test_small_slices_and_chunks_count_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Key pairs in slices of a few and row pairs ANDed two at a time: the same result."""
    monkeypatch.setattr(certify, "_PAIRS", 3)
    monkeypatch.setattr(certify, "_PAIR_CHUNK", 2)
    for name in ("clos3-planes", "clos3-mesh", "leaf-spine-4x6", "ring"):
        (tmp_path / name).mkdir()
        fab = fabric_of(state_of(name, tmp_path / name)[0])
        for routing in ("bgp", "igp"):
            _agree(fab, routing, frozenset(fab.down))  # type: ignore[arg-type]


def test_pfc_mismatches_on_fabric_and_host_links_agree(tmp_path: Path) -> None:
    """A fabric link and a host link whose ends disagree on the lossless priorities: the same mismatches."""
    state, _ = state_of("unique-spine-asns", tmp_path)
    devices = dict(state.devices)
    for name, port, prios in (("l0", "to_s0", [3, 4]), ("l1", "to_host", [])):
        dev = devices[name]
        iface = dev.interfaces[port].model_copy(update={"pfc_priorities": prios})
        devices[name] = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    fab = fabric_of(state.model_copy(update={"devices": devices}))
    for routing in ("bgp", "igp"):
        assert _agree(fab, routing, frozenset(fab.down))  # type: ignore[arg-type]
    quick = certified_baseline(fab, "bgp", frozenset(fab.down))
    assert quick is not None
    assert [(m.link.split("--")[0], m.priorities) for m in quick.pfc_mismatches] == [
        ("l0:to_s0", (4,)),
        ("l1:to_host", (3,)),
    ]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_path_sets_built_on_demand_give_the_same_matrix(case: tuple[FabricState, list[int]]) -> None:
    """LazyPathIds (masks at once, sets when needed) against every set built at once (routing_batch's ids)."""
    state, dead_list = case
    fab = fabric_of(state)
    dead = fab.down | {li for li in dead_list if li < len(fab.link_ids)}
    lazy = next_hops.next_hop_matrix(fab, list(fab.classes), True, dead)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(next_hops, "LazyPathIds", routing_batch._PathIds)
        eager = next_hops.next_hop_matrix(fab, list(fab.classes), True, fab.down | dead)
    assert (lazy is None) == (eager is None)
    if lazy is not None and eager is not None:
        assert (lazy.bits == eager.bits).all()
