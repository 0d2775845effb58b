"""The lab's shim server: one warm interpreter per lab that runs each NIC tool call in a forked child.

``python -S -m xoff.lab.shims.server --socket PATH`` imports every shim module once, listens on a UNIX
socket (mode 0600; only callers with its own user id are served) and, per connection from the shim
client (``client.py``), reads one request and forks. The child enters the caller's network and mount
namespaces and working directory, takes the caller's stdin, stdout and stderr as its own, the caller's
environment and arguments, and runs the tool's ``cli()`` as the interpreter a wrapper starts would:
the same module, ``sys.argv`` as ``-c`` gives it, stdio encoding, error handler and buffering as a new
interpreter picks them from the environment. It sends the exit status back and ends; the server reaps
it (so the children's CPU is the server's, in ``/proc/<pid>/stat``'s children columns).

A call the server cannot run exactly as a new interpreter would (a ``PYTHON*`` variable besides the
wrapper's ``PYTHONPATH``, another ``PYTHONPATH``, a locale whose encoding is not UTF-8) is answered
``F``: nothing ran, and the client runs the interpreter itself.

Request: ``SCM_RIGHTS`` with six descriptors (stdin, stdout, stderr, ``/proc/self/ns/net``,
``/proc/self/ns/mnt``, the working directory), and the bytes: a 4-byte little-endian length, then
NUL-terminated strings: the module (a value of ``TOOLS``), the argument count, the arguments, and the
environment's ``NAME=value`` entries to the end. Reply: ``F``, or ``X`` and the exit status (one byte).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib
import io
import os
import signal
import socket
import struct
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from xoff.lab.shims import TOOLS

READY = "xoff lab shim server: listening"
NFDS = 6
MAX_REQUEST = 1 << 20
REQUEST_TIMEOUT_S = 10.0
CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MODULES = frozenset(TOOLS.values())
PACKAGE = "xoff.lab.shims"
SRC = str(Path(__file__).resolve().parents[3])  # the directory holding the xoff package (the wrappers' PYTHONPATH)
_libc = ctypes.CDLL(None, use_errno=True)


class RefusedError(Exception):
    """A request the server does not run (the client runs the interpreter itself)."""


def _setns(fd: int, kind: int) -> None:
    if _libc.setns(fd, kind) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def parse(body: bytes) -> tuple[str, list[str], dict[str, str]]:
    """The request's module, arguments and environment."""
    fields = [f.decode("utf-8", "surrogateescape") for f in body.split(b"\0")]
    if fields[-1:] != [""] or len(fields) < 3:
        raise RefusedError("malformed request")
    fields.pop()
    module, count = fields[0], int(fields[1])
    args, env_entries = fields[2 : 2 + count], fields[2 + count :]
    if module not in MODULES or len(args) != count:
        raise RefusedError(f"not a shim: {module!r}")
    env = dict(entry.split("=", 1) for entry in env_entries if "=" in entry)
    return module, args, env


def interpreter_view(env: dict[str, str]) -> tuple[dict[str, str], str, str]:
    """The environment, stdio encoding and error handler a new ``python -S`` interpreter has under ``env``
    (PEP 538: a C or POSIX locale is coerced, ``LC_CTYPE=C.UTF-8`` set in its environment; PEP 540:
    UTF-8 with surrogateescape there); RefusedError where that is not UTF-8 or a variable would change the
    interpreter."""
    if any(k.startswith("PYTHON") and k != "PYTHONPATH" for k in env) or env.get("PYTHONPATH", SRC) != SRC:
        raise RefusedError("interpreter settings in the environment")
    ctype = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or "C"
    if ctype in {"C", "POSIX"}:
        coerced = env if env.get("LC_ALL") else env | {"LC_CTYPE": "C.UTF-8"}
        return coerced, "utf-8", "surrogateescape"
    if ctype in {"C.UTF-8", "C.utf8", "UTF-8"}:
        return env, "utf-8", "surrogateescape"
    if ctype.replace("-", "").lower().endswith(".utf8"):
        return env, "utf-8", "strict"
    raise RefusedError(f"locale {ctype}")


