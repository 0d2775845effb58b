"""One push per fabric at a time: an exclusive ``flock`` on a lock file that names its holder.

The lock dies with its process (the kernel drops a flock when the file closes), so a crashed push
never leaves a stale lock behind; the holder line is only for the message the second push prints.
"""

from __future__ import annotations

import fcntl
import getpass
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_DIR_ENV = "XOFF_LOCK_DIR"
DEFAULT_LOCK_DIR = Path("/tmp/xoff-locks")


class LockedError(Exception):
    """Another push holds the fabric's lock; the message names it."""


def lock_path(fabric: str, lab_dir: Path | None = None) -> Path:
    if lab_dir is not None:
        return lab_dir / "push.lock"
    root = Path(os.environ.get(LOCK_DIR_ENV) or DEFAULT_LOCK_DIR)
    return root / f"{fabric}.lock"


@contextmanager
def fabric_lock(path: Path, what: str) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    with os.fdopen(fd, "r+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = handle.read().strip() or "another process"
            raise LockedError(f"{what}: another push holds {path} ({holder})") from None
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}, user {getpass.getuser()}, host {socket.gethostname()}, since {stamp}\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
