"""The lab's shim server: one warm interpreter per lab that runs the hosts' NIC tool calls.

``python -S -m xoff.lab.shims.server --socket PATH [--netns NAME]`` imports every shim module once, listens
on a UNIX socket (mode 0600; only callers with its own user id are served) and, per connection from the
shim client (``client.py``), reads one request and hands it to a worker of the caller's namespaces
(``workers.py``: forked once per host, reused call after call) or, when none is free, forks a child for
it. Either enters the caller's network and mount namespaces and working directory, takes the caller's
stdin, stdout and stderr as its own, the caller's environment and arguments, and runs the tool's
``cli()`` as the interpreter a wrapper starts would (``call.py``): the same module, ``sys.argv`` as ``-c``
gives it, stdio encoding, error handler and buffering as a new interpreter picks them from the
environment. It sends the exit status back; the server reaps what ends (so the CPU of ended workers and
children is the server's, in ``/proc/<pid>/stat``'s children columns; a live worker's is its own).

The server ends on SIGTERM (``lab down``), and by itself when its lab is gone without ``lab down``: its
socket file removed or replaced (the lab's directory deleted) or, with ``--netns``, that namespace
deleted. Its workers end with it.

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
import gc
import importlib
import os
import selectors
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from xoff.lab.shims import TOOLS
from xoff.lab.shims.call import PACKAGE, Call, become_caller, default_signals, enter_namespaces, run_tool
from xoff.lab.shims.workers import Pool, Worker

READY = "xoff lab shim server: listening"
NFDS = 6
MAX_REQUEST = 1 << 20
REQUEST_TIMEOUT_S = 10.0
MODULES = frozenset(TOOLS.values())
WATCH_S = 1.0  # how often the server looks whether its lab is still there
NETNS_DIR = Path("/run/netns")
SRC = str(Path(__file__).resolve().parents[3])  # the directory holding the xoff package (the wrappers' PYTHONPATH)


class RefusedError(Exception):
    """A request the server does not run (the client runs the interpreter itself)."""


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


def _child(conn: socket.socket, fds: list[int], call: Call) -> None:
    """In the forked child: become the caller's tool process, run the tool, send its status, end.
    If it cannot become the caller, nothing of the tool has run: ``F``, the client runs it."""
    reply = b"F"
    try:
        default_signals()
        stdin, stdout, stderr, net, mnt, cwd = fds
        enter_namespaces(net, mnt)
        become_caller((stdin, stdout, stderr), cwd, call)
        for fd in set(fds) - {0, 1, 2}:
            os.close(fd)
        status, _clean = run_tool(call)
        reply = b"X" + bytes([status])
    finally:
        try:
            conn.sendall(reply)
        finally:
            os._exit(0)


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


def serve_one(conn: socket.socket, listener: socket.socket, pool: Pool | None = None) -> None:
    """One call: refuse it (``F``), hand it to a worker of the caller's namespaces, or fork the child that runs it."""
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
        if pool is not None and pool.run(conn, fds, call):
            return
        if os.fork() == 0:  # no worker free for it: a child of its own
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


def _gone(path: Path, bound: int, netns: str | None) -> str | None:
    """Why the lab is gone (its socket file removed or replaced, its namespace deleted), or None."""
    try:
        if path.stat().st_ino != bound:
            return f"{path} is another file now"
    except OSError:
        return f"{path} is gone"
    if netns is not None:
        try:
            if (NETNS_DIR / netns).stat().st_ino != Path("/proc/self/ns/net").stat().st_ino:
                return f"namespace {netns} is another one now"
        except OSError:
            return f"namespace {netns} is gone"
    return None


def serve(path: Path, netns: str | None = None) -> None:
    """Serve until SIGTERM, or until the lab is gone without ``lab down`` (``_gone``, checked every
    ``WATCH_S``): a lab directory deleted or a namespace removed leaves no server behind."""
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
    bound = path.stat().st_ino
    listener.listen(128)
    signal.signal(signal.SIGCHLD, _reap)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    pool = Pool(selector, [listener])
    print(f"{READY} on {path}", flush=True)
    while True:
        for key, _events in selector.select(WATCH_S):
            if isinstance(key.data, Worker):
                pool.ready(key.data)
                continue
            conn, _ = listener.accept()
            try:
                serve_one(conn, listener, pool)
            except (OSError, ValueError, RefusedError) as exc:  # one bad call; the server goes on
                print(f"xoff lab shim server: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            finally:
                conn.close()
        why = _gone(path, bound, netns)
        if why is not None:
            print(f"xoff lab shim server: ending, the lab is gone ({why})", flush=True)
            return
        pool.retire_idle(time.monotonic())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xoff.lab.shims.server", description=__doc__.split("\n")[0])
    parser.add_argument("--socket", required=True, type=Path)
    parser.add_argument("--netns", help="the lab's namespace it runs in: it ends when that is deleted")
    args = parser.parse_args(argv)
    serve(args.socket, args.netns)


if __name__ == "__main__":
    main()
