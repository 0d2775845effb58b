"""What outlives an SSH session: ``<state_dir>/running-config``, ``startup-config``, ``sessions.json``
(configuration sessions, with the persisted commit-timer deadline), ``files/mnt/flash/`` (EOS's
``flash:``, where SCP to ``/mnt/flash`` puts files for ``configure replace flash:NAME``) and ``boot-time``.

Every session of a device reads and writes these under one lock (``flock`` on ``.lock``), so two
SSH sessions see one device. The parsed running-config is cached by file identity and mtime, and
parsed texts are shared between sessions (each session opens its own store).
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from xoff.lab.emulators.eos import commands, defaults
from xoff.lab.emulators.eos.model import Interface, RunningConfig, render

RUNNING = "running-config"
STARTUP = "startup-config"
SESSIONS = "sessions.json"
FILES = "files"  # the root SFTP/SCP write under (xoff.lab.sshd): /mnt/flash/x lands in files/mnt/flash/x
FLASH = f"{FILES}/mnt/flash"  # EOS's flash: file system
BOOT = "boot-time"
LOCK = ".lock"

MODEL = "cEOSLab"
VERSION = "4.32.2F"


class ConfigRefusedError(Exception):
    """A configuration file with lines EOS would refuse; ``errors`` holds them in EOS's form."""

    def __init__(self, errors: list[commands.LoadError]) -> None:
        self.errors = errors
        super().__init__("\n".join(e.eos() for e in errors))


def header(hostname: str, command: str = "show running-config") -> str:
    return f"! Command: {command}\n! device: {hostname} ({MODEL}, EOS-{VERSION})\n"


def blank(current: RunningConfig | None = None, hostname: str = "localhost") -> RunningConfig:
    """Nothing configured at all, but the physical ports (Ethernet, Management) still exist: the base a
    whole running-config text is read onto."""
    return _blank(_physical(current), hostname)


def _physical(current: RunningConfig | None) -> tuple[str, ...]:
    return tuple(n for n, i in (current.interfaces if current is not None else {}).items() if i.kind != "Loopback")


def copied(cfg: RunningConfig) -> RunningConfig:
    """A deep copy of a configuration (plain data: dataclasses, dicts, lists, strings, numbers), by a pickle round
    trip: the same copy as ``copy.deepcopy`` at a third of its CPU (~50 vs ~170 us for a switch's
    running-config), and a session's commit makes several."""
    copy: RunningConfig = pickle.loads(pickle.dumps(cfg, pickle.HIGHEST_PROTOCOL))
    return copy


def _blank(ports: tuple[str, ...], hostname: str) -> RunningConfig:
    cfg = RunningConfig(hostname=hostname)
    for name in ports:
        cfg.interfaces[name] = Interface(name)
    return cfg


def clean(current: RunningConfig | None = None, hostname: str = "localhost") -> RunningConfig:
    """EOS's clean-config (``rollback clean-config``, the base of ``configure replace``): the factory
    defaults (``defaults.CLEAN_CONFIG``) on the physical ports at their defaults."""
    return copied(_clean(_physical(current), hostname))


@functools.lru_cache(maxsize=256)
def _clean(ports: tuple[str, ...], hostname: str) -> RunningConfig:
    """``clean`` for these physical ports, shared by every session of the process: never modify it."""
    cfg, errors = commands.load(defaults.CLEAN_CONFIG, _blank(ports, hostname))
    assert not errors, errors  # the emulator's own grammar takes its factory lines
    return cfg


def parse(text: str, base: RunningConfig | None = None) -> RunningConfig:
    """A configuration file onto ``base`` (default: nothing configured), all or nothing."""
    cfg, errors = commands.load(text, copied(base) if base is not None else blank())
    if errors:
        raise ConfigRefusedError(errors)
    return cfg


_PARSED: OrderedDict[str, RunningConfig] = OrderedDict()  # running-config text -> its parsed form, newest last
_PARSED_KEPT = 256
_PARSED_LOCK = threading.Lock()  # sessions run in the SSH server's worker threads


def _parsed(text: str) -> RunningConfig:
    """``parse(text)`` shared by every session of the process: never modify the result. A text this process
    wrote (``Store.write_running``) is known without parsing it: the server boots every switch before it
    listens, and a first session would otherwise parse the factory configuration again at its first prompt."""
    with _PARSED_LOCK:
        cfg = _PARSED.get(text)
    if cfg is None:
        cfg = parse(text)
        _remember(text, cfg)
    return cfg


def _remember(text: str, cfg: RunningConfig) -> None:
    with _PARSED_LOCK:
        _PARSED[text] = cfg
        _PARSED.move_to_end(text)
        while len(_PARSED) > _PARSED_KEPT:
            _PARSED.popitem(last=False)


@dataclass
class Session:
    """A configuration session: ``pending`` (being edited), ``pendingCommitTimer`` (committed with a
    timer, rolled back to ``rollback`` at ``deadline`` unless confirmed) or ``completed``."""

    state: str
    config: str  # the session's configuration (running-config body)
    created: float
    deadline: float | None = None
    rollback: str | None = None
    completed: float | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Session:
        return cls(**data)


NO_FILE = (0, 0, 0)  # the stat key of a file that is not there


