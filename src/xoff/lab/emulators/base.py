"""What every NOS emulator shares: its context, its session faults, the one result type, the session contract.

The lab's SSH servers (asyncssh processes, one per ~16 switches, a listening socket in each switch
namespace) create one ``Emulator`` per SSH session and feeds it lines; emulators never touch sockets. State
that must outlive a session (the device's configuration) lives under ``ctx.state_dir``, so every
session of a device sees the same device, and a lab restart keeps it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xoff.desired.models import Device, FabricState

FAULTS_FILE = "faults.json"


@dataclass(frozen=True)
class EmulatorContext:
    device: str  # the intent's device name (hostname)
    state_dir: Path  # persistent per-device state (configuration, counters, faults.json)
    netns: str | None  # the device's network namespace; None in unit tests without a lab
    frr_vty_dir: Path | None = None  # the device's FRR vty socket directory, for vtysh --vty_socket
    fabric_state: Path | None = None  # the FabricState JSON the lab was built from (desired), if any

    def desired_device(self) -> Device | None:
        """This device in the lab's FabricState (what the lab was built from), or None without one."""
        if self.fabric_state is None or not self.fabric_state.exists():
            return None
        st = self.fabric_state.stat()
        return _lab_fabric(self.fabric_state, st.st_mtime_ns, st.st_size).devices.get(self.device)

    def run_in_netns(
        self, argv: list[str], *, check: bool = True, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a command inside the device's namespace (``ip``, ``vtysh``, ``lldpcli``...), ``input`` on its stdin.

        The child is started from this thread while it is in the namespace (``setns`` moves only the
        calling thread; a child inherits it), not through ``ip netns exec``: that one copies the
        machine's whole mount table into a new mount namespace and remounts ``/sys`` per call (with a
        lab's hundred namespaces mounted, ~20 ms each; a push's commit runs a dozen), which none of
        these commands needs (netlink, FRR's and lldpd's sockets, ``/proc/sys/net`` follow the network
        namespace). A command that is not installed still fails as ``ip netns exec`` says it."""
        if not self.netns:
            return run_waiting_once(argv, check=check, input=input)
        from xoff.lab import netns  # noqa: PLC0415 - ctypes' libc, only where a lab runs

        try:
            with netns.entered(self.netns):
                return run_waiting_once(argv, check=check, input=input)
        except FileNotFoundError:  # no such command (or namespace): ip's own message and status
            full = ["ip", "netns", "exec", self.netns, *argv]
            return subprocess.run(full, capture_output=True, text=True, check=check, timeout=30, input=input)

    def set_sysctl(self, key: str, value: str) -> None:
        """``sysctl -w KEY=VALUE`` in the device's namespace, as the write to ``/proc/sys`` that sysctl makes, from
        this thread while it is in the namespace (``/proc/sys/net`` is the opener's network namespace's): no
        process to start and wait for. OSError when the write fails."""
        path = "/proc/sys/" + key.replace(".", "/")
        if not self.netns:
            _write_proc(path, value)
            return
        from xoff.lab import netns  # noqa: PLC0415 - ctypes' libc, only where a lab runs

        with netns.entered(self.netns):
            _write_proc(path, value)


def _write_proc(path: str, value: str) -> None:
    with open(path, "w", encoding="ascii") as fh:  # noqa: PTH123 - one write, as sysctl makes it
        fh.write(value + "\n")


CHILD_TIMEOUT_S = 30.0


def _text(data: bytes) -> str:
    """A child's output as ``text=True`` reads it (universal newlines)."""
    return data.decode().replace("\r\n", "\n").replace("\r", "\n")


