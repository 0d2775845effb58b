"""Start, check and stop the lab's processes, each by PID and never by name.

Every process is started in the foreground of its own session (``start_new_session``), inside its
device's namespace through ``ip netns exec`` (which execs, so the PID is the daemon's own), with its
output in a log file. Its identity is (PID, start time): :func:`alive` and :func:`stop` check both,
so a PID the kernel has reused for something else is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xoff.lab import netns
from xoff.lab.state import ProcessRecord

STOP_TIMEOUT_S = 5.0
POLL_S = 0.02


class LabProcessError(RuntimeError):
    """A lab process did not start or did not become ready in time."""


@dataclass(frozen=True)
class ProcessSpec:
    key: str
    role: str
    device: str | None
    netns: str | None
    argv: list[str]
    log: Path
    env: Mapping[str, str] | None = None  # the whole environment (default: this process's)
    cwd: Path | None = None
    ready_file: Path | None = None  # ready once this exists (a socket, a pid file)
    ready_text: tuple[Path, str] | None = None  # ... or once this log file shows this text (new since start)
    stale: tuple[Path, ...] = ()  # files of an earlier run removed before starting (sockets, pid files)


def shard_servers(lab_dir: Path, role: str, module: str, count: int, ready: str) -> list[ProcessSpec]:
    """``count`` processes of ``python -m module`` in the root namespace, process ``i`` serving the lab's ``i/count``
    shard (``--shard``); each ready once its log shows ``ready``."""
    return [
        ProcessSpec(
            key=f"lab/{role}/{i}",
            role=role,
            device=None,
            netns=None,
            argv=[sys.executable, "-m", module, "--lab-dir", str(lab_dir), "--shard", f"{i}/{count}"],
            log=lab_dir / f"{role}-{i}.log",
            ready_text=(lab_dir / f"{role}-{i}.log", ready),
        )
        for i in range(count)
    ]


def size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def is_ready(spec: ProcessSpec, offset: int) -> bool:
    """``offset``: the size of the ``ready_text`` log when the process started (earlier runs' lines do not count)."""
    if spec.ready_file is not None and not spec.ready_file.exists():
        return False
    if spec.ready_text is not None:
        path, text = spec.ready_text
        try:
            with path.open("rb") as f:
                f.seek(offset)
                return text.encode() in f.read()
        except FileNotFoundError:
            return False
    return True


def start_ticks(pid: int) -> int | None:
    """Field 22 of /proc/<pid>/stat (start time in clock ticks), or None if the PID is gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = raw[raw.rindex(")") + 2 :].split()  # the name in parentheses may hold blanks
    if fields[0] in {"Z", "X"}:
        return None
    return int(fields[19])


def alive(record: ProcessRecord) -> bool:
    return start_ticks(record.pid) == record.start_ticks


def start(spec: ProcessSpec) -> ProcessRecord:
    spec.log.parent.mkdir(parents=True, exist_ok=True)
    for path in spec.stale:
        path.unlink(missing_ok=True)
    argv = ["ip", "netns", "exec", spec.netns, *spec.argv] if spec.netns else list(spec.argv)
    env = dict(spec.env if spec.env is not None else os.environ)
    with spec.log.open("ab") as out:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=spec.cwd,
            start_new_session=True,
        )
    ticks = start_ticks(proc.pid)
    if ticks is None:
        proc.wait(timeout=STOP_TIMEOUT_S)
        raise LabProcessError(f"{spec.key}: exited at once (status {proc.returncode}); see {spec.log}")
    return ProcessRecord(
        key=spec.key,
        role=spec.role,
        device=spec.device,
        netns=spec.netns,
        pid=proc.pid,
        start_ticks=ticks,
        argv=spec.argv,
        log=str(spec.log),
        started_at=time.time(),
    )


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (a lab run in-process, e.g. by tests)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _signal(pid: int, ticks: int | None, sig: signal.Signals) -> None:
    if ticks is not None and start_ticks(pid) == ticks:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def stop_pids(targets: Sequence[tuple[int, int | None]], timeout: float = STOP_TIMEOUT_S) -> list[int]:
    """SIGTERM every (pid, start ticks), wait up to ``timeout`` for all, SIGKILL the rest; returns the
    PIDs still alive after that (none, normally)."""
    live = [(pid, ticks) for pid, ticks in targets if ticks is not None and start_ticks(pid) == ticks]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid, ticks in live:
            _signal(pid, ticks, sig)
        live = _still_running(live, timeout)
    return [pid for pid, _ in live]


def _still_running(live: list[tuple[int, int]], timeout: float) -> list[tuple[int, int]]:
    """Of ``live`` (pid, start ticks), those still running after up to ``timeout`` (children reaped meanwhile)."""
    deadline = time.monotonic() + timeout
    while live and time.monotonic() < deadline:
        for pid, _ in live:
            _reap(pid)
        live = [(pid, ticks) for pid, ticks in live if start_ticks(pid) == ticks]
        if live:
            time.sleep(POLL_S)
    return live


def stop(records: Sequence[ProcessRecord], timeout: float = STOP_TIMEOUT_S) -> list[int]:
    return stop_pids([(r.pid, r.start_ticks) for r in records], timeout)


def stop_namespace(name: str, timeout: float = STOP_TIMEOUT_S) -> list[int]:
    """End every process still inside a lab namespace (SSH sessions' children, lldpd's privsep child)."""
    return stop_pids([(pid, start_ticks(pid)) for pid in netns.pids(name)], timeout)


def wait_for(what: str, ready: Callable[[], bool], timeout: float, records: Sequence[ProcessRecord] = ()) -> None:
    """Poll ``ready`` until true; fail after ``timeout`` or as soon as one of ``records`` has died."""
    deadline = time.monotonic() + timeout
    while not ready():
        dead = [r for r in records if not alive(r)]
        if dead:
            raise LabProcessError(f"{what}: {dead[0].key} (PID {dead[0].pid}) exited; see {dead[0].log}")
        if time.monotonic() > deadline:
            raise LabProcessError(f"{what}: not ready after {timeout:.0f} s")
        time.sleep(POLL_S * 2)
