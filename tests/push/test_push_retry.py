"""Retries only where they are safe: a read-only step (backup, verify) is read again on a new session
when the device answered too late; an apply is never sent twice: when its outcome is unknown, the
device's own state, read on a new session, decides. Every timeout error names the knob to turn."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pytest

from xoff.connect.pace import Timeouts
from xoff.contracts.apply import ApplyError, ApplyStrategy, Capabilities, ChangeSet
from xoff.contracts.session import Session
from xoff.push import device_flow
from xoff.push.device_flow import DeviceContext, push_device
from xoff.push.model import DeviceResult, Outcome, PushEvent, Step

CAPS = Capabilities(
    atomic_replace=True, commit_confirm=True, rollback=True, on_box_diff=True, apply_means="set", undo_means="reset"
)


@dataclass
class _Device:
    """An in-memory device whose steps can time out: ``late`` lists what times out, in order."""

    running: str = "a"
    late: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    sessions: int = 0


class _Strategy(ApplyStrategy):
    platform = "fake"

    def __init__(self, dev: _Device) -> None:
        super().__init__("t")
        self.dev = dev

    def _step(self, name: str) -> None:
        self.dev.calls.append(name)
        if self.dev.late and self.dev.late[0] == name:
            self.dev.late.pop(0)
            raise TimeoutError(f"{name}: timed out")

    def backup(self, session: Session) -> str:
        self._step("backup")
        return self.dev.running

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        return ChangeSet(lines=[] if running == desired["f"] else [f"{running} -> {desired['f']}"])

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        if self.dev.late[:1] == ["apply-lost"]:  # the answer was lost before the device got the change
            self._step("apply-lost")
        self.dev.running = desired["f"]  # the device applied it...
        self._step("apply")  # ...but its answer may come too late

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        self._step("verify")
        return [] if self.dev.running == desired["f"] else ["differs"]

    def confirm(self, session: Session) -> None:
        self._step("confirm")

    def rollback(self, session: Session, backup: str) -> None:
        self._step("rollback")
        self.dev.running = backup


def _push(tmp_path: Path, dev: _Device, timeouts: Timeouts | None = None) -> tuple[DeviceResult, list[tuple[str, str]]]:
    def connect() -> Session:
        dev.sessions += 1
        return cast("Session", object())

    ctx = DeviceContext(
        "d", "fake", {"f": "b"}, "t", tmp_path, False, [], capabilities=CAPS, timeouts=timeouts or Timeouts()
    )
    events: list[PushEvent] = []
    result = push_device(ctx, _Strategy(dev), connect, lambda: None, events.append)
    return result, [(e.step.value, e.status) for e in events if e.status not in ("start", "ok")]


@pytest.fixture(autouse=True)
def _no_wait_between_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_flow, "QUIET_INTERVAL_S", 0.0)


@pytest.mark.parametrize(
    ("late", "outcome", "failed_step", "running", "calls", "retries"),
    [
        # a late backup is read again on a new session: the push goes on
        (["backup"], Outcome.CHANGED, None, "b", ["backup", "backup", "apply", "verify", "confirm"], ["backup"]),
        # a late verify likewise
        (["verify"], Outcome.CHANGED, None, "b", ["backup", "apply", "verify", "verify", "confirm"], ["verify"]),
        # the apply went through but its answer came late: the device's state says so; applied once
        (["apply"], Outcome.CHANGED, None, "b", ["backup", "apply", "backup", "backup", "verify", "confirm"], []),
        # the apply's outcome is unknown and the device does not run it: rolled back, the apply blamed
        (
            ["apply-lost"],
            Outcome.ROLLED_BACK,
            Step.APPLY,
            "a",
            ["backup", "apply-lost", "backup", "backup", "verify", "rollback", "backup"],
            [],
        ),
    ],
)
def test_safe_retries_and_an_apply_of_unknown_outcome(
    tmp_path: Path,
    late: list[str],
    outcome: Outcome,
    failed_step: Step | None,
    running: str,
    calls: list[str],
    retries: list[str],
) -> None:
    dev = _Device(late=list(late))
    result, events = _push(tmp_path, dev)
    assert (result.outcome, result.failed_step, dev.running, dev.calls) == (
        outcome,
        failed_step,
        running,
        calls,
    )
    assert [step for step, status in events if status == "retry"] == retries
    assert dev.sessions == 1 + len(retries) + (1 if late[0].startswith("apply") else 0), "a new session per retry"
    if late[0].startswith("apply"):
        assert ("apply", "unknown") in events and ("apply", "failed") not in events


def test_a_device_late_twice_fails_untouched_with_the_knob_named(tmp_path: Path) -> None:
    dev = _Device(late=["backup", "backup"])
    result, events = _push(tmp_path, dev, Timeouts(factor=2))
    assert (result.outcome, result.failed_step, dev.running) == (Outcome.FAILED, Step.BACKUP, "a")
    assert result.error == "TimeoutError: backup: timed out (raise --timeout-factor (now 2))"
    assert events == [("backup", "retry"), ("backup", "failed"), ("done", "failed")]


def test_a_refused_command_is_not_retried(tmp_path: Path) -> None:
    class _Refusing(_Strategy):
        def backup(self, session: Session) -> str:
            self._step("backup")
            raise ApplyError("% Invalid input")

    dev = _Device()
    ctx = DeviceContext("d", "fake", {"f": "b"}, "t", tmp_path, False, [], capabilities=CAPS)
    result = push_device(ctx, _Refusing(dev), lambda: cast("Session", object()), lambda: None, lambda _e: None)
    assert (result.outcome, dev.calls) == (Outcome.FAILED, ["backup"])
    assert result.error == "ApplyError: % Invalid input", "no knob: nothing timed out"


class _StillApplying(_Strategy):
    """The apply's answer came late because the device is still applying: its running state moves on
    with every read until ``settles_after`` reads (never, with None)."""

    def __init__(self, dev: _Device, settles_after: int | None) -> None:
        super().__init__(dev)
        self.reads = 0
        self.settles_after = settles_after

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        self._step("apply")
        raise TimeoutError("apply: timed out")

    def backup(self, session: Session) -> str:
        self._step("backup")
        self.reads += 1
        if self.reads == 1:
            return self.dev.running  # the backup before the change
        if self.settles_after is None or self.reads <= self.settles_after:
            self.dev.running = f"partial{self.reads}"
        else:
            self.dev.running = "b"
        return self.dev.running


def _push_with(tmp_path: Path, strategy: _StillApplying) -> DeviceResult:
    ctx = DeviceContext("d", "fake", {"f": "b"}, "t", tmp_path, False, [], capabilities=CAPS)
    return push_device(ctx, strategy, lambda: cast("Session", object()), lambda: None, lambda _e: None)


def test_a_slow_apply_is_waited_for_before_it_is_judged(tmp_path: Path) -> None:
    """Neither verify nor a rollback races a change in flight: the state is judged once two reads agree."""
    dev = _Device()
    strategy = _StillApplying(dev, settles_after=4)
    result = _push_with(tmp_path, strategy)
    assert (result.outcome, dev.running) == (Outcome.CHANGED, "b")
    assert "rollback" not in dev.calls and dev.calls.count("apply") == 1
    assert dev.calls.index("verify") > dev.calls.index("backup", 5), "verified only after the reads agreed"


def test_a_device_that_never_settles_is_left_alone_for_a_person(tmp_path: Path) -> None:
    dev = _Device()
    result = _push_with(tmp_path, _StillApplying(dev, settles_after=None))
    assert result.outcome is Outcome.ROLLBACK_FAILED and result.failed_step is Step.APPLY
    assert "still changing after 12 reads" in (result.error or "")
    assert "rollback" not in dev.calls and "verify" not in dev.calls