def run_waiting_once(argv: list[str], *, check: bool, input: str | None) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, capture_output=True, text=True, timeout=30, input=input)``, with the child's stdin,
    stdout and stderr in memory files instead of pipes, and one wait for its exit (on a pidfd): ``run`` polls the
    three pipes until each closes and, with a timeout, the exit in growing sleeps; in a lab server busy with
    other sessions each of those wake-ups waits for the GIL again (most of a commit's time in a 64-switch push)."""
    with (
        open(os.memfd_create("stdin"), "w+b") as fin,  # noqa: PTH123 - an fd, not a path
        open(os.memfd_create("stdout"), "w+b") as fout,  # noqa: PTH123
        open(os.memfd_create("stderr"), "w+b") as ferr,  # noqa: PTH123
    ):
        fin.write((input or "").encode())
        fin.seek(0)
        proc = subprocess.Popen(argv, stdin=fin if input is not None else subprocess.DEVNULL, stdout=fout, stderr=ferr)
        with proc:
            exited = os.pidfd_open(proc.pid)
            try:
                if not select.select([exited], [], [], CHILD_TIMEOUT_S)[0]:
                    proc.kill()
                    proc.wait()
                    raise subprocess.TimeoutExpired(argv, CHILD_TIMEOUT_S)
            finally:
                os.close(exited)
            status = proc.wait()
        fout.seek(0)
        ferr.seek(0)
        done = subprocess.CompletedProcess(argv, status, _text(fout.read()), _text(ferr.read()))
    if check:
        done.check_returncode()
    return done


@functools.lru_cache(maxsize=4)
def _lab_fabric(path: Path, mtime_ns: int, size: int) -> FabricState:
    """The lab's FabricState, parsed once per SSH server process and shared by every session (read
    only): a 64-switch fabric's JSON takes longer to read than a session's whole work."""
    from xoff.desired.models import FabricState  # noqa: PLC0415 - pydantic models, only where a lab has a fabric

    del mtime_ns, size  # the cache key: a rewritten file is read again
    return FabricState.model_validate_json(path.read_text(encoding="utf-8"))


@dataclass
class SessionFaults:
    """Session faults (test hooks), read from ``<state_dir>/faults.json`` before every command: what a
    flaky device or link does to a session. Not the lab's named fault classes (``xoff.lab.faults``).

    - ``reject_nth``: the Nth configuration command of a session is refused the platform's way
      (counted by the emulator; 1-based);
    - ``drop_after``: the session is closed abruptly after N commands;
    - ``delay_ms``: every answer waits this long.
    """

    reject_nth: int | None = None
    drop_after: int | None = None
    delay_ms: int = 0

    @classmethod
    def load(cls, state_dir: Path) -> SessionFaults:
        path = state_dir / FAULTS_FILE
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            reject_nth=data.get("reject_nth"),
            drop_after=data.get("drop_after"),
            delay_ms=int(data.get("delay_ms", 0)),
        )

    def save(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        data = {"reject_nth": self.reject_nth, "drop_after": self.drop_after, "delay_ms": self.delay_ms}
        (state_dir / FAULTS_FILE).write_text(json.dumps(data), encoding="utf-8")


@dataclass
class Reply:
    """What a command, a line or a session step returns, in every emulator. Inside an emulator ``output``
    has "\\n" line ends; the reply a session step gives the SSH server has the platform's line ends."""

    output: str = ""
    status: int = 0  # exit status (what an exec channel reports; ``&&``/``||`` in a shell)
    close: bool = False  # end the session after sending output (exit, logout, a dropped session)
    data: dict[str, object] | None = None  # the command's structured model, where it has one (EOS ``| json``)


@dataclass
class SessionCounters:
    commands: int = 0
    config_commands: int = 0
    started: float = field(default_factory=time.monotonic)


class EmulatorBase(ABC):
    """One interactive CLI session on one device."""

    def __init__(self, ctx: EmulatorContext) -> None:
        self.ctx = ctx
        self.counters = SessionCounters()
        self._steady_faults: SessionFaults | None = None  # inside ``steady()``: the faults read at its start

    @contextlib.contextmanager
    def steady(self) -> Iterator[None]:
        """The lines of one read of the session (a paste) run against the files as they were at its start:
        the session faults are read once, not per line (and a platform may keep its own reads, ``_steady``).
        Each of those reads is a system call that gives up the GIL, and with a server's other sessions busy
        taking it back costs up to the interpreter's switch interval (5 ms): per line of a 100-line paste,
        most of the server's time in a 64-switch push. What this session writes meanwhile is still seen."""
        self._steady_faults = SessionFaults.load(self.ctx.state_dir)
        try:
            with self._steady():
                yield
        finally:
            self._steady_faults = None

    def _steady(self) -> contextlib.AbstractContextManager[None]:
        """The platform's part of ``steady()`` (nothing by default)."""
        return contextlib.nullcontext()

    def session_faults(self) -> SessionFaults:
        """The session faults for the command at hand."""
        return self._steady_faults if self._steady_faults is not None else SessionFaults.load(self.ctx.state_dir)

    @abstractmethod
    def banner(self) -> str:
        """Text sent when the interactive session opens (may be empty)."""

    @abstractmethod
    def prompt(self) -> str:
        """The prompt for the current mode, exactly as the real NOS prints it."""

    @abstractmethod
    def handle(self, line: str) -> Reply:
        """Run one line typed at the prompt."""

    def close(self) -> None:  # noqa: B027 (optional hook, empty on purpose)
        """The SSH session ended (closed or dropped): persist whatever must outlive it."""

    def execute(self, command: str) -> Reply:
        """An SSH exec request (``ssh host 'show version'``): one command, no terminal, then the channel
        closes. Platforms override it for what differs without a terminal (line ends, privilege level)."""
        return self.step(command)

    def step(self, line: str) -> Reply:
        """What the SSH server calls: session faults first, then the platform's ``handle``."""
        faults = self.session_faults()
        self.counters.commands += 1
        if faults.delay_ms:
            time.sleep(faults.delay_ms / 1000)
        if faults.drop_after is not None and self.counters.commands > faults.drop_after:
            return Reply(close=True)
        return self.handle(line)

    def reject_this_config_command(self) -> bool:
        """Count a configuration command; True if the reject_nth fault says to refuse it."""
        self.counters.config_commands += 1
        faults = self.session_faults()
        return faults.reject_nth is not None and self.counters.config_commands == faults.reject_nth
