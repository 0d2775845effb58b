"""The cyclic GC is the program's choice, made once at its edge: the library never toggles it (issue 12)."""

from __future__ import annotations

import gc

import pytest

from tests.support.paths import ROOT
from xoff.deadlock.analysis import analyse
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.desired import build_fabric_state
from xoff.gcpause import for_batch_run
from xoff.intent import load_intent
from xoff.validate import run_checks

INVENTORY = ROOT / "inventory"


def test_the_pipeline_leaves_the_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise AssertionError("library code toggled the cyclic GC")

    monkeypatch.setattr(gc, "disable", refuse)
    monkeypatch.setattr(gc, "enable", refuse)
    assert gc.isenabled()
    state = build_fabric_state(load_intent(INVENTORY / "roce-pod"))
    run_checks(state)
    analyse(snapshot_from_fabric(state))
    assert gc.isenabled()


def test_for_batch_run_turns_the_collector_off_for_the_process() -> None:
    assert gc.isenabled()
    try:
        for_batch_run()
        assert not gc.isenabled()
    finally:
        gc.enable()
