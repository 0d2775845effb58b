"""Configuration sessions (commit, abort, commit timer with rollback), saving, persistence, faults."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import Cli, FakeClock, make_cli
from tests.support.waiting import SETTLE_S
from xoff.lab.emulators.base import SessionFaults

MTU = "show running-config | include mtu"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cli(tmp_path: Path, clock: FakeClock) -> Cli:
    c = make_cli(tmp_path / "state", clock=clock)
    c.quiet("enable", "configure", "interface Ethernet1/1", "mtu 9100", "end")
    return c


def _edit_in_session(cli: Cli, name: str, mtu: int) -> None:
    cli.quiet(f"configure session {name}", "interface Ethernet1/1", f"mtu {mtu}")


def test_commit_applies_the_session(cli: Cli) -> None:
    _edit_in_session(cli, "s1", 9000)
    assert cli.run(MTU) == "   mtu 9100\n", "nothing changes before commit"
    diffs = cli.run("show session-config diffs")
    assert diffs.splitlines()[:2] == ["--- system:/running-config", "+++ session:/s1-session-config"]
    assert "-   mtu 9100" in diffs.splitlines() and "+   mtu 9000" in diffs.splitlines()
    cli.quiet("commit")
    assert cli.prompt == "spine2#"
    assert cli.run(MTU) == "   mtu 9000\n"
    assert "s1                     completed" in cli.run("show configuration sessions")
    assert cli.run("configure session s1") == "% Cannot enter session s1 (session has already been completed)\n"


def test_abort_discards_the_session(cli: Cli) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("abort")
    assert cli.prompt == "spine2#"
    assert cli.run(MTU) == "   mtu 9100\n"
    assert "s1" not in cli.run("show configuration sessions")


def test_a_left_session_stays_pending_and_can_be_resumed(cli: Cli, tmp_path: Path, clock: FakeClock) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("end")
    assert "s1                     pending" in cli.run("show configuration sessions")
    other = make_cli(tmp_path / "state", clock=clock)  # another SSH session of the same device
    other.quiet("enable", "configure session s1")
    assert "+   mtu 9000" in other.run("show session-config diffs")
    other.quiet("commit")
    assert cli.run(MTU) == "   mtu 9000\n"
    assert cli.run("show session-config named s1").startswith("! Command: show session-config")


def test_no_diffs_when_nothing_changed(cli: Cli) -> None:
    cli.quiet("configure session s1", "interface Ethernet1/1", "mtu 9100")
    assert cli.run("show session-config diffs") == ""
    cli.quiet("abort")


def test_commit_timer_rolls_back_when_not_confirmed(cli: Cli, clock: FakeClock) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("commit timer 00:05:00")
    assert cli.prompt == "spine2#"
    assert cli.run(MTU) == "   mtu 9000\n", "committed at once"
    detail = cli.run("show configuration sessions detail")
    assert "Session with pending commit timer: s1" in detail
    assert "Time left until commit timer expiry: in 0:05:00" in detail
    clock.now += 299
    assert cli.run(MTU) == "   mtu 9000\n"
    clock.now += 2  # the deadline passes: the next command finds it and rolls back first
    assert cli.run(MTU) == "   mtu 9100\n"
    assert "s1" not in cli.run("show configuration sessions")
    assert cli.run("configure session s1 commit") == "% Session s1 does not exist\n"


def test_commit_timer_confirmed_in_time_is_kept(cli: Cli, clock: FakeClock, tmp_path: Path) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("commit timer 00:01:00")
    clock.now += 30
    other = make_cli(tmp_path / "state", clock=clock)  # confirmed from a new SSH session
    other.quiet("enable", "configure session s1 commit")
    clock.now += 3600
    assert cli.run(MTU) == "   mtu 9000\n"
    assert "s1                     completed" in cli.run("show configuration sessions")


def test_abort_during_commit_timer_rolls_back_at_once(cli: Cli) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("commit timer 01:00:00", "configure session s1 abort")
    assert cli.run(MTU) == "   mtu 9100\n"


def test_only_one_commit_timer_at_a_time(cli: Cli) -> None:
    _edit_in_session(cli, "s1", 9000)
    cli.quiet("commit timer 00:10:00")
    _edit_in_session(cli, "s2", 9050)
    assert cli.run("commit timer 00:10:00") == "% Session s1 has a pending commit timer; commit or abort it first\n"
    cli.quiet("abort")


def test_commit_timer_rolls_back_with_nobody_connected(tmp_path: Path) -> None:
    """The real clock and the emulator's timer thread: no command is typed after the commit."""
    c = make_cli(tmp_path / "state")
    c.quiet("enable", "configure", "hostname before", "end")
    c.quiet("configure session s1", "hostname after", "commit timer 00:00:02")
    running = tmp_path / "state" / "running-config"
    assert "hostname after" in running.read_text(encoding="utf-8")
    deadline = time.monotonic() + SETTLE_S
    while "hostname after" in running.read_text(encoding="utf-8") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "hostname before" in running.read_text(encoding="utf-8")


