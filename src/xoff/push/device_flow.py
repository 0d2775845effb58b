"""One device, start to end: connect -> backup -> diff -> (dry run stops) -> apply -> verify, and on
any failure after the first change: rollback -> verify the rollback.

Engine-neutral: it gets a ``connect`` function (a fresh session each call) and reports through
``emit``. The outcome rules:

The platform's ``Capabilities`` decide two steps: a clean verify is confirmed only where the platform
commits with a timer (``commit_confirm``), and a failed change is rolled back only where the platform
can (``rollback``; otherwise ROLLBACK_FAILED at once: a person must look).

- nothing sent yet (connect, backup or diff failed): FAILED, the device untouched;
- applied and verified: CHANGED; running already at desired: UNCHANGED (nothing sent at all);
- apply or verify failed: rolled back (on the same session, or a new one if it broke) and the
  rollback verified equal to the backup: ROLLED_BACK; otherwise ROLLBACK_FAILED (a person must look).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xoff.connect.credentials import mask
from xoff.contracts.apply import ApplyStrategy, Capabilities
from xoff.contracts.session import Session
from xoff.push.backups import write_backup
from xoff.push.job import EventHook
from xoff.push.model import DeviceResult, Outcome, PushEvent, Step

MAX_ERROR_CHARS = 300


@dataclass(frozen=True)
class DeviceContext:
    device: str
    platform: str
    desired: dict[str, str]
    run_id: str
    backup_root: Path
    dry_run: bool
    secrets: list[str]
    batch: int = 0
    capabilities: Capabilities = field(kw_only=True)  # the platform's: what this flow may plan with


def one_line(exc: BaseException, secrets: list[str]) -> str:
    """An exception as one masked line: its type and its first non-empty line (and the next one when
    the first only introduces it, as netmiko's "... occurred during connection creation:" does)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = " ".join(lines[:2]) if len(lines) > 1 and lines[0].endswith(":") else (lines[0] if lines else "")
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return mask(line, secrets)[:MAX_ERROR_CHARS]


class _Flow:
    def __init__(
        self,
        ctx: DeviceContext,
        strategy: ApplyStrategy,
        connect: Callable[[], Session],
        disconnect: Callable[[], None],
        emit: EventHook,
    ) -> None:
        self.ctx = ctx
        self.strategy = strategy
        self.connect_fn = connect
        self.disconnect = disconnect
        self.emit = emit
        self.started = time.monotonic()
        self.result = DeviceResult(device=ctx.device, platform=ctx.platform, batch=ctx.batch)

    def event(self, step: Step, status: str, message: str = "") -> None:
        elapsed = time.monotonic() - self.started
        self.emit(PushEvent(self.ctx.device, step, status, mask(message, self.ctx.secrets), round(elapsed, 3)))

    def finish(self, outcome: Outcome, step: Step | None = None, error: str | None = None) -> DeviceResult:
        self.result.outcome = outcome
        self.result.failed_step = step
        self.result.error = error
        self.result.elapsed_s = round(time.monotonic() - self.started, 3)
        self.event(Step.DONE, "failed" if step else "ok", outcome.value)
        return self.result

    def open(self) -> Session:
        session = self.connect_fn()
        self.strategy.prepare(session)
        return session

    def run(self) -> DeviceResult:
        ctx, strategy = self.ctx, self.strategy
        step = Step.CONNECT
        try:
            self.event(step, "start")
            session = self.open()
            self.event(step, "ok")
            step = Step.BACKUP
            self.event(step, "start")
            backup = strategy.backup(session)
            self.result.backup = str(write_backup(ctx.backup_root, ctx.run_id, ctx.device, backup, ctx.secrets))
            self.event(step, "ok", self.result.backup)
            step = Step.DIFF
            self.event(step, "start")
            change = strategy.diff(backup, ctx.desired)
        except Exception as exc:
            error = one_line(exc, ctx.secrets)
            self.event(step, "failed", error)
            return self.finish(Outcome.FAILED, step, error)
        self.result.changes = change.count
        self.result.diff = mask("\n".join(change.lines), ctx.secrets)
        self.event(step, "ok", f"{change.count} changes")
        if change.empty:
            return self.finish(Outcome.UNCHANGED)
        if ctx.dry_run:
            return self.finish(Outcome.DRY_RUN)
        step = Step.APPLY
        try:
            self.event(step, "start")
            strategy.apply(session, change, ctx.desired)
            self.event(step, "ok")
            step = Step.VERIFY
            self.event(step, "start")
            problems = strategy.verify(session, ctx.desired)
            if problems:
                error = mask(f"verify: {problems[0]} ({len(problems)} differences)", ctx.secrets)
                self.event(step, "failed", error)
                return self.rollback(session, backup, step, error)
            if ctx.capabilities.commit_confirm:
                strategy.confirm(session)
        except Exception as exc:
            error = one_line(exc, ctx.secrets)
            self.event(step, "failed", error)
            return self.rollback(session, backup, step, error)
        self.event(step, "ok")
        return self.finish(Outcome.CHANGED)

    def rollback(self, session: Session, backup: str, failed: Step, error: str) -> DeviceResult:
        secrets = self.ctx.secrets
        if not self.ctx.capabilities.rollback:
            why = f"platform {self.ctx.platform} cannot roll back"
            self.event(Step.ROLLBACK, "failed", why)
            return self.finish(Outcome.ROLLBACK_FAILED, failed, f"{error}; {why}")
        self.event(Step.ROLLBACK, "start")
        try:
            try:
                self.strategy.rollback(session, backup)
            except Exception as first:
                self.event(Step.ROLLBACK, "retry", one_line(first, secrets))
                with contextlib.suppress(Exception):
                    self.disconnect()
                session = self.open()
                self.strategy.rollback(session, backup)
            problems = self.strategy.verify_rollback(session, backup)
        except Exception as exc:
            why = one_line(exc, secrets)
            self.event(Step.ROLLBACK, "failed", why)
            return self.finish(Outcome.ROLLBACK_FAILED, failed, f"{error}; rollback failed: {why}")
        if problems:
            why = mask(problems[0], secrets)
            self.event(Step.ROLLBACK, "failed", why)
            return self.finish(Outcome.ROLLBACK_FAILED, failed, f"{error}; rollback not verified: {why}")
        self.event(Step.ROLLBACK, "ok", "running equals the backup")
        return self.finish(Outcome.ROLLED_BACK, failed, error)


def push_device(
    ctx: DeviceContext,
    strategy: ApplyStrategy,
    connect: Callable[[], Session],
    disconnect: Callable[[], None],
    emit: EventHook,
) -> DeviceResult:
    """Run the whole flow for one device; never raises."""
    flow = _Flow(ctx, strategy, connect, disconnect, emit)
    try:
        return flow.run()
    finally:
        with contextlib.suppress(Exception):
            disconnect()
