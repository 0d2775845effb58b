"""One push per failure domain at a time: an exclusive ``flock`` on a lock file per pod that names its holder.

A push takes the lock of every pod its devices are in (``xoff.desired.domains``; devices in no pod, such as
super-spines or a fabric without pods, share the fabric's lock), in sorted order, all or none: two pushes to
different pods run at once, two touching one pod do not (the second names the holder). Locks always go by pod,
whatever ``--canary-by`` says, so every push agrees on what it locks.

The lock dies with its process (the kernel drops a flock when the file closes), so a crashed push
never leaves a stale lock behind; the holder line is only for the message the second push prints.
"""

from __future__ import annotations

import fcntl
import getpass
import os
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Literal

from xoff.desired.domains import NO_DOMAIN, domains
from xoff.desired.models import FabricState

LOCK_DIR_ENV = "XOFF_LOCK_DIR"
DEFAULT_LOCK_DIR = Path("/tmp/xoff-locks")


class LockedError(Exception):
    """Another push holds the fabric's lock; the message names it."""


LOCK_KIND: Literal["pod"] = "pod"  # the failure domain locks go by


def lock_path(fabric: str, lab_dir: Path | None = None, domain: str = NO_DOMAIN) -> Path:
    """The lock file of one of the fabric's pods (``-``: the devices in no pod)."""
    suffix = "" if domain == NO_DOMAIN else f".{domain}"
    if lab_dir is not None:
        return lab_dir / f"push{suffix}.lock"
    root = Path(os.environ.get(LOCK_DIR_ENV) or DEFAULT_LOCK_DIR)
    return root / f"{fabric}{suffix}.lock"


def lock_paths(fabric: str, lab_dir: Path | None, domains: Iterable[str]) -> tuple[Path, ...]:
    """The lock files of these domains, sorted (every push takes them in the same order)."""
    return tuple(sorted({lock_path(fabric, lab_dir, d) for d in domains}))


def locks_for(state: FabricState, devices: Iterable[str], lab_dir: Path | None = None) -> tuple[Path, ...]:
    """The lock files a push to ``devices`` takes: one per pod they are in."""
    pods = domains(state, LOCK_KIND)
    return lock_paths(state.fabric, lab_dir, (pods[name] for name in devices))


@contextmanager
def domain_locks(paths: Iterable[Path], what: str) -> Iterator[None]:
    """Hold every lock of ``paths`` (in sorted order), or none: the first one held elsewhere raises."""
    with ExitStack() as stack:
        for path in sorted(paths):
            stack.enter_context(fabric_lock(path, what))
        yield


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
