"""What the command handlers of one EOS SSH session share (``Cli``): the device, the clock, the level and
configuration mode, the configuration session being edited, and the commit timers.

Levels and prompts as EOS has them: ``spine1>`` (exec), ``spine1#`` after ``enable`` (no enable password
in the lab), ``spine1(config)#`` and the sub-modes' suffixes, and in a configuration session
``spine1(config-s-NAME)#`` (the first six characters of the session name, as EOS shows it).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from xoff.lab.emulators.base import EmulatorContext, Reply
from xoff.lab.emulators.eos.commands import CONFIG, Mode
from xoff.lab.emulators.eos.model import RunningConfig
from xoff.lab.emulators.eos.sessions import Device

EXEC, ENABLE, CONF = "exec", "enable", "config"
SESSION_PROMPT_CHARS = 6


class Alarms:
    """One thread per process that calls each armed session back at its deadline: the sessions' commit timers.

    A ``threading.Timer`` per ``commit timer`` started a thread at every commit and waited for it to run,
    which in an SSH server busy with its other sessions is a wait for the GIL (tens of ms in a 64-switch push)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._due: dict[int, tuple[float, Callable[[], None]]] = {}  # id(owner) -> (monotonic time, callback)
        self._thread: threading.Thread | None = None

    def set(self, owner: object, delay_s: float, fire: Callable[[], None]) -> None:
        """Call ``fire`` in ``delay_s`` seconds, instead of anything ``owner`` had armed."""
        with self._cond:
            self._due[id(owner)] = (time.monotonic() + delay_s, fire)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="xoff-eos-commit-timers", daemon=True)
                self._thread.start()
            self._cond.notify()

    def cancel(self, owner: object) -> None:
        with self._cond:
            self._due.pop(id(owner), None)

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                ready = [key for key, (at, _) in self._due.items() if at <= now]
                fire = [self._due.pop(key)[1] for key in ready]
                if not fire:
                    soonest = min((at for at, _ in self._due.values()), default=None)
                    self._cond.wait(None if soonest is None else soonest - now)
                    continue
            for callback in fire:  # outside the lock: a callback arms the next deadline
                try:
                    callback()
                except Exception:  # one session's failed rollback must not stop the others' timers
                    traceback.print_exc()


ALARMS = Alarms()


@dataclass
class Cli:
    ctx: EmulatorContext
    device: Device
    clock: Callable[[], float]
    level: str = EXEC
    mode: Mode = CONFIG
    session: str | None = None
    candidate: RunningConfig | None = None
    dirty: bool = False  # the candidate has lines sessions.json does not have yet (see flush)
    width: int = 80
    length: int = 24

    def prompt(self) -> str:
        host = self.device.store.peek().hostname
        if self.level == EXEC:
            return f"{host}>"
        if self.level == ENABLE:
            return f"{host}#"
        sess = f"-s-{self.session[:SESSION_PROMPT_CHARS]}" if self.session is not None else ""
        return f"{host}(config{sess}{self.mode.prompt_suffix()})#"

    def flush(self) -> None:
        """Write the session's candidate to ``sessions.json`` if lines changed it since the last write.

        Per line that write (render + rewrite) was most of a line's cost; the candidate is written
        instead when it leaves this SSH session's hands: on leaving the session's configuration mode
        (``end``, ``exit``; ``commit`` and ``abort`` write or drop it themselves), when the SSH session
        ends or drops (``close``), and before a command that reads it back from the store. Until then
        another SSH session sees the session as it was when this one last wrote it."""
        if self.dirty and self.session is not None and self.candidate is not None:
            self.device.save(self.session, self.candidate)
        self.dirty = False

    def leave(self) -> None:
        """Back to the privileged exec level, out of any configuration session."""
        self.flush()
        self.level, self.mode, self.session, self.candidate = ENABLE, CONFIG, None, None

    # --- commit timers --------------------------------------------------------------------------

    def errors(self, errors: list[str], arm: bool = False) -> Reply:
        if arm:
            self.arm_timer()
        return Reply("".join(e + "\n" for e in errors))

    def apply_errors(self, errors: list[str]) -> None:
        """Errors from a rollback no session asked for: kept in the state dir for whoever looks."""
        if errors:
            with (self.ctx.state_dir / "apply-errors.log").open("a", encoding="utf-8") as fh:
                fh.write("".join(f"{time.time():.3f} {e}\n" for e in errors))

    def arm_timer(self) -> None:
        """A wake-up at the next commit-timer deadline (``ALARMS``; the persisted deadline is also checked on
        every command)."""
        deadline = self.device.next_deadline()
        if deadline is None:
            ALARMS.cancel(self)
            return
        ALARMS.set(self, max(0.0, deadline - self.clock()) + 0.05, self._timer_fired)

    def _timer_fired(self) -> None:
        self.apply_errors(self.device.expire())
        self.arm_timer()
