"""The run store: one JSON record per push (or rollback) run, ``<backup dir>/<run id>/run.json``.

Written atomically (a temporary file in the same directory, then ``os.replace``) when the run starts
(status ``running``, the devices it targets with no outcome yet) and when it ends (``done``: each
device's outcome, batch, backup file and masked error). Every push writes it: both engines, dry runs,
sharded runs (they go through the same ``api.run_push``), and rollbacks (``rollback_of`` names the run
they undo). The record holds no secret: every error is masked again with the run's secrets, and the
options kept are the ones that say what the run did (limit, canary, batches, dry run), never a
credential or a secrets file's content.

A record still ``running`` whose process is gone (the pid on this host no longer alive) reads back as
``interrupted``: the run died before it could write its end (a kill, a crash, a lost controller).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xoff.connect.credentials import mask

if TYPE_CHECKING:
    from xoff.connect.targets import Target
    from xoff.push.model import PushSummary

RUN_FILE = "run.json"
FORMAT = 1
RUNNING, DONE, INTERRUPTED = "running", "done", "interrupted"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@dataclass
class RunDevice:
    name: str
    platform: str
    outcome: str | None = None  # None: not finished (running, or the run was interrupted)
    batch: int = 0
    backup: str | None = None
    changes: int = 0
    error: str | None = None  # masked, one line


@dataclass
class RunRecord:
    run_id: str
    kind: str = "push"  # push | rollback
    status: str = RUNNING  # running | done | interrupted (read back only)
    started: str = field(default_factory=_now)
    ended: str | None = None
    fabric: str = ""
    intent: str | None = None  # absolute path of the intent file or directory
    intent_sha256: str | None = None
    engine: str = "nornir"
    options: dict[str, Any] = field(default_factory=dict)  # limit, canary, batch_size, max_failures, dry_run, lab
    devices: list[RunDevice] = field(default_factory=list)
    rollback_of: str | None = None
    exit_status: int | None = None
    pid: int = field(default_factory=os.getpid)
    pid_started: str | None = field(default_factory=lambda: _start_time(os.getpid()))  # tells a reused pid
    host: str = field(default_factory=socket.gethostname)
    format: int = FORMAT

    def device(self, name: str) -> RunDevice | None:
        return next((d for d in self.devices if d.name == name), None)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.devices:
            key = d.outcome or "unfinished"
            out[key] = out.get(key, 0) + 1
        return out

    def failed(self) -> list[str]:
        return [d.name for d in self.devices if d.outcome in ("failed", "rollback_failed", "rolled_back")]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        devices = [
            RunDevice(**{k: v for k, v in d.items() if k in RunDevice.__dataclass_fields__}) for d in data["devices"]
        ]
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "devices"}
        return cls(**fields, devices=devices)


def run_dir(root: Path, run_id: str) -> Path:
    return root / run_id


def claim(root: Path, run_id: str) -> str:
    """A run id no earlier run in ``root`` used (``<id>``, else ``<id>-2``, ...), its directory made
    (0700) so a second run in the same second cannot take it."""
    root.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        candidate = run_id if n == 1 else f"{run_id}-{n}"
        try:
            run_dir(root, candidate).mkdir(mode=0o700)
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"{root}: no free run id for {run_id}")


def write(root: Path, record: RunRecord, secrets: Iterable[str] = ()) -> Path:
    """Write the record atomically (0600), every error masked with ``secrets``."""
    secrets = list(secrets)
    for d in record.devices:
        if d.error is not None:
            d.error = mask(d.error, secrets)
    directory = run_dir(root, record.run_id)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / RUN_FILE
    tmp = directory / f".{RUN_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(mask(json.dumps(record.to_json(), indent=2, sort_keys=True), secrets) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return path


def _start_time(pid: int) -> str | None:
    """When the process started, in clock ticks since boot (``/proc/PID/stat`` field 22); None: unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 else None


def _alive(pid: int, started: str | None) -> bool:
    """The run's process still lives: the pid exists and, where known, started when the run's did (a pid
    the system gave to another process since is not the run)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: it exists
    now = _start_time(pid)
    return started is None or now is None or now == started


def _settle(record: RunRecord) -> RunRecord:
    """A record still ``running`` whose process on this host is gone: ``interrupted``."""
    if record.status == RUNNING and record.host == socket.gethostname() and not _alive(record.pid, record.pid_started):
        record.status = INTERRUPTED
    return record


def read(root: Path, run_id: str) -> RunRecord:
    """One run's record (KeyError: no such run; ValueError: not a run record)."""
    path = run_dir(root, run_id) / RUN_FILE
    if "/" in run_id or run_id in ("", ".", "..") or not path.is_file():
        raise KeyError(run_id)
    try:
        return _settle(RunRecord.from_json(json.loads(path.read_text(encoding="utf-8"))))
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path}: not a run record ({exc})") from None


def runs(root: Path) -> list[RunRecord]:
    """Every run recorded under ``root``, newest first (a directory without a record is no run: backups older
    than the run store; one whose record cannot be read is listed by ``unreadable``)."""
    found: list[RunRecord] = []
    if not root.is_dir():
        return found
    for d in root.iterdir():
        with contextlib.suppress(KeyError, ValueError, OSError):
            found.append(read(root, d.name))
    return sorted(found, key=lambda r: (r.started, r.run_id), reverse=True)


def unreadable(root: Path) -> list[str]:
    """The run directories under ``root`` whose record exists but cannot be read, each with the reason, sorted."""
    out: list[str] = []
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        if not (d / RUN_FILE).is_file():
            continue
        try:
            read(root, d.name)
        except KeyError:
            continue
        except (ValueError, OSError) as exc:
            out.append(str(exc))
    return out


def begin(root: Path, record: RunRecord, targets: Iterable[Target], secrets: Iterable[str]) -> Path:
    """The record as the run starts: ``running``, every targeted device with no outcome yet."""
    record.status, record.pid, record.host = RUNNING, os.getpid(), socket.gethostname()
    record.pid_started = _start_time(record.pid)
    record.devices = [RunDevice(t.name, t.platform) for t in targets]
    return write(root, record, secrets)


def finish(root: Path, record: RunRecord, summary: PushSummary, secrets: Iterable[str]) -> Path:
    """The record as the run ends: each device's outcome, batch, backup and masked error."""
    by_name = {r.device: r for r in summary.results}
    for d in record.devices:
        result = by_name.get(d.name)
        if result is not None:
            d.outcome, d.batch, d.backup = result.outcome.value, result.batch, result.backup
            d.changes, d.error = result.changes, result.error
    record.devices += [
        RunDevice(r.device, r.platform, r.outcome.value, r.batch, r.backup, r.changes, r.error)
        for r in summary.results
        if record.device(r.device) is None
    ]
    record.status, record.ended, record.exit_status = DONE, _now(), int(summary.exit_status)
    record.engine = summary.engine
    return write(root, record, secrets)


def interrupt(root: Path, record: RunRecord, secrets: Iterable[str]) -> Path:
    """The run stopped before its end (an exception, ^C): ``interrupted``, the outcomes it had unknown."""
    record.status, record.ended = INTERRUPTED, _now()
    return write(root, record, secrets)
