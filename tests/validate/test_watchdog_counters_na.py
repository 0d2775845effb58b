"""PFC watchdog counters that a device printed N/A (None: not observed) are never judged as 0: a storm count read
is judged, one not read is not, and a fabric where no storm count was read is skipped, saying so."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import Snapshot, WatchdogCounters
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

NA = WatchdogCounters()


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"))


def _with(snap: Snapshot, watchdog: dict[int, WatchdogCounters], everywhere: bool) -> Snapshot:
    """leaf2 Ethernet8's watchdog counters replaced (every port's, with ``everywhere``; the rest N/A)."""
    counters = {
        name: {
            port: c.model_copy(update={"watchdog": watchdog if (name, port) == ("leaf2", "Ethernet8") else NA_ALL})
            if everywhere or (name, port) == ("leaf2", "Ethernet8")
            else c
            for port, c in ports.items()
        }
        for name, ports in snap.counters.items()
    }
    return snap.model_copy(update={"counters": counters})


NA_ALL = {3: NA, 4: NA}
# case -> (leaf2 Ethernet8's watchdog, whether every other port is N/A, status, findings, message fragment)
CASES: dict[str, tuple[dict[int, WatchdogCounters], bool, Status, list[str], str | None]] = {
    "zero storms read": ({3: WatchdogCounters(storms_detected=0, storms_restored=0)}, False, Status.SUCCESS, [], None),
    "a storm read, restored N/A": (
        {3: WatchdogCounters(storms_detected=2)},
        False,
        Status.FAILURE,
        [
            "leaf2: Ethernet8 queue 3 - PFC storm detected by the watchdog - Expected: <= 0 "
            "Actual: 2 storm(s), restored not observed"
        ],
        None,
    ),
    "N/A on one port, read elsewhere": ({3: NA}, False, Status.SUCCESS, [], None),
    "N/A everywhere": (
        NA_ALL,
        True,
        Status.SKIPPED,
        [],
        "not judged on leaf1, leaf2, spine1: no PFC watchdog counters observed",
    ),
    "N/A everywhere but one storm": (
        {3: WatchdogCounters(storms_detected=1, storms_restored=1), 4: NA},
        True,
        Status.FAILURE,
        [
            "leaf2: Ethernet8 queue 3 - PFC storm detected by the watchdog - Expected: <= 0 "
            "Actual: 1 storm(s), 1 restored"
        ],
        "not judged on leaf1, spine1: no PFC watchdog counters observed",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_watchdog_counters_na_are_not_observed(desired: FabricState, case: str) -> None:
    watchdog, everywhere, status, findings, message = CASES[case]
    snap = _with(mirror_snapshot(desired), watchdog, everywhere)
    (result,) = run_checks(desired, ["counters.pfc_storms"], observed=snap)
    assert (result.status, [str(f) for f in result.findings]) == (status, findings), result.message
    assert result.message == message


def test_watchdog_counters_default_to_not_observed() -> None:
    assert (NA.storms_detected, NA.storms_restored) == (None, None)


def test_cumulus_watchdog_without_a_count_is_not_observed() -> None:
    from xoff.platforms.cumulus.counters import parse_watchdog

    text = '{"state": "enabled", "status": {"3": {"status": "OK"}, "4": {"status": "DEADLOCK", "deadlock-count": 3}}}'
    watchdog, _ = parse_watchdog(text)
    assert watchdog == {3: NA, 4: WatchdogCounters(storms_detected=3, storms_restored=2)}
