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

Retries only where they are safe: the connection setup (``connect.session.connect_paced``) and the
read-only steps (backup, verify, the rollback's verify) once more on a new session when the device
answered too late or the session broke. An apply is never sent twice: when its outcome is unknown
(a timeout, a broken session) the device's own state, read on a new session once it has stopped
changing (two reads agree: a slow apply may still be running), decides (verified: CHANGED; not:
rolled back, the apply's error first; still changing: left alone, ROLLBACK_FAILED, a person must look).
Every timeout error names the knob to turn (``connect.pace``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from xoff.connect.credentials import mask
from xoff.connect.pace import Pace, Timeouts
from xoff.connect.session import classify, is_timeout
from xoff.contracts.apply import ApplyStrategy, Capabilities, ChangeSet
from xoff.contracts.session import Session
from xoff.push.backups import write_backup
from xoff.push.job import EventHook
from xoff.push.model import DeviceResult, Outcome, PushEvent, Step

MAX_ERROR_CHARS = 300
QUIET_READS = 12  # reads of the running state after an apply of unknown outcome, until two agree
QUIET_INTERVAL_S = 1.0  # between them, times the device's pace and the user's timeout factor
T = TypeVar("T")


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
    timeouts: Timeouts = field(default_factory=Timeouts, kw_only=True)  # the knob a timeout error names


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

    def why(self, exc: BaseException) -> str:
        """The failure as one masked line; a timeout also names the knob to turn."""
        line = one_line(exc, self.ctx.secrets)
        return f"{line} ({self.ctx.timeouts.hint()})" if is_timeout(exc) else line

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

    def reopen(self) -> Session:
        with contextlib.suppress(Exception):
            self.disconnect()
        return self.open()

    def read(self, session: Session, step: Step, read: Callable[[Session], T]) -> tuple[T, Session]:
        """A read-only step (backup, verify): when the device answered too late or the session broke,
        read once more on a new session (reading twice changes nothing)."""
        try:
            return read(session), session
        except Exception as exc:
            if not transient(exc):
                raise
            self.event(step, "retry", self.why(exc))
            session = self.reopen()
            return read(session), session

    def prepare(self) -> tuple[Session, str, ChangeSet] | DeviceResult:
        """Connect, back up, diff: nothing is sent to the device; a failure leaves it untouched."""
        ctx, strategy = self.ctx, self.strategy
        step = Step.CONNECT
        try:
            self.event(step, "start")
            session = self.open()
            pace = getattr(session, "pace", None)
            self.event(step, "ok", pace.describe() if isinstance(pace, Pace) else "")
            step = Step.BACKUP
            self.event(step, "start")
            backup, session = self.read(session, step, strategy.backup)
            self.result.backup = str(write_backup(ctx.backup_root, ctx.run_id, ctx.device, backup, ctx.secrets))
            self.event(step, "ok", self.result.backup)
            step = Step.DIFF
            self.event(step, "start")
            change = strategy.diff(backup, ctx.desired)
        except Exception as exc:
            error = self.why(exc)
            self.event(step, "failed", error)
            return self.finish(Outcome.FAILED, step, error)
        return session, backup, change

    def run(self) -> DeviceResult:
        prepared = self.prepare()
        if isinstance(prepared, DeviceResult):
            return prepared
        session, backup, change = prepared
        self.result.changes = change.count
        self.result.diff = mask("\n".join(change.lines), self.ctx.secrets)
        self.event(Step.DIFF, "ok", f"{change.count} changes")
        if change.empty:
            return self.finish(Outcome.UNCHANGED)
        if self.ctx.dry_run:
            return self.finish(Outcome.DRY_RUN)
        return self.change(session, backup, change)

    def change(self, session: Session, backup: str, change: ChangeSet) -> DeviceResult:
        """Apply, never twice: when its outcome is unknown (the device answered too late or the session
        broke), the device's state on a new session decides (``settle``)."""
        step = Step.APPLY
        try:
            self.event(step, "start")
            try:
                self.strategy.apply(session, change, self.ctx.desired)
            except Exception as exc:
                if not transient(exc):
                    raise
                unknown = self.why(exc)
                self.event(step, "unknown", f"{unknown}: reading the device's state on a new session")
                session = self.reopen()
                quiet, session = self.await_quiet(session)
                if not quiet:
                    why = f"{unknown}; the device's state was still changing after {QUIET_READS} reads"
                    self.event(Step.ROLLBACK, "failed", "not rolled back while it changes: a person must look")
                    return self.finish(Outcome.ROLLBACK_FAILED, Step.APPLY, why)
                return self.settle(session, backup, unknown)
            self.event(step, "ok")
        except Exception as exc:
            error = self.why(exc)
            self.event(step, "failed", error)
            return self.rollback(session, backup, step, error)
        return self.settle(session, backup, None)

    def await_quiet(self, session: Session) -> tuple[bool, Session]:
        """After an apply of unknown outcome the device may still be applying it (a late answer is often
        a slow apply): wait until two reads of its running state agree, so neither verify nor a rollback
        judges or races a change in flight. The wait between reads follows the device's pace."""
        pace = getattr(session, "pace", None)
        scale = pace.scale * pace.timeouts.factor if isinstance(pace, Pace) else 1.0
        last: str | None = None
        for _ in range(QUIET_READS):
            current, session = self.read(session, Step.VERIFY, self.strategy.backup)
            if current == last:
                return True, session
            last = current
            time.sleep(QUIET_INTERVAL_S * scale)
        return False, session

    def settle(self, session: Session, backup: str, unknown: str | None) -> DeviceResult:
        """Verify (and confirm where the platform commits with a timer); otherwise roll back. After an
        apply of unknown outcome, a failure counts against the apply, with its error first."""
        failed = Step.APPLY if unknown else Step.VERIFY
        step = Step.VERIFY
        try:
            self.event(step, "start")
            problems, session = self.read(session, step, lambda s: self.strategy.verify(s, self.ctx.desired))
            if problems:
                error = mask(f"verify: {problems[0]} ({len(problems)} differences)", self.ctx.secrets)
                self.event(step, "failed", error)
                return self.rollback(session, backup, failed, f"{unknown}; {error}" if unknown else error)
            if self.ctx.capabilities.commit_confirm:
                self.strategy.confirm(session)
        except Exception as exc:
            error = self.why(exc)
            self.event(step, "failed", error)
            return self.rollback(session, backup, failed, f"{unknown}; {error}" if unknown else error)
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
                self.event(Step.ROLLBACK, "retry", self.why(first))
                session = self.reopen()
                self.strategy.rollback(session, backup)
            problems, session = self.read(session, Step.ROLLBACK, lambda s: self.strategy.verify_rollback(s, backup))
        except Exception as exc:
            why = self.why(exc)
            self.event(Step.ROLLBACK, "failed", why)
            return self.finish(Outcome.ROLLBACK_FAILED, failed, f"{error}; rollback failed: {why}")
        if problems:
            why = mask(problems[0], secrets)
            self.event(Step.ROLLBACK, "failed", why)
            return self.finish(Outcome.ROLLBACK_FAILED, failed, f"{error}; rollback not verified: {why}")
        self.event(Step.ROLLBACK, "ok", "running equals the backup")
        return self.finish(Outcome.ROLLED_BACK, failed, error)


def transient(exc: BaseException) -> bool:
    """The device answered too late or the session broke: no answer, so nothing is known of the command."""
    return classify(exc) in ("timeout", "unreachable")


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
