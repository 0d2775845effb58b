"""counters.ecn_before_pfc, table-driven: success, failure and skipped on a snapshot of the minimal fabric."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import PfcCounters, PortCounters, QueueCounters, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _port(snap: Snapshot, port: str, *, pause: int, marked: int | None) -> Snapshot:
    counters = PortCounters(pfc=PfcCounters(tx_pause={3: pause}), queues={3: QueueCounters(ecn_marked_packets=marked)})
    return snap.model_copy(update={"counters": {**snap.counters, "leaf1": {**snap.counters["leaf1"], port: counters}}})


def _no_ecn(snap: Snapshot) -> Snapshot:
    counters = {
        d: {p: c.model_copy(update={"queues": {q: QueueCounters() for q in c.queues}}) for p, c in ports.items()}
        for d, ports in snap.counters.items()
    }
    return snap.model_copy(update={"counters": counters})


def _no_pause(snap: Snapshot) -> Snapshot:
    counters = {
        d: {p: c.model_copy(update={"pfc": PfcCounters()}) for p, c in ports.items()}
        for d, ports in snap.counters.items()
    }
    return snap.model_copy(update={"counters": counters})


SKIPPED = "no device showed both ECN-marked counters and PFC pause frames sent for a lossless queue"
Seed = Callable[[Snapshot], Snapshot]
CASES: list[tuple[str, Seed, Status, str | None]] = [
    ("idle fabric: nothing paused", lambda s: s, Status.SUCCESS, None),
    ("paused and marked", lambda s: _port(s, "Ethernet0", pause=900, marked=12000), Status.SUCCESS, None),
    (
        "marked on another port of the switch than the one that paused",
        lambda s: _port(_port(s, "Ethernet0", pause=900, marked=0), "Ethernet8", pause=0, marked=40),
        Status.SUCCESS,
        None,
    ),
    (
        "paused, nothing marked",
        lambda s: _port(s, "Ethernet0", pause=900, marked=0),
        Status.FAILURE,
        "leaf1: queue 3 (priority 3) - PFC pause sent but ECN marked no packet - Expected: ECN-marked packets > 0 "
        "before PFC pauses Actual: 0 marked; 900 pause frames sent on Ethernet0",
    ),
    (
        "paused, ECN-marked counter '-' on every port (not observed): not judged",
        lambda s: _port(_no_ecn(s), "Ethernet0", pause=900, marked=None),
        Status.SKIPPED,
        None,
    ),
    (
        "ECN-marked 0, PFC pause frames not printed on any port (not observed, never 0): not judged",
        _no_pause,
        Status.SKIPPED,
        None,
    ),
]


@pytest.mark.parametrize(("what", "seed", "status", "first"), CASES, ids=[c[0] for c in CASES])
def test_ecn_before_pfc(what: str, seed: Seed, status: Status, first: str | None, desired: FabricState) -> None:
    (result,) = run_checks(desired, ["counters.ecn_before_pfc"], observed=seed(mirror_snapshot(desired)))
    assert result.status is status, (what, result.message)
    assert [str(f) for f in result.findings[:1]] == ([first] if first else [])
    if status is Status.SKIPPED:
        assert result.message == SKIPPED
