"""Configuration sessions and the running-config changes that go with them.

- ``configure session NAME`` copies the running-config into the session (or re-enters a pending one);
  lines change only the session.
- ``commit`` replaces the running-config with the session's; ``commit timer HH:MM:SS`` does the
  same but keeps the previous running-config and a deadline in ``sessions.json``: unless
  ``configure session NAME commit`` confirms it first, the running-config is rolled back when the
  deadline passes. Every command checks the deadline first, and each session's emulator arms a timer
  thread for it, so a rollback happens on time with nobody connected.
- ``abort`` drops the session (and, during a commit timer, rolls back at once).

Every change to the running-config goes through :meth:`Device.replace_running`, which also applies
the difference to the namespace and FRR (``apply.sync``).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos import apply
from xoff.lab.emulators.eos.factory import factory_config
from xoff.lab.emulators.eos.grammar import CommandError
from xoff.lab.emulators.eos.model import RunningConfig, render
from xoff.lab.emulators.eos.store import Session, Store, clean, parse

PENDING, TIMER, COMPLETED = "pending", "pendingCommitTimer", "completed"


class Device:
    """One device's persistent state, shared by all of its SSH sessions (through the store's lock)."""

    def __init__(self, ctx: EmulatorContext, clock: Callable[[], float]) -> None:
        self.ctx = ctx
        self.clock = clock
        self.store = Store(ctx.state_dir, ctx.device)
        booted = self.store.ensure(lambda: factory_config(ctx))
        self.boot_errors = apply.sync(ctx, None, booted) if booted is not None else []

    # --- running-config -------------------------------------------------------------------------

    def replace_running(self, new: RunningConfig) -> list[str]:
        """Under the lock: write ``new`` and apply the difference; the apply errors (``% Error ...``)."""
        old = self.store.peek()
        if new == old:
            return []
        self.store.write_running(new)
        return apply.sync(self.ctx, old, new)

    # --- sessions -------------------------------------------------------------------------------

    def enter(self, name: str) -> RunningConfig:
        """The session's configuration; a new session starts from the running-config."""
        with self.store.locked():
            self._expire()
            sessions = self.store.sessions()
            s = sessions.get(name)
            if s is not None and s.state == COMPLETED:
                raise CommandError(f"% Cannot enter session {name} (session has already been completed)")
            if s is not None:
                return parse(s.config)
            if sum(1 for x in sessions.values() if x.state != COMPLETED) >= Store.MAX_PENDING:
                raise CommandError(
                    "% Maximum number of pending sessions has been reached. Please commit or abort some of the existing sessions."
                )
            running = self.store.peek()
            sessions[name] = Session(PENDING, render(running), self.clock())
            self.store.save_sessions(sessions)
            return self.store.running()

    def save(self, name: str, cfg: RunningConfig) -> None:
        with self.store.locked():
            sessions = self.store.sessions()
            if name in sessions:
                sessions[name].config = render(cfg)
                self.store.save_sessions(sessions)

    def diffs(self, name: str, cfg: RunningConfig) -> str:
        """``show session-config diffs``: running-config -> session-config, unified, empty when equal."""
        with self.store.locked():
            before = render(self.store.peek()).splitlines()
        after = render(cfg).splitlines()
        lines = difflib.unified_diff(
            before, after, "system:/running-config", f"session:/{name}-session-config", lineterm=""
        )
        return "".join(line + "\n" for line in lines)

    def commit(self, name: str, cfg: RunningConfig | None, timer: int | None = None) -> list[str]:
        """Commit (or confirm) session ``name``, with ``cfg`` as its configuration when given."""
        with self.store.locked():
            self._expire()
            sessions = self.store.sessions()
            s = sessions.get(name)
            if s is None or s.state == COMPLETED:
                raise CommandError(
                    f"% Session {name} does not exist" if s is None else f"% Session {name} has already been completed"
                )
            if timer is not None:
                other = [n for n, x in sessions.items() if x.state == TIMER and n != name]
                if other:
                    raise CommandError(f"% Session {other[0]} has a pending commit timer; commit or abort it first")
            new = cfg if cfg is not None else self._committed(s)
            s.config = render(new)
            if timer is not None:
                if s.state != TIMER:  # a second "commit timer" restarts the clock, keeping the first rollback point
                    s.rollback = render(self.store.peek())
                s.state, s.deadline = TIMER, self.clock() + timer
            else:
                s.state, s.deadline, s.rollback, s.completed = COMPLETED, None, None, self.clock()
            self.store.save_sessions(sessions)
            return self.replace_running(new)

    def _committed(self, s: Session) -> RunningConfig:
        """The session's configuration, to commit again: the running-config itself (shared, read only)
        when the session is what runs (confirming a commit timer), else parsed from the session's text."""
        running = self.store.peek()
        if s.state == TIMER and render(running) == s.config:
            return running
        return parse(s.config)

    def abort(self, name: str) -> list[str]:
        with self.store.locked():
            self._expire()
            sessions = self.store.sessions()
            s = sessions.pop(name, None)
            if s is None or s.state == COMPLETED:
                raise CommandError(f"% Session {name} does not exist")
            self.store.save_sessions(sessions)
            if s.state == TIMER and s.rollback is not None:
                return self.replace_running(parse(s.rollback))
            return []

    def rollback_clean(self) -> RunningConfig:
        """``rollback clean-config``: the session starts again from the factory configuration."""
        with self.store.locked():
            return clean(self.store.peek())

    # --- commit timers --------------------------------------------------------------------------

    def expire(self) -> list[str]:
        """Before every command: roll back lapsed commit timers. The lock only when one has lapsed
        (``sessions.json`` is replaced whole, so it reads consistently without it)."""
        now = self.clock()
        if not any(
            s.state == TIMER and s.deadline is not None and s.deadline <= now
            for s in self.store.peek_sessions().values()
        ):
            return []
        with self.store.locked():
            return self._expire()

    def _expire(self) -> list[str]:
        """Roll back every commit whose timer has run out (caller holds the lock)."""
        sessions = self.store.sessions()
        due = [
            n for n, s in sessions.items() if s.state == TIMER and s.deadline is not None and s.deadline <= self.clock()
        ]
        errors: list[str] = []
        for name in due:
            s = sessions.pop(name)
            self.store.save_sessions(sessions)
            if s.rollback is not None:
                errors += self.replace_running(parse(s.rollback))
        return errors

    def next_deadline(self) -> float | None:
        deadlines = [s.deadline for s in self.store.sessions().values() if s.state == TIMER and s.deadline is not None]
        return min(deadlines) if deadlines else None
