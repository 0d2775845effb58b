"""The README's shell commands, extracted by one fixed rule, and how the tour tests run them verbatim.

The rule: every line inside a fenced block tagged ``sh``, ``bash`` or ``console``; a ``#`` and what follows it is a
comment and dropped (the README's commands have no ``#`` inside quotes); blank lines are skipped; a leading ``$ ``
prompt is dropped. Each command is then exactly one of: exempt (a reason below), a plain command (no root:
``tests/test_readme.py``) or a lab command (root and namespaces: ``tests/lab/test_readme_lab.py``). A command that
is none of these fails ``test_every_readme_command_is_run_or_exempt``: nothing the README shows is silently left out.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT

README = ROOT / "README.md"
SHELL_TAGS = ("sh", "bash", "console")
_FENCE = re.compile(r"^```\s*([A-Za-z0-9_+-]*)\s*$")

# Commands the tour tests do not run, each with its reason.
EXEMPT = {
    "make demo": "the demo itself: it installs into .venv and brings up a lab (run by hand / CI, not inside pytest)",
    "make test": "the whole test suite, this test among it: running it here would recurse",
    ". .venv/bin/activate": "puts the venv's xoff on PATH; the tests put this checkout's xoff on PATH instead",
}

# The exit status the README promises for a command when it is not 0 (none today: `render --diff` right after
# `render` finds no difference, so it exits 0 as the README says).
EXPECTED_STATUS: dict[str, int] = {}

# Files and directories of the checkout a command may name (copied into the test's working directory, so the
# commands' outputs land in a temporary directory and never in the checkout).
COPIED = ("inventory", "examples", "validators", "playbooks", "templates")


@dataclass(frozen=True)
class Command:
    line: int  # 1-based line of the README
    text: str

    @property
    def words(self) -> list[str]:
        return self.text.split()

    @property
    def touches_lab(self) -> bool:
        """Reaches the lab (root, network namespaces): the `xoff lab` commands that touch namespaces, and every
        command that names a lab by `--lab NAME` / `--ib-lab NAME`. `xoff lab export` only writes a file."""
        if self.words[:2] == ["xoff", "lab"]:
            return self.words[2:3] != ["export"]
        return any(w in ("--lab", "--ib-lab") or w.startswith(("--lab=", "--ib-lab=")) for w in self.words)

    @property
    def outputs(self) -> list[str]:
        """The paths the command names after ``-o``."""
        return [self.words[i + 1] for i, w in enumerate(self.words[:-1]) if w == "-o"]

    @property
    def expected_status(self) -> int:
        return EXPECTED_STATUS.get(self.text, 0)


def readme_commands(text: str | None = None) -> list[Command]:
    """Every shell command of the README (or of ``text``), in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    out: list[Command] = []
    tag: str | None = None  # the open fence's tag; None outside a fence
    for number, raw in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(raw.strip())
        if fence:
            tag = None if tag is not None else fence.group(1).lower()
            continue
        if tag not in SHELL_TAGS:
            continue
        command = raw.split("#", 1)[0].strip()
        command = command.removeprefix("$ ").strip()
        if command:
            out.append(Command(number, command))
    return out


def lab_part(commands: list[Command]) -> list[Command]:
    """The commands that need the lab: those that reach it, and those that read what one of them wrote
    (`validate --snapshot snap.json` after `collect --lab ... -o snap.json`)."""
    out: list[Command] = []
    written: set[str] = set()
    for command in commands:
        if command.text in EXEMPT:
            continue
        if command.touches_lab or written & set(command.words):
            out.append(command)
            written.update(command.outputs)
    return out


def plain_part(commands: list[Command]) -> list[Command]:
    """The `xoff` commands that need no lab (run without root)."""
    lab = lab_part(commands)
    return [c for c in commands if c.words[0] == "xoff" and c not in lab and c.text not in EXEMPT]


def unclassified(commands: list[Command]) -> list[Command]:
    """The commands that are neither exempt nor run by a tour test."""
    run_somewhere = lab_part(commands) + plain_part(commands)
    return [c for c in commands if c.text not in EXEMPT and c not in run_somewhere]


def workdir(tmp: Path) -> Path:
    """A working directory with a copy of what the commands name, and a bin/ whose `xoff` is this checkout's."""
    tmp.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, tmp / name)
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    xoff = bin_dir / "xoff"
    xoff.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m xoff "$@"\n', encoding="utf-8")
    xoff.chmod(xoff.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return tmp


def environment(work: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{work / '.bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


def run(command: Command, work: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """The command exactly as the README writes it, through bash, in ``work``."""
    return subprocess.run(
        ["bash", "-c", command.text],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_all(commands: list[Command], work: Path, env: dict[str, str], timeout: float) -> list[str]:
    """Run every command in order; what went wrong with each (a wrong exit status, an output not written), all
    of them, so one run shows every README command that does not work as written."""
    problems: list[str] = []
    for command in commands:
        proc = run(command, work, env, timeout)
        if proc.returncode != command.expected_status:
            problems.append(failure(command, proc, work))
        problems += [
            f"README.md:{command.line}: `{command.text}` did not write {written}"
            for written in command.outputs
            if not (work / written).exists()
        ]
    return problems


def failure(command: Command, proc: subprocess.CompletedProcess[str], work: Path) -> str:
    tail = (proc.stdout[-1500:] + "\n" + proc.stderr[-1500:]).strip()
    for written in command.outputs:  # a report the command wrote says why it failed
        path = work / written
        if path.is_file() and path.stat().st_size < 1_000_000:
            tail += f"\n--- {written} (end):\n" + path.read_text(encoding="utf-8", errors="replace")[-2500:]
    return f"README.md:{command.line}: `{command.text}` exited {proc.returncode} (expected {command.expected_status})\n{tail}"
