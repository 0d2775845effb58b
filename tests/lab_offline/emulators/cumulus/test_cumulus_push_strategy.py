"""The Cumulus push strategy (xoff.platforms.cumulus.apply) against the NVUE emulator: factory -> rendered
state, a second push with 0 changes, a refused line and a refused apply rolled back to the backup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cumulus_emu import FakeClock, rendered, session

from xoff.contracts.apply import ApplyError
from xoff.lab.emulators.base import SessionFaults
from xoff.lab.emulators.cumulus import Emulator
from xoff.platforms.cumulus.apply import Strategy
from xoff.platforms.registry import get_platform, strategy_for


class EmulatorSession:
    """The netmiko calls a strategy makes, answered by one emulator session (exec-style line ends)."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> str:
        return self.emulator.step(command_string).output.rstrip("\n")

    def send_command_timing(self, command_string: str, *args: Any, **kwargs: Any) -> str:
        return self.send_command(command_string)

    def send_config_set(self, config_commands: Any = None, *args: Any, **kwargs: Any) -> str:
        return "".join(self.emulator.step(line).output for line in config_commands)

    def enable(self, *args: Any, **kwargs: Any) -> str:
        return ""

    def put_file(self, path: str, text: str) -> None:
        self.emulator.path(path).write_text(text, encoding="utf-8")


def _push(
    state_dir: Path, clock: FakeClock | None = None, confirm: bool = True
) -> tuple[Strategy, EmulatorSession, str, int]:
    strategy = strategy_for("cumulus", "t1")
    assert isinstance(strategy, Strategy)
    conn = EmulatorSession(session(state_dir, clock=clock))
    backup = strategy.backup(conn)
    change = strategy.diff(backup, rendered())
    if not change.empty:
        strategy.apply(conn, change, rendered())
        if confirm:
            strategy.confirm(conn)
    return strategy, conn, backup, change.count


def _revisions(conn: EmulatorSession) -> dict[str, str]:
    return {k: v["state"] for k, v in json.loads(conn.send_command("nv config revision -o json")).items()}


def test_capabilities_are_declared() -> None:
    caps = get_platform("cumulus").capabilities
    assert caps is not None
    assert (caps.atomic_replace, caps.commit_confirm, caps.rollback, caps.on_box_diff) == (True, True, True, True)
    assert "--confirm 300s" in caps.apply_means and "--confirm-no" in caps.undo_means


def test_factory_to_desired_then_nothing(tmp_path: Path) -> None:
    strategy, conn, backup, count = _push(tmp_path)
    assert backup == "nv set system hostname cumulus"
    assert count == len([ln for ln in rendered()["nvue-commands.txt"].splitlines() if ln.startswith("nv set")])
    assert strategy.verify(conn, rendered()) == []
    _, _, _, again = _push(tmp_path)
    assert again == 0  # a second push changes nothing and sends nothing


def test_replace_removes_what_is_not_rendered(tmp_path: Path) -> None:
    _push(tmp_path)
    emu = session(tmp_path)
    emu.step("nv set interface swp9 link mtu 1500")
    emu.step("nv config apply -y")
    strategy = Strategy("t2")
    change = strategy.diff(strategy.backup(EmulatorSession(emu)), rendered())
    assert change.lines == ["nv unset interface swp9"]


def test_refused_line_rolls_back_to_the_backup(tmp_path: Path) -> None:
    _push(tmp_path)
    session(tmp_path).step("nv set interface swp9 link mtu 1500")  # a stale pending edit of someone's session
    emu = session(tmp_path)
    emu.step("nv unset qos pfc-watchdog")
    emu.step("nv config apply -y")
    SessionFaults(reject_nth=2).save(tmp_path)
    strategy = Strategy("t3")
    conn = EmulatorSession(session(tmp_path))
    backup = strategy.backup(conn)
    change = strategy.diff(backup, rendered())
    with pytest.raises(ApplyError, match="rejected by the lab's fault hook"):
        strategy.apply(conn, change, rendered())
    strategy.rollback(conn, backup)
    assert strategy.verify_rollback(conn, backup) == []
    assert session(tmp_path).step("nv config diff").output == ""  # nothing left pending


def test_apply_after_success_is_undone_by_the_previous_revision(tmp_path: Path) -> None:
    strategy, conn, backup, _ = _push(tmp_path)
    assert strategy.applied and strategy.previous == 1
    strategy.rollback(conn, backup)
    assert strategy.verify_rollback(conn, backup) == []
    assert conn.send_command("nv config history").splitlines()[-1].split()[:2] == ["rev_1_apply_2", "1"]


def test_apply_is_on_trial_until_confirmed(tmp_path: Path) -> None:
    clock = FakeClock()
    strategy, conn, _, _ = _push(tmp_path, clock, confirm=False)
    assert _revisions(conn)["2"] == "confirm"
    assert "300 seconds left" in conn.send_command("nv config apply --confirm-status")
    assert strategy.verify(conn, rendered()) == []
    strategy.confirm(conn)
    clock.now += 3600
    assert _revisions(conn)["2"] == "applied"
    assert strategy.verify(conn, rendered()) == [], "kept after the timer"


def test_lost_controller_leaves_nvue_to_roll_back_by_itself(tmp_path: Path) -> None:
    """The session is dropped after the apply and nobody comes back: the timer puts the backup back."""
    clock = FakeClock()
    _, conn, backup, _ = _push(tmp_path, clock, confirm=False)
    del conn  # the controller is gone: no verify, no confirm, no rollback
    clock.now += 301
    later = EmulatorSession(session(tmp_path, clock=clock))
    assert later.send_command("nv config show -o commands") == backup
    assert _revisions(later)["2"] == "confirm_no"


def test_rollback_during_the_trial_says_confirm_no(tmp_path: Path) -> None:
    strategy, conn, backup, _ = _push(tmp_path, FakeClock(), confirm=False)
    strategy.rollback(conn, backup)
    assert strategy.verify_rollback(conn, backup) == []
    assert "--confirm-no" in conn.send_command("nv config history").splitlines()[-1]
    assert conn.send_command("nv config apply --confirm-status") == "No apply is waiting for confirmation"


def test_confirm_after_the_timer_lapsed_fails_and_the_rollback_finds_it_done(tmp_path: Path) -> None:
    clock = FakeClock()
    strategy, conn, backup, _ = _push(tmp_path, clock, confirm=False)
    clock.now += 301  # verify took too long
    with pytest.raises(ApplyError, match="No apply is waiting for confirmation"):
        strategy.confirm(conn)
    strategy.rollback(conn, backup)
    assert strategy.verify_rollback(conn, backup) == []
