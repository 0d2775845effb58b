"""connect.batch: several commands in one exec channel give what each would give alone (real /bin/sh)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.support.paths import ROOT
from xoff.collect import engine
from xoff.collect.engine import CollectOptions, collect_device
from xoff.connect import batch
from xoff.connect.channel import CommandFailedError
from xoff.connect.credentials import CredentialSet
from xoff.connect.targets import build_targets
from xoff.contracts.collect import Command, DeviceObservation
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"

COMMANDS = [
    "printf 'no newline at the end'",
    "echo one; echo two",
    "echo out; echo 'it broke' >&2; false",
    "exit 3",
    "cat",  # stdin is /dev/null: returns at once
    "echo 'XOFF-BATCH-0000000000000000 0 end 0'",  # a forged end line with another nonce
    "echo before # a trailing comment must not swallow the subshell's end",
    "cd /; pwd",
    "pwd",  # the cd above stays in its own subshell
    "printf ''",
    "printf '\\n\\n'",
    'f=/nonexistent; if [ -e "$f" ]; then cat "$f"; else echo "# no file"; fi',
]


def _sh(text: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", text], capture_output=True, text=True, cwd=cwd, check=False, timeout=30)


def test_each_command_gives_what_it_gives_alone(tmp_path: Path) -> None:
    marker = batch.new_marker()
    ran = _sh(batch.script(COMMANDS, marker), tmp_path)
    assert ran.returncode == 0
    results = batch.split(ran.stdout, ran.stderr, marker, len(COMMANDS))
    for command, got in zip(COMMANDS, results, strict=True):
        alone = subprocess.run(
            ["/bin/sh", "-c", command],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            check=False,
            timeout=30,
        )
        assert got == batch.Ran(alone.returncode, alone.stdout, alone.stderr), command


def test_status_and_stderr_are_per_command(tmp_path: Path) -> None:
    marker = batch.new_marker()
    ran = _sh(batch.script(COMMANDS, marker), tmp_path)
    results = batch.split(ran.stdout, ran.stderr, marker, len(COMMANDS))
    assert [r.status if r else None for r in results] == [0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0]
    assert results[2] == batch.Ran(1, "out\n", "it broke\n")
    assert results[5] is not None and results[5].stdout == "XOFF-BATCH-0000000000000000 0 end 0\n"
    assert results[8] is not None and results[8].stdout == f"{tmp_path}\n"


def test_a_cut_short_batch_leaves_the_rest_unanswered(tmp_path: Path) -> None:
    marker = batch.new_marker()
    ran = _sh(batch.script(["echo a", "echo b", "echo c"], marker), tmp_path)
    cut = ran.stdout[: ran.stdout.index(f"{marker} 1 end")]  # the channel closed inside the second command
    results = batch.split(cut, ran.stderr, marker, 3)
    assert results == [batch.Ran(0, "a\n", ""), None, None]
    assert batch.split("", "", marker, 2) == [None, None]


class _Batching:
    """A session with run_batch (as ExecSession): answers from a table, records how it was asked."""

    def __init__(self, answers: Mapping[str, str | Exception]) -> None:
        self.answers = answers
        self.batches: list[list[str]] = []

    def run_batch(self, commands: list[str], read_timeout: float) -> list[str | Exception]:
        del read_timeout
        self.batches.append(commands)
        return [self.answers[c] for c in commands]

    def send_command(self, command_string: str, *args: Any, **kwargs: Any) -> str:
        raise AssertionError(f"one command at a time: {command_string}")

    def disconnect(self) -> None:
        pass


class _ThreeCommands:
    platform: ClassVar[str] = "linux"
    # the transport (exec channel, as every Linux host) comes from the linux platform record
    seen: ClassVar[dict[str, str]] = {}

    def commands(self, desired: Any) -> list[Command]:
        del desired
        return [Command("a"), Command("b"), Command("c")]

    def parse(self, outputs: Mapping[str, str], desired: Any) -> DeviceObservation:
        del desired
        type(self).seen = dict(outputs)
        return DeviceObservation(device=None)


@pytest.mark.parametrize(
    ("answers", "outputs", "errors"),
    [
        ({"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "2", "c": "3"}, []),
        (
            {"a": "1", "b": CommandFailedError("exit status 1: nope"), "c": "3"},
            {"a": "1", "c": "3"},
            [("b", "command")],
        ),
        ({"a": "1", "b": TimeoutError("cut short"), "c": TimeoutError("cut short")}, {"a": "1"}, [("b", "timeout")]),
    ],
)
def test_the_engine_runs_a_hosts_commands_as_one_batch(
    monkeypatch: pytest.MonkeyPatch,
    answers: dict[str, str | Exception],
    outputs: dict[str, str],
    errors: list[tuple[str, str]],
) -> None:
    session = _Batching(answers)
    monkeypatch.setattr(engine, "collector_for", lambda _platform: _ThreeCommands())
    desired = build_fabric_state(load_intent(INVENTORY / "lab-mini"))
    target = next(t for t in build_targets(desired) if t.name == "gpu1")
    creds = CredentialSet(switch=None, host=None)
    run = collect_device(target, desired, creds, None, CollectOptions(), connect=lambda _spec: session)
    assert session.batches == [["a", "b", "c"]]
    assert _ThreeCommands.seen == outputs
    assert [(e.command, e.kind) for e in run.errors] == errors
