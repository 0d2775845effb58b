"""One NIC tool call as the shim server runs it: the caller's process set up (namespaces, directory, umask,
stdio, environment, arguments) and the tool's ``cli()`` run as a new ``python -S`` interpreter would run it.

Shared by the server's forked child (one call, then it ends) and its reused workers (``workers.py``: one
call after another in the same namespaces), so that both run a call the same way.
"""

from __future__ import annotations

import ctypes
import io
import os
import signal
import sys
import traceback
from dataclasses import dataclass

from xoff.exitcodes import status_of_exit

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
PACKAGE = "xoff.lab.shims"
_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Call:
    module: str
    args: list[str]
    env: dict[str, str]
    encoding: str
    errors: str
    umask: int


def setns(fd: int, kind: int) -> None:
    if _libc.setns(fd, kind) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def enter_namespaces(net: int, mnt: int) -> None:
    """The caller's network and mount namespaces (``/proc/<pid>/ns/{net,mnt}`` descriptors)."""
    setns(net, CLONE_NEWNET)
    setns(mnt, CLONE_NEWNS)


def default_signals() -> None:
    """A tool's process starts with the default dispositions (the server's handlers are its own)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stream(fd: int, write: bool, encoding: str, errors: str) -> io.TextIOWrapper:
    """A standard stream as the interpreter makes it: buffered, line-buffered on a terminal (stderr always)."""
    raw = open(fd, "wb" if write else "rb", buffering=-1, closefd=False)  # noqa: SIM115 - the process's own stream
    return io.TextIOWrapper(
        raw, encoding=encoding, errors=errors, newline="\n", line_buffering=os.isatty(fd) or fd == 2
    )


def become_caller(stdio: tuple[int, int, int], cwd: int, call: Call) -> None:
    """The caller's working directory, umask, stdio (on 0, 1, 2), environment and arguments."""
    os.fchdir(cwd)
    os.umask(call.umask)
    for fd, target in zip(stdio, (0, 1, 2), strict=True):
        os.dup2(fd, target)
    os.environ.clear()
    os.environ.update(call.env)
    sys.argv = ["-c", *call.args]
    sys.stdin = _stream(0, False, call.encoding, call.errors)
    sys.stdout = _stream(1, True, call.encoding, call.errors)
    sys.stderr = _stream(2, True, call.encoding, "backslashreplace")


def run_tool(call: Call) -> tuple[int, bool]:
    """Run the tool's ``cli()``: its exit status as the interpreter's, and whether it ended by itself (an
    exception it did not handle is a traceback and status 1, as the interpreter gives)."""
    clean = True
    try:
        sys.modules[f"{PACKAGE}.{call.module}"].cli()
        status = 0
    except SystemExit as exc:
        status = status_of_exit(exc.code)
    except BaseException:  # as the interpreter: the traceback on stderr, status 1
        traceback.print_exc()
        status, clean = 1, False
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the interpreter's exit: an unflushable stdout is status 120
            status = 120
    return status, clean