def test_rollback_clean_config_then_commit_replaces_everything(cli: Cli) -> None:
    """Ansible's ``replace: config``: a session from the factory configuration, the new lines, commit."""
    cli.quiet("configure", "interface Loopback0", "ip address 198.18.255.2/32", "end")
    cli.quiet(
        "configure session s1",
        "rollback clean-config",
        "hostname spine2",
        "interface Ethernet1/1",
        "mtu 9200",
        "commit",
    )
    shown = cli.run("show running-config")
    assert "Loopback0" not in shown
    assert "   mtu 9200" in shown


def test_pending_sessions_are_limited(cli: Cli) -> None:
    for n in range(5):
        cli.quiet(f"configure session p{n}", "end")
    assert cli.run("configure session p5").startswith("% Maximum number of pending sessions has been reached")


def test_sessions_refuse_invalid_lines_too(cli: Cli) -> None:
    _edit_in_session(cli, "s1", 9000)
    assert cli.run("mtu 99999") == "% Invalid input\n"
    assert cli.prompt == "spine2(config-s-s1-if-Et1/1)#"
    cli.quiet("commit")
    assert cli.run(MTU) == "   mtu 9000\n"


def test_write_memory_and_boot_from_startup(cli: Cli, tmp_path: Path, clock: FakeClock) -> None:
    assert cli.run("copy running-config startup-config") == "Copy completed successfully.\n"
    cli.quiet("configure", "interface Ethernet1/1", "mtu 9000", "end")
    state = tmp_path / "state"
    assert (state / "startup-config").read_text(encoding="utf-8").count("mtu 9100") == 1
    (state / "running-config").unlink()  # a reload: the device boots from its startup-config
    rebooted = make_cli(state, clock=clock)
    rebooted.quiet("enable")
    assert rebooted.run(MTU) == "   mtu 9100\n"


def test_reject_nth_fault(cli: Cli, tmp_path: Path) -> None:
    """The Nth configuration statement of a session is refused; mode and show commands do not count."""
    state = tmp_path / "state"
    SessionFaults(reject_nth=2).save(state)
    c = make_cli(state)
    c.quiet("enable", "configure", "show running-config | include zzz")  # neither counts
    assert c.run("interface Ethernet2/1") == ""  # 1st
    assert c.run("description refused") == "% Invalid input\n"  # 2nd: the fault
    assert c.run("mtu 9000") == ""  # 3rd
    c.quiet("end")
    assert c.run("show running-config | section Ethernet2/1") == "interface Ethernet2/1\n   mtu 9000\n"


def test_drop_after_fault(tmp_path: Path) -> None:
    state = tmp_path / "state"
    SessionFaults(drop_after=2).save(state)
    c = make_cli(state)
    assert not c.emu.step("enable").close
    assert not c.emu.step("show version").close
    assert c.emu.step("show version").close


def test_exec_request_runs_privileged(tmp_path: Path) -> None:
    c = make_cli(tmp_path / "state")
    reply = c.emu.execute("show running-config | include hostname")
    assert reply.output == "hostname spine2\r\n"


def test_a_session_left_by_a_dropped_connection_keeps_its_lines(cli: Cli, tmp_path: Path, clock: FakeClock) -> None:
    """Lines typed into a session reach sessions.json when the SSH session ends, even without ``end``
    (a dropped connection: the SSH server closes the emulator), and not on every line."""
    state = tmp_path / "state"
    cli.quiet("configure session s1", "interface Ethernet1/1")
    before = (state / "sessions.json").read_text(encoding="utf-8")
    cli.quiet("mtu 9000", "description typed")
    assert (state / "sessions.json").read_text(encoding="utf-8") == before, "not rewritten per line"
    cli.emu.close()
    other = make_cli(state, clock=clock)
    other.quiet("enable", "configure session s1")
    diffs = other.run("show session-config diffs")
    assert "+   mtu 9000" in diffs and "+   description typed" in diffs
