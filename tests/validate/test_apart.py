"""Slow whole-fabric checks (``Check.apart``: deadlock.cbd) run in a forked child on a large fabric: the same results,
in catalog order, as one process gives; a child that dies costs the check nothing (it runs in the parent)."""

from __future__ import annotations

import os
from dataclasses import asdict

import pytest

from tests.deadlock.routing.deadlock_fabrics import hand_built
from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.validate.apart import MAX_LINKS, MIN_LINKS, Apart, cpu_times, spare_cores, worthwhile
from xoff.validate.catalog import load_catalog
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import CheckResult, Severity, Status
from xoff.validate.run import _may_run, validate
from xoff.validate.select import Selection


def _ring() -> FabricState:
    """Five leaves in a ring, each with its own ASN and a host: eBGP forwards both ways round, a CBD."""
    return hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)},
        [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)],
        [f"r{i}" for i in range(5)],
    )


def _results(state: FabricState, apart: bool) -> list[dict[str, object]]:
    return [asdict(r) for r in validate(state, load_catalog("default"), apart=apart).results]


def test_a_check_run_apart_gives_the_results_of_one_process_in_catalog_order() -> None:
    for state in (_ring(), build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))):
        together, apart = _results(state, apart=False), _results(state, apart=True)
        assert apart == together
    cbd = next(r for r in together if r["id"] == "deadlock.cbd")  # the ring's CBD came back from the child
    assert cbd["status"] is Status.SUCCESS  # lab-mini is sound
    ring = next(r for r in _results(_ring(), apart=True) if r["id"] == "deadlock.cbd")
    assert ring["status"] is Status.FAILURE and ring["findings"]


def test_a_child_that_dies_leaves_the_check_to_the_parent() -> None:
    parent = os.getpid()

    def run(check_id: str) -> CheckResult:
        if os.getpid() != parent:
            os._exit(3)  # the child dies before it answers
        return CheckResult(check_id, "ran in the parent", Severity.ERROR, Status.SUCCESS)

    away = Apart(run, ["deadlock.cbd"])
    try:
        assert away.ids == {"deadlock.cbd"}
        result = away.result("deadlock.cbd")
    finally:
        away.close()
    assert (result.title, result.status) == ("ran in the parent", Status.SUCCESS)


def test_neither_a_small_nor_a_very_large_fabric_is_worth_a_fork() -> None:
    assert not worthwhile(MIN_LINKS - 1)
    assert not worthwhile(0)
    assert not worthwhile(MAX_LINKS + 1)  # larger than any fabric measured (the 100,000-GPU one: 304,800 links)


def test_no_fork_for_a_slow_check_that_will_skip() -> None:
    """On a snapshot without FIBs deadlock.cbd is skipped: forking the rest away would only cost the fork."""
    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    catalog = load_catalog("default")
    assert _may_run(catalog, "deadlock.cbd", state, None, Selection())
    assert not _may_run(catalog, "deadlock.cbd", state, mirror_snapshot(state, fib=False), Selection())
    assert _may_run(catalog, "deadlock.cbd", state, mirror_snapshot(state, fib=True), Selection())


def test_a_core_is_spare_by_what_the_machine_did_while_the_intent_was_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window between two /proc/stat readings, not the minute's load average: on 2 CPUs, our plan alone on
    one (half the ticks busy) leaves one spare; another job beside it leaves none; too short or unknown: none."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    start = (1_000, 5_000)
    assert spare_cores(start, (1_000 + 300, 5_000 + 600)) == pytest.approx(1.0)  # 3 s: we were the only one busy
    assert spare_cores(start, (1_000 + 570, 5_000 + 600)) == pytest.approx(0.1)  # both CPUs busy: no fork
    assert spare_cores(start, (1_000 + 10, 5_000 + 20)) == 0.0  # 0.1 s: too short to say
    assert spare_cores(None, (1, 2)) == 0.0
    assert spare_cores(start, None) == 0.0
    monkeypatch.setattr(os, "getloadavg", lambda: (1.8, 1.0, 1.0))  # a window over a minute: the load average
    assert spare_cores(start, (1_000 + 6_000, 5_000 + 13_000)) == pytest.approx(0.2)


def test_cpu_times_reads_this_machine() -> None:
    first = cpu_times()
    assert first is not None and 0 <= first[0] <= first[1]