def _umask(pid: int) -> int:
    """The caller's umask (a new interpreter inherits it; files a shim writes get it)."""
    with Path(f"/proc/{pid}/status").open(encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    raise RefusedError("no umask")


def _stream(fd: int, write: bool, encoding: str, errors: str) -> io.TextIOWrapper:
    """A standard stream as the interpreter makes it: buffered, line-buffered on a terminal (stderr always)."""
    raw = open(fd, "wb" if write else "rb", buffering=-1, closefd=False)  # noqa: SIM115 - the process's own stream
    return io.TextIOWrapper(
        raw, encoding=encoding, errors=errors, newline="\n", line_buffering=os.isatty(fd) or fd == 2
    )


def _exit_status(exc: SystemExit) -> int:
    """What the interpreter exits with for ``sys.exit(code)``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _become_caller(fds: list[int], call: Call) -> None:
    """The caller's namespaces, working directory, umask, stdio, environment and arguments."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    stdin, stdout, stderr, net, mnt, cwd = fds
    _setns(net, CLONE_NEWNET)
    _setns(mnt, CLONE_NEWNS)
    os.fchdir(cwd)
    os.umask(call.umask)
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    for fd in set(fds) - {0, 1, 2}:
        os.close(fd)
    os.environ.clear()
    os.environ.update(call.env)
    sys.argv = ["-c", *call.args]
    sys.stdin = _stream(0, False, call.encoding, call.errors)
    sys.stdout = _stream(1, True, call.encoding, call.errors)
    sys.stderr = _stream(2, True, call.encoding, "backslashreplace")


def _child(conn: socket.socket, fds: list[int], call: Call) -> None:
    """In the forked child: become the caller's tool process, run the tool, send its status, end.
    If it cannot become the caller, nothing of the tool has run: ``F``, the client runs it."""
    reply = b"F"
    try:
        _become_caller(fds, call)
        try:
            sys.modules[f"{PACKAGE}.{call.module}"].cli()
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc)
        except BaseException:  # as the interpreter: the traceback on stderr, status 1
            traceback.print_exc()
            status = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # the interpreter's exit: an unflushable stdout is status 120
                status = 120
        reply = b"X" + bytes([status])
    finally:
        try:
            conn.sendall(reply)
        finally:
            os._exit(0)


@dataclass(frozen=True)
class Call:
    module: str
    args: list[str]
    env: dict[str, str]
    encoding: str
    errors: str
    umask: int


def _body(conn: socket.socket, data: bytes) -> bytes:
    """The request's bytes after its length prefix, read to the end."""
    while len(data) < 4 or len(data) < 4 + struct.unpack("<I", data[:4])[0]:
        if len(data) >= 4 and struct.unpack("<I", data[:4])[0] > MAX_REQUEST:
            raise RefusedError("request too large")
        more = conn.recv(65536)
        if not more:
            raise RefusedError("short request")
        data += more
    return data[4:]


def serve_one(conn: socket.socket, listener: socket.socket) -> None:
    """One call: refuse it (``F``) or fork the child that runs it."""
    peer_pid, peer_uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    if peer_uid != os.getuid():
        return
    conn.settimeout(REQUEST_TIMEOUT_S)
    data, fds, _flags, _addr = socket.recv_fds(conn, 65536, NFDS)
    try:
        module, args, env = parse(_body(conn, data))
        if len(fds) != NFDS:
            raise RefusedError("file descriptors missing")
        env, encoding, errors = interpreter_view(env)
        call = Call(module, args, env, encoding, errors, _umask(peer_pid))
        if os.fork() == 0:
            listener.close()
            _child(conn, fds, call)
    except (RefusedError, OSError, ValueError) as exc:
        print(f"xoff lab shim server: not served ({exc}): the client runs it", file=sys.stderr, flush=True)
        conn.sendall(b"F")
    finally:
        for fd in fds:
            os.close(fd)


def _reap(_signum: int, _frame: object) -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(path: Path) -> None:
    for module in sorted(MODULES):  # what every call would import: once, here
        importlib.import_module(f"{PACKAGE}.{module}")
    gc.freeze()  # the imported objects out of the collector's reach: a child's collection would copy their pages
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # 0600 from the start: root's tool calls only
    try:
        listener.bind(str(path))
    finally:
        os.umask(old_mask)
    listener.listen(128)
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"{READY} on {path}", flush=True)
    while True:
        conn, _ = listener.accept()
        try:
            serve_one(conn, listener)
        except (OSError, ValueError, RefusedError) as exc:  # one bad call; the server goes on
            print(f"xoff lab shim server: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            conn.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xoff.lab.shims.server", description=__doc__.split("\n")[0])
    parser.add_argument("--socket", required=True, type=Path)
    serve(parser.parse_args(argv).socket)


if __name__ == "__main__":
    main()