class Store:
    MAX_PENDING = 5
    MAX_COMPLETED = 1

    def __init__(self, state_dir: Path, device: str) -> None:
        self.dir = state_dir
        self.device = device
        self._cache: tuple[tuple[int, int, int], RunningConfig] | None = None
        self._sessions: tuple[tuple[int, int, int], dict[str, Session]] | None = None
        self._steady: tuple[int, set[str]] | None = None  # inside ``steady()``: its thread, the files checked
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / FLASH).mkdir(parents=True, exist_ok=True)

    # --- locking --------------------------------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        with (self.dir / LOCK).open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    @contextmanager
    def steady(self) -> Iterator[None]:
        """In this thread, each file's cached parse is checked against the disk once, at its first read
        (``EmulatorBase.steady``: the lines of one paste); this Store's own writes keep the caches current."""
        self._steady = (threading.get_ident(), set())
        try:
            yield
        finally:
            self._steady = None

    def _checked(self, name: str) -> bool:
        """Whether ``name`` was already checked in this thread's steady window (and note it is now)."""
        window = self._steady
        if window is None or window[0] != threading.get_ident():
            return False
        seen = name in window[1]
        window[1].add(name)
        return seen

    # --- running / startup ----------------------------------------------------------------------

    def boot(self) -> float:
        """When the device "booted": its first use; created with the running-config."""
        path = self.dir / BOOT
        if not path.exists():
            _write(path, f"{time.time():.3f}\n")
        return float(path.read_text(encoding="utf-8"))

    def ensure(self, factory: Callable[[], tuple[RunningConfig, bool]]) -> RunningConfig | None:
        """A device without a running-config boots: from its startup-config (onto the factory's
        ports at their defaults), else the factory configuration (``factory()``: the configuration,
        and whether the lab has already provisioned the namespace with it). What the namespace must
        now be made to follow, or None (already running, or booted as provisioned)."""
        with self.locked():
            self.boot()
            if (self.dir / RUNNING).exists():
                return None
            cfg, provisioned = factory()
            startup = self.dir / STARTUP
            if startup.exists():
                cfg, provisioned = parse(startup.read_text(encoding="utf-8"), blank(cfg, self.device)), False
            self.write_running(cfg)
            return None if provisioned else cfg

    def peek(self) -> RunningConfig:
        """The running configuration, shared: do not modify it (``running()`` gives a copy)."""
        if self._cache is not None and self._checked(RUNNING):
            return self._cache[1]
        path = self.dir / RUNNING
        st = path.stat()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, _parsed(path.read_text(encoding="utf-8")))
        return self._cache[1]

    def running(self) -> RunningConfig:
        return copied(self.peek())

    def running_text(self) -> str:
        return (self.dir / RUNNING).read_text(encoding="utf-8")

    def write_running(self, cfg: RunningConfig) -> None:
        """Write the running-config (and keep a copy of ``cfg`` as the parsed form: no re-reading)."""
        path = self.dir / RUNNING
        text = header(cfg.hostname) + render(cfg)
        _write(path, text)
        st = path.stat()
        kept = copied(cfg)
        self._cache = ((st.st_ino, st.st_mtime_ns, st.st_size), kept)
        _remember(text, kept)  # a new session of this device in this process reads it without parsing

    def startup_text(self) -> str | None:
        path = self.dir / STARTUP
        return path.read_text(encoding="utf-8") if path.exists() else None

    def save_startup(self) -> None:
        _write(self.dir / STARTUP, self.running_text())

    def file_for(self, url: str) -> Path | None:
        """``flash:NAME`` (or ``flash:/NAME``, or a bare ``NAME``) -> under ``files/mnt/flash/``;
        ``file:/PATH`` -> under ``files/``. None for anything else, or a path that leaves the root."""
        if url.startswith("file:"):
            rel, root = url.removeprefix("file:"), self.dir / FILES
        elif ":" in url:
            if not url.startswith("flash:"):
                return None
            rel, root = url.removeprefix("flash:"), self.dir / FLASH
        else:
            rel, root = url, self.dir / FLASH
        path = (root / rel.lstrip("/")).resolve()
        return path if rel.strip("/") and root.resolve() in path.parents else None

    # --- sessions -------------------------------------------------------------------------------

    def sessions(self) -> dict[str, Session]:
        """The sessions (copies: change them, then ``save_sessions``); parsed again only when the file changed."""
        return {name: replace(s) for name, s in self.peek_sessions().items()}

    def peek_sessions(self) -> dict[str, Session]:
        """The sessions, shared: do not modify them (``sessions()`` gives copies). Read before every command."""
        path = self.dir / SESSIONS
        if self._sessions is not None and self._checked(SESSIONS):
            return self._sessions[1]
        try:
            st = path.stat()
        except FileNotFoundError:
            self._sessions = (NO_FILE, {})
            return self._sessions[1]
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._sessions is None or self._sessions[0] != key:
            data = json.loads(path.read_text(encoding="utf-8"))
            self._sessions = (key, {name: Session.from_json(s) for name, s in data.items()})
        return self._sessions[1]

    def save_sessions(self, sessions: dict[str, Session]) -> None:
        done = sorted((s.completed or 0.0, n) for n, s in sessions.items() if s.state == "completed")
        for _, name in done[: max(0, len(done) - self.MAX_COMPLETED)]:
            del sessions[name]
        path = self.dir / SESSIONS
        _write(path, json.dumps({n: asdict(s) for n, s in sessions.items()}, indent=1) + "\n")
        st = path.stat()
        self._sessions = ((st.st_ino, st.st_mtime_ns, st.st_size), {n: replace(s) for n, s in sessions.items()})


def _write(path: Path, text: str) -> None:
    """Atomically: a reader sees the old file or the new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
