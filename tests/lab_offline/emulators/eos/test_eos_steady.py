"""A paste's lines run in one steady window (``EmulatorBase.steady``, as the lab's SSH server runs each read):
the device's files are checked once per window, yet the session sees its own writes at once and every other
session's (and a fault set by a test) from its next read on."""

from __future__ import annotations

from pathlib import Path

from tests.support.eos_cli_helpers import Cli, make_cli
from xoff.lab.emulators.base import SessionFaults


def _paste(cli: Cli, *lines: str) -> list[tuple[str, str]]:
    """Each line's output and the prompt after it, the lines run as the SSH server runs one read."""
    with cli.emu.steady():
        return [(cli.emu.step(line).output, cli.emu.prompt()) for line in lines]


def test_a_paste_sees_its_own_changes_line_by_line(tmp_path: Path) -> None:
    cli = make_cli(tmp_path / "state")
    cli.quiet("enable")
    out = _paste(cli, "configure", "hostname leaf9", "interface Ethernet1/1", "mtu 9000", "end", "show running-config")
    assert [p for _, p in out] == [
        "spine2(config)#",
        "leaf9(config)#",
        "leaf9(config-if-Et1/1)#",
        "leaf9(config-if-Et1/1)#",
        "leaf9#",
        "leaf9#",
    ]
    assert "   mtu 9000\n" in out[-1][0].replace("\r\n", "\n")


def test_the_next_paste_sees_another_sessions_commit(tmp_path: Path) -> None:
    a, b = make_cli(tmp_path / "state"), make_cli(tmp_path / "state")
    a.quiet("enable")
    b.quiet("enable")
    assert _paste(a, "show clock")[-1][1] == "spine2#"
    _paste(b, "configure session other", "hostname leaf7", "commit")
    assert _paste(a, "show hostname")[0][1] == "leaf7#"
    assert "Hostname: leaf7" in _paste(a, "show hostname")[0][0]


def test_a_fault_set_between_reads_takes_the_next_read(tmp_path: Path) -> None:
    state = tmp_path / "state"
    cli = make_cli(state)
    assert _paste(cli, "enable", "configure")[-1][1] == "spine2(config)#"
    SessionFaults(reject_nth=2).save(state)
    out = _paste(cli, "interface Ethernet1/1", "mtu 9000", "exit")
    assert "% Invalid input" in out[1][0], out
    SessionFaults().save(state)
    assert _paste(cli, "interface Ethernet1/1", "mtu 9000")[1][0] == ""
