"""The shim server's reused workers: one process per caller's namespaces (a lab host's) that runs call
after call, instead of a fork per call.

A forked child per call costs the fork, the copy-on-write faults of a child that touches the interpreter's
pages, and its exit: ~3-4 ms of CPU per call against ~1 ms of the tool's own work, ~500 calls per collect
of a 64-device lab. A worker is forked once for a pair of network and mount namespaces, enters them, and
then takes calls from the server over a ``SOCK_SEQPACKET`` pair: per call the client's connection, its
stdin, stdout and stderr and its working directory (``SCM_RIGHTS``) and the call (``call.Call``,
pickled). It runs each as the forked child does (``call.become_caller``, ``call.run_tool``), puts
``/dev/null`` back on its 0, 1 and 2 (so the caller's pipes see their end when the client exits), sends the
exit status to the client, having said ``I`` (idle) to the server just before.

A worker is not reused after a call that could have left something behind: an exception the tool did
not handle, a thread still running, a file descriptor left open, or ``MAX_CALLS`` calls; it then ends,
and the next call gets a new one. The shims keep no state in their modules (constants only; the host's
state is its files), so a call in a reused worker sees what a new process sees. It ends with the server
(``PR_SET_PDEATHSIG``) and when the server closes its end (idle ``IDLE_S``, or the server ending).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import selectors
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from xoff.lab.shims.call import Call, become_caller, default_signals, enter_namespaces, run_tool

PER_KEY = 2  # workers per pair of namespaces (a host's batch runs its tools one after the other)
MAX_WORKERS = 64  # ~4 MB of private memory each; a caller through `ip netns exec` has a mount namespace of its own
IDLE_S = 60.0  # an idle worker ends after this long (the server closes its end)
MAX_CALLS = 1000
MAX_MESSAGE = 128 * 1024  # a call whose pickle is larger goes to a forked child
PR_SET_PDEATHSIG = 1
NFDS = 5  # connection, stdin, stdout, stderr, working directory
IDLE = b"I"
_libc = ctypes.CDLL(None, use_errno=True)

Key = tuple[int, int, int, int]


def namespace_key(net: int, mnt: int) -> Key:
    """Which namespaces the descriptors name (nsfs device and inode of each)."""
    a, b = os.fstat(net), os.fstat(mnt)
    return a.st_dev, a.st_ino, b.st_dev, b.st_ino


@dataclass
class Worker:
    pid: int
    ctrl: socket.socket
    key: Key
    busy: bool = True
    idle_since: float = field(default_factory=time.monotonic)


class Pool:
    """The server's workers, registered with its selector (their ``ctrl`` sockets, data: the Worker)."""

    def __init__(self, selector: selectors.BaseSelector, keep_out: list[socket.socket]) -> None:
        self.selector = selector
        self.keep_out = keep_out  # the server's own sockets, closed in a new worker
        self.workers: list[Worker] = []

    def run(self, conn: socket.socket, fds: list[int], call: Call) -> bool:
        """Hand the call (the server's six descriptors: stdin, stdout, stderr, net, mnt, cwd) to a worker
        of its namespaces; False when none can take it (nothing ran: the server forks a child for it)."""
        payload = pickle.dumps(call)
        if len(payload) > MAX_MESSAGE:
            return False
        key = namespace_key(fds[3], fds[4])
        for worker in [w for w in self.workers if w.key == key and w.busy]:
            self._heard(worker)  # an ``I`` already sent: the caller's previous call is over
        idle = next((w for w in self.workers if w.key == key and not w.busy), None)
        if idle is not None:
            try:
                socket.send_fds(idle.ctrl, [payload], [conn.fileno(), fds[0], fds[1], fds[2], fds[5]])
            except OSError:  # it ended meanwhile: nothing ran
                self.drop(idle)
                return False
            idle.busy = True
            return True
        if sum(1 for w in self.workers if w.key == key) >= PER_KEY:
            return False
        if len(self.workers) >= MAX_WORKERS:  # room for this host's: the longest idle ends, if one is idle
            idle_ones = sorted((w for w in self.workers if not w.busy), key=lambda w: w.idle_since)
            if not idle_ones:
                return False
            self.drop(idle_ones[0])
        self._spawn(conn, fds, call, key)
        return True

    def _spawn(self, conn: socket.socket, fds: list[int], call: Call, key: Key) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker: nothing of the server's but this call and its own end
            try:
                self.selector.close()
                for sock in [*self.keep_out, ours, *(w.ctrl for w in self.workers)]:
                    sock.close()
                _worker(theirs, parent, conn, fds, call)
            finally:
                os._exit(0)
        theirs.close()
        worker = Worker(pid, ours, key)
        self.workers.append(worker)
        self.selector.register(ours, selectors.EVENT_READ, worker)

    def ready(self, worker: Worker) -> None:
        """The worker said something: idle again, or (end of file) it ended. Or nothing any more: ``run`` read its
        ``I`` after the selector saw it (so never a blocking read here)."""
        self._heard(worker)

    def _heard(self, worker: Worker) -> None:
        try:
            said = worker.ctrl.recv(16, socket.MSG_DONTWAIT)
        except BlockingIOError:  # nothing said yet: still busy
            return
        except OSError:
            said = b""
        if said == IDLE:
            worker.busy, worker.idle_since = False, time.monotonic()
        else:
            self.drop(worker)

    def drop(self, worker: Worker) -> None:
        """Forget the worker; closing its end ends it when idle (the server's SIGCHLD handler reaps it)."""
        self.selector.unregister(worker.ctrl)
        worker.ctrl.close()
        self.workers.remove(worker)

    def retire_idle(self, now: float) -> None:
        for worker in [w for w in self.workers if not w.busy and now - w.idle_since > IDLE_S]:
            self.drop(worker)


