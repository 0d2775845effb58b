"""The bash-like shell both the SONiC and the Cumulus emulator put in front of their CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from xoff.lab.emulators import lldpctl, shell
from xoff.lab.emulators.base import Reply


def _shell(tmp_path: Path, ran: list[list[str]]) -> shell.Shell:
    def run(argv: list[str]) -> tuple[Reply, bool]:
        ran.append(argv)
        if argv[:1] == ["false"]:
            return Reply("", 1), False
        if argv[:1] == ["exit"]:
            return Reply(), True
        if argv[:1] == ["cat"]:
            return shell.cat(argv[1:], lambda n: tmp_path / n), False
        return shell.echo(argv[1:]) if argv[:1] == ["echo"] else Reply(f"{argv}\n"), False

    return shell.Shell(run, lambda n: tmp_path / n, lambda argv: argv == ["cat"])


def test_operators_quotes_and_filters(tmp_path: Path) -> None:
    ran: list[list[str]] = []
    sh = _shell(tmp_path, ran)
    assert sh.input("false && echo no; false || echo 'a  b' | grep a").output == "a  b\n"
    assert ran == [["false"], ["false"], ["echo", "a  b"]]
    assert sh.input("echo 'open").status == 2
    assert sh.input("echo a; exit; echo b") == Reply("a\n", 0, close=True)


def test_redirections_and_heredocs(tmp_path: Path) -> None:
    sh = _shell(tmp_path, [])
    sh.input("echo one > f.txt")
    sh.input("echo two >> f.txt")
    assert (tmp_path / "f.txt").read_text() == "one\ntwo\n"
    sh.input("cat > g.txt <<EOF")
    assert sh.in_heredoc
    sh.input("x\ny\nEOF")
    assert not sh.in_heredoc and (tmp_path / "g.txt").read_text() == "x\ny\n"
    assert sh.input("cat -A > h.txt <<EOF").output == shell.ONLY_CAT_HEREDOC
    assert shell.filter_output(["tail", "-1"], Reply("a\nb\n")).output == "b\n"
    assert shell.filter_output(["sort"], Reply("a\n")).status == 127


def test_lldpctl_command_line() -> None:
    """What both emulators pass on to lldpd's client, and getopt's line for an option lldpctl does not take."""
    assert lldpctl.parse_args(["-f", "json", "swp1", "swp2"]) == (["-f", "json"], ["swp1", "swp2"])
    assert lldpctl.parse_args([]) == ([], [])
    with pytest.raises(lldpctl.LldpctlUsageError, match=r"^lldpctl: invalid option -- 'x'\n$"):
        lldpctl.parse_args(["swp1", "-x"])
