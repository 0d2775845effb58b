"""The slowest whole-fabric checks (``Check.apart``: deadlock.cbd's failure sweep) judged in this process while a
forked child judges the rest of the catalog (issue 19: at 10,000 GPUs the sweep is over half of the offline
checks, and a second core is idle). The child takes the lighter side, since what it costs (the pages it copies,
the results it pickles) comes on top of its checks.

The child is forked, so it inherits the desired state (and the snapshot) instead of receiving them pickled; it
runs the very same ``run_check`` and sends back only the ``CheckResult``, so the results are the serial ones,
finding for finding. Not on a small or a very large fabric (``MIN_LINKS``, ``MAX_LINKS``: measured), not without
fork, not when this process runs other threads (a fork copies their locks in whatever state), not without a core
to spare (one core, or the others busy while the intent was loaded and planned: ``spare_cores``), and not when memory is short: the child's reads touch the
state's reference counts, so it may copy all we hold.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.validate.model import CheckResult

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

# the failure sweep grows with the links: at 3,000 (1,024 GPUs) the fork and the copied pages cost more than the
# check itself, at 30,000 (10,000 GPUs) the check is 0.7 s and the fork ~0.2 s of CPU
MIN_LINKS = 10_000
# and it shrinks again on a state too large to copy cheaply: at 304,800 links (100,000 GPUs) a 4.8 GiB state made this
# process's copy-on-write faults cost more than the child saved (24.7 s against 20.6 s in one process, e88b1ce); with
# the plan's shared objects (1.6 GiB) the parent's critical path is 4.6-4.9 CPU s forked against 6.0-6.5 in one
# process, pre-change and default catalogs alike, the same results (bench/results/deadlock_check.md). Larger
# fabrics were not measured: they stay in one process
MAX_LINKS = 400_000


def worthwhile(links: int) -> bool:
    """Whether checks may run apart: a large fabric, fork, one thread, a core to spare, and room for a copy of us."""
    import multiprocessing  # noqa: PLC0415 - only for a large fabric

    if (
        not MIN_LINKS <= links <= MAX_LINKS
        or threading.active_count() > 1
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return False
    cores = len(os.sched_getaffinity(0))
    # a core to spare: on a machine already busy the child only takes turns with us, and its copying is extra
    return cores > 1 and spare_cores(_SINCE_IMPORT, cpu_times()) >= 0.5 and _room_for_a_copy()


def cpu_times() -> tuple[int, int] | None:
    """The machine's (busy, all) CPU time in clock ticks, summed over its CPUs (``/proc/stat``)."""
    try:
        with Path("/proc/stat").open(encoding="ascii") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = sum(ticks[3:5])  # idle and iowait
    return sum(ticks) - idle, sum(ticks)


def spare_cores(before: tuple[int, int] | None, now: tuple[int, int] | None) -> float:
    """How many of our CPUs sat idle between two ``cpu_times`` (we ran through it on one: in the command line, the
    load and the plan before the checks). Measured over that window, not the minute's load average, which still
    counts a build that has just ended. A window too short to say (or unknown) counts no core spare; one longer
    than a minute (a long-lived process) falls back to the load average."""
    cpus = os.cpu_count() or 1
    ours = len(os.sched_getaffinity(0))
    if before is None or now is None or now[1] - before[1] < _MIN_WINDOW_TICKS * cpus:
        return 0.0
    if now[1] - before[1] > _MAX_WINDOW_TICKS * cpus:
        return max(0.0, ours - os.getloadavg()[0])
    busy, total = now[0] - before[0], now[1] - before[1]
    return min(float(ours), cpus * (1 - busy / total))


_MIN_WINDOW_TICKS = 20  # 0.2 s at the usual 100 Hz: a shorter window says little (and such a run is not large)
_MAX_WINDOW_TICKS = 6000  # 60 s
_SINCE_IMPORT = cpu_times()  # imported before the intent is loaded: the window is the load and the plan


def _room_for_a_copy() -> bool:
    """MemAvailable exceeds this process's resident size (what the child could copy, at worst)."""
    try:
        meminfo = Path("/proc/meminfo").read_text(encoding="ascii").splitlines()
        avail_kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemAvailable:"))
        rss_kib = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1]) * (
            os.sysconf("SC_PAGE_SIZE") // 1024
        )
    except (OSError, StopIteration, ValueError):
        return False
    return avail_kib > rss_kib


class Apart:
    """``run(check_id)`` of the given ids, in order, in one forked child started now; ``result(check_id)`` waits.

    The child sends each result down a pipe and exits when done (no pool, no manager thread in this process). A
    child that dies, or a result that cannot come back, leaves its checks to this process: none is ever lost."""

    def __init__(self, run: Callable[[str], CheckResult], ids: list[str]) -> None:
        self._run = run
        self.ids = frozenset(ids)
        self._done: dict[str, CheckResult] = {}
        self._recv: Connection | None = None
        self._child: BaseProcess | None = None
        if not ids:
            return
        import multiprocessing  # noqa: PLC0415

        fork = multiprocessing.get_context("fork")
        self._recv, send = fork.Pipe(duplex=False)
        self._child = fork.Process(target=_judge, args=(run, ids, send), daemon=True)  # forked: nothing pickled
        self._child.start()
        send.close()  # the child holds the sending end: its exit is our end of file

    def result(self, check_id: str) -> CheckResult:
        while check_id not in self._done and self._recv is not None:
            try:
                done_id, result = self._recv.recv()
            except (EOFError, OSError):  # the child exited (or died): what it did not send runs here
                self._recv.close()
                self._recv = None
                break
            self._done[done_id] = result
        found = self._done.pop(check_id, None)
        return found if found is not None else self._run(check_id)

    def close(self) -> None:
        if self._recv is not None:
            self._recv.close()  # a child still sending gets a broken pipe and exits
            self._recv = None
        if self._child is not None:
            self._child.join(timeout=10)
            if self._child.is_alive():
                self._child.kill()
                self._child.join()
            self._child = None


def _judge(run: Callable[[str], CheckResult], ids: list[str], send: Connection) -> None:
    """In the child: each check's result down the pipe as it is done (one that does not pickle is left out: the
    parent runs that check itself)."""
    with send:
        for check_id in ids:
            result = run(check_id)
            try:
                send.send((check_id, result))
            except (pickle.PicklingError, TypeError, AttributeError):
                continue