def _release_stdio() -> None:
    """``/dev/null`` on 0, 1 and 2 again: the worker holds none of the caller's pipes between calls."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__


def _open_fds() -> set[str]:
    """The open descriptors, without the one the listing itself used (closed once listed; its number depends on
    which were free)."""
    return {fd.name for fd in Path("/proc/self/fd").iterdir() if _is_open(int(fd.name))}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _one(conn: socket.socket, stdio: tuple[int, int, int], cwd: int, call: Call, idle: Idle) -> bool:
    """Run one call; whether the worker may take another. When it may, the server hears ``I`` before the caller
    hears the exit status: a caller's next call then always finds this worker idle (the server reads a pending
    ``I`` before it chooses), not a second one forked beside it."""
    reply, reusable = b"F", False  # ``F``: nothing of the tool ran, the client runs it (and this worker ends)
    try:
        try:
            become_caller(stdio, cwd, call)
            status, clean = run_tool(call)
            reply = b"X" + bytes([status])
        finally:
            for fd in {*stdio, cwd} - {0, 1, 2}:
                os.close(fd)
            _release_stdio()
        threads = sys.modules.get("threading")
        reusable = clean and (threads is None or threads.active_count() == 1) and idle.left_clean(conn)
        if reusable:
            idle.say()
        conn.sendall(reply)
    except OSError:  # set-up failed (``F`` said), or the client or the server went away: this call is over
        reusable = False
        with contextlib.suppress(OSError):
            conn.sendall(reply)
    finally:
        conn.close()
    return reusable


class Idle:
    """A worker's ``I`` to the server, said only while nothing is left open but what the first call left (the
    baseline, taken after it: modules a tool imports may keep a descriptor) and the caller's connection, and
    fewer than ``MAX_CALLS`` calls were taken."""

    def __init__(self, ctrl: socket.socket) -> None:
        self.ctrl, self.calls = ctrl, 0
        self.baseline: set[str] | None = None

    def left_clean(self, conn: socket.socket) -> bool:
        self.calls += 1
        now = _open_fds() - {str(conn.fileno())}
        if self.baseline is None:
            self.baseline = now
        return now == self.baseline and self.calls < MAX_CALLS

    def say(self) -> None:
        self.ctrl.sendall(IDLE)


def _worker(ctrl: socket.socket, parent: int, conn: socket.socket, fds: list[int], call: Call) -> None:
    """The worker's life: the first call's namespaces, that call, then each call the server sends."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # ends with the server
    if os.getppid() != parent:  # the server ended before prctl took
        return
    default_signals()
    enter_namespaces(fds[3], fds[4])
    for fd in (fds[3], fds[4]):
        os.close(fd)
    idle = Idle(ctrl)
    reusable = _one(conn, (fds[0], fds[1], fds[2]), fds[5], call, idle)
    while reusable:
        message, got, _flags, _addr = socket.recv_fds(ctrl, MAX_MESSAGE + 1024, NFDS)
        if not message or len(got) != NFDS:  # the server closed its end (or sent nonsense): end
            return
        conn = socket.socket(fileno=got[0])
        reusable = _one(conn, (got[1], got[2], got[3]), got[4], pickle.loads(message), idle)
