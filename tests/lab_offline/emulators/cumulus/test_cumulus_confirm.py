"""NVUE's commit-confirm in the emulator: ``nv config apply --confirm <time>`` on trial, confirmed with
``--confirm-yes``, rolled back by ``--confirm-no`` or by the clock (also with nobody connected, and
after the session that started it is gone), and what NVUE refuses around it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from cumulus_emu import FakeClock, session

from tests.support.waiting import SETTLE_S
from xoff.lab.emulators.cumulus import Emulator

MTU = "nv config show -o commands"


def _ok(emu: Emulator, line: str) -> str:
    reply = emu.step(line)
    assert reply.status == 0, (line, reply.output)
    return reply.output


def _mtu(emu: Emulator) -> str:
    return next((ln for ln in _ok(emu, MTU).splitlines() if "swp1 link mtu" in ln), "none")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def emu(tmp_path: Path, clock: FakeClock) -> Emulator:
    """swp1 at MTU 9000 applied (revision 2), then MTU 1500 pending."""
    e = session(tmp_path, clock=clock)
    _ok(e, "nv set interface swp1 link mtu 9000")
    assert _ok(e, "nv config apply -y") == "applied [rev_id: 2]\n"
    _ok(e, "nv set interface swp1 link mtu 1500")
    return e


def _states(emu: Emulator) -> dict[str, str]:
    return {k: v["state"] for k, v in json.loads(_ok(emu, "nv config revision -o json")).items()}


def test_trial_is_applied_at_once_and_shows_as_confirm(emu: Emulator) -> None:
    assert _ok(emu, "nv config apply --confirm 300s -y") == "applied [rev_id: 3]\n"
    assert _mtu(emu) == "nv set interface swp1 link mtu 1500"
    assert _states(emu)["3"] == "confirm"
    rows = [ln.split()[:2] for ln in _ok(emu, "nv config revision").splitlines()[2:]]
    assert rows == [["1", "superseded"], ["2", "superseded"], ["3", "confirm"]]
    status = _ok(emu, "nv config apply --confirm-status")
    assert status.startswith("rev_id 3 is waiting for confirmation: 300 seconds left before rollback to rev_id 2")
    assert _ok(emu, "nv config history").splitlines()[-1].split()[:2] == ["rev_3_apply_1", "3"]


def test_rolled_back_by_the_clock_when_not_confirmed(emu: Emulator, clock: FakeClock, tmp_path: Path) -> None:
    _ok(emu, "nv config apply --confirm 5m -y")
    clock.now += 299
    assert _mtu(emu) == "nv set interface swp1 link mtu 1500"
    clock.now += 2  # the deadline passed: the next command finds it and rolls back first
    assert _mtu(emu) == "nv set interface swp1 link mtu 9000"
    assert _states(emu)["3"] == "confirm_no" and _states(emu)["2"] == "applied"
    last = _ok(emu, "nv config history").splitlines()[-1]
    assert last.split()[:2] == ["rev_2_apply_2", "2"] and "confirm time expired" in last
    assert _ok(emu, "nv config apply --confirm-status") == "No apply is waiting for confirmation\n"
    reply = emu.step("nv config apply --confirm-yes")
    assert (reply.status, reply.output) == (1, "Error: No apply is waiting for confirmation\n")
    assert "mtu 9000" in _ok(emu, "nv config show -r startup -o commands"), "startup kept the confirmed one"


def test_confirmed_in_time_from_another_session_is_kept(emu: Emulator, clock: FakeClock, tmp_path: Path) -> None:
    _ok(emu, "nv config apply --confirm 60 -y")  # a bare number is minutes
    assert "3600 seconds left" in _ok(emu, "nv config apply --confirm-status")
    assert "mtu 1500" not in _ok(emu, "nv config show -r startup -o commands"), "not saved during the trial"
    clock.now += 1800
    other = session(tmp_path, clock=clock)  # a new SSH session: the trial is the switch's, not the session's
    assert _ok(other, "nv config apply 3 --confirm-yes") == "confirmed [rev_id: 3]\n"
    clock.now += 7200
    assert _mtu(emu) == "nv set interface swp1 link mtu 1500"
    assert _states(emu)["3"] == "applied"
    assert "mtu 1500" in _ok(emu, "nv config show -r startup -o commands"), "auto-save on confirmation"


def test_confirm_no_rolls_back_at_once(emu: Emulator) -> None:
    _ok(emu, "nv config apply --confirm 1h -y")
    assert _ok(emu, "nv config apply --confirm-no") == "applied [rev_id: 2]\n"
    assert _mtu(emu) == "nv set interface swp1 link mtu 9000"
    assert _ok(emu, "nv config apply --confirm-status") == "No apply is waiting for confirmation\n"


def test_refused_while_a_trial_runs_and_bad_options(emu: Emulator) -> None:
    _ok(emu, "nv config apply --confirm 10m -y")
    _ok(emu, "nv set interface swp1 link mtu 9100")
    for line in ("nv config apply -y", "nv config apply 2 -y", "nv config apply --confirm 10m -y"):
        reply = emu.step(line)
        assert reply.status == 1 and reply.output.startswith("Error: rev_id 3 is applied and waiting"), line
    reply = emu.step("nv config apply 2 --confirm-yes")
    assert reply.output == "Error: rev_id 2 is not waiting for confirmation (rev_id 3 is)\n"
    assert emu.step("nv config apply --confirm-yes --confirm-no").output.startswith("Error: --confirm-yes and")
    _ok(emu, "nv config apply --confirm-no")
    refused = {
        "0s": "Error: Invalid confirm time: 0s (allowed: 1s to 7d)\n",
        "8d": "Error: Invalid confirm time: 8d (allowed: 1s to 7d)\n",
        "10x": "Error: Invalid revision: 10x\n",  # no time, so the revision to apply
    }
    for bad, why in refused.items():
        reply = emu.step(f"nv config apply --confirm {bad} -y")
        assert (reply.status, reply.output) == (1, why), bad
    assert _mtu(emu) == "nv set interface swp1 link mtu 9000", "nothing applied"


def test_default_is_ten_minutes(emu: Emulator) -> None:
    _ok(emu, "nv config apply --confirm -y")
    assert "600 seconds left" in _ok(emu, "nv config apply --confirm-status")
    _ok(emu, "nv config apply --confirm-yes")


def test_rolled_back_with_nobody_connected(tmp_path: Path) -> None:
    """The real clock and the emulator's timer thread: the session is gone and nothing is typed."""
    e = session(tmp_path)
    _ok(e, "nv set system hostname before")
    _ok(e, "nv config apply -y")
    _ok(e, "nv set system hostname after")
    _ok(e, "nv config apply --confirm 1s -y")
    e.close()
    del e
    state = tmp_path / "nvue.json"
    deadline = time.monotonic() + SETTLE_S
    while json.loads(state.read_text(encoding="utf-8"))["confirm"] is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    data = json.loads(state.read_text(encoding="utf-8"))
    assert data["confirm"] is None and data["applied"] == 2
    assert data["revisions"]["2"]["tree"]["system"]["hostname"] == "before"
