"""The README's lab tour runs as written: every command that reaches a lab (or reads what one wrote), verbatim
and in order, with the exit status the README promises (the rule and the exemptions: tests/support/readme.py; the
commands that need no lab: tests/test_readme.py).

The labs live under a labs root of this test's own (XOFF_LAB_DIR), so the README's `xoff lab status` and
`xoff lab down` without `--name` mean this test's lab, never another test's. Whatever the README brought up is
taken down at the end even when a command failed."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.readme import environment, lab_part, readme_commands, run_all, workdir
from xoff.lab import names, netns
from xoff.lab.lab import LabError, labs
from xoff.lab.teardown import down

pytestmark = [pytest.mark.lab, pytest.mark.exclusive]  # the README's lab runs at lab-mini's own addresses
COMMAND_TIMEOUT_S = 1800.0  # a guard against a hung command, not a pace (deadlock --ib-lab takes minutes)


@pytest.fixture
def labs_root() -> Iterator[Path]:
    """A labs root of this test's own, with a short path: the daemons' unix sockets live under it (108 bytes)."""
    root = Path(tempfile.mkdtemp(prefix="xr", dir="/tmp"))
    root.chmod(0o755)  # the daemons (FRR runs as its own user) reach their files under it
    try:
        yield root
    finally:
        for name in labs(root):
            with contextlib.suppress(LabError):
                down(name, root)
        shutil.rmtree(root, ignore_errors=True)


def test_readme_lab_tour_runs_verbatim(tmp_path: Path, labs_root: Path) -> None:
    commands = lab_part(readme_commands())
    assert commands
    named = {c.words[c.words.index(flag) + 1] for c in commands for flag in ("--lab", "--ib-lab") if flag in c.words}
    taken = [n for n in sorted(named) if netns.names(names.namespace_prefix(n))]
    assert not taken, f"labs of these names are up elsewhere on this machine (namespaces exist): {taken}"
    work = workdir(tmp_path / "work")
    env = environment(work, {names.ROOT_ENV: str(labs_root)})
    problems = run_all(commands, work, env, COMMAND_TIMEOUT_S)
    assert not problems, "\n\n".join(problems)
    assert labs(labs_root) == [], "the README's tour leaves a lab up"
