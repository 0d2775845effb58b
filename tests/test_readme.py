"""The README's tour runs as written: every command that needs no lab, verbatim and in order, with the exit
status the README promises (the lab commands: tests/lab/test_readme_lab.py; the rule and the exemptions:
tests/support/readme.py). `make demo` and `make test` are exempt: the demo installs into .venv and brings up a lab
of its own, and `make test` is the suite this test belongs to."""

from __future__ import annotations

from pathlib import Path

from tests.support.readme import (
    EXEMPT,
    Command,
    environment,
    lab_part,
    plain_part,
    readme_commands,
    run_all,
    unclassified,
    workdir,
)

COMMAND_TIMEOUT_S = 900.0  # a guard against a hung command, not a pace: the slowest takes seconds


def test_every_readme_command_is_run_or_exempt() -> None:
    commands = readme_commands()
    assert commands, "no shell command found in README.md"
    left_out = unclassified(commands)
    assert not left_out, "README commands neither run nor exempt: " + "; ".join(
        f"README.md:{c.line}: {c.text}" for c in left_out
    )
    shown = {c.text for c in commands}
    stale = sorted(set(EXEMPT) - shown)
    assert not stale, f"exemptions for commands the README no longer shows: {stale}"
    assert plain_part(commands) and lab_part(commands)


def test_the_rule_reads_shell_blocks_only_and_drops_comments() -> None:
    text = (
        "intro\n```sh\nxoff check x   # a comment\n            # a continued comment\n\n$ xoff plan x\n```\n"
        "```\nintent.yaml:3:1: not a command\n```\n```python\nprint('no')\n```\n"
        "```console\nxoff lab up x --remap\nxoff collect x --lab l -o s.json\nxoff validate x --snapshot s.json\n"
        "xoff lab export x -o y\n```\n"
    )
    commands = readme_commands(text)
    assert [(c.line, c.text) for c in commands] == [
        (3, "xoff check x"),
        (6, "xoff plan x"),
        (15, "xoff lab up x --remap"),
        (16, "xoff collect x --lab l -o s.json"),
        (17, "xoff validate x --snapshot s.json"),
        (18, "xoff lab export x -o y"),
    ]
    assert [c.line for c in lab_part(commands)] == [15, 16, 17]
    assert [c.line for c in plain_part(commands)] == [3, 6, 18]
    assert unclassified([Command(1, "rm -rf /")]) == [Command(1, "rm -rf /")]


def test_readme_tour_without_the_lab_runs_verbatim(tmp_path: Path) -> None:
    commands = plain_part(readme_commands())
    assert commands
    work = workdir(tmp_path)
    problems = run_all(commands, work, environment(work), COMMAND_TIMEOUT_S)
    assert not problems, "\n\n".join(problems)
