"""Exactness harness of the failure sweep: every case's report (levels, risky scenarios, their cycles,
witnesses and bounces) equals the one recorded from the sweep at commit 741a0bc, before the sweep was made
faster (tests/fixtures/deadlock_sweep/README.md), for both routing models, up to double failures, with
one process and with a pool of two workers.

XOFF_UPDATE_SWEEP=1 rewrites the recorded files (only ever from the reference commit's code)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sweep_cases import NAMES, exact, state_of

from tests.support.paths import ROOT
from xoff.deadlock.failures import sweep

RECORDED = ROOT / "tests" / "fixtures" / "deadlock_sweep"


# cases with risky single failures, risky baselines and static routes: the pool's merge is seen at work
POOLED = ["clos3-planes", "ring", "static-bounce", "unique-spine-asns", "random-5", "random-9", "random-11"]


@pytest.mark.parametrize("routing", ["bgp", "igp"])
@pytest.mark.parametrize(("name", "workers"), [*((n, 1) for n in NAMES), *((n, 2) for n in POOLED)], ids=str)
def test_sweep_matches_the_recorded_reference(tmp_path: Path, name: str, workers: int, routing: str) -> None:
    state, statics = state_of(name, tmp_path)
    path = RECORDED / f"{name}.{routing}.json"
    pool = {"workers": workers} if workers > 1 else {}  # the recording sweep (741a0bc) had no pool
    report = sweep(state, routing=routing, max_failures=2, static_routes=statics, **pool)  # type: ignore[arg-type]
    got = exact(report)
    if os.environ.get("XOFF_UPDATE_SWEEP"):
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert got == json.loads(path.read_text(encoding="utf-8"))
