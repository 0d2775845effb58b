"""The slowest whole-fabric checks (``Check.apart``: deadlock.cbd's failure sweep) in a forked process of their
own while this process runs the rest of the catalog (issue 19: at 10,000 GPUs the sweep is over half of the
offline checks, and a second core is idle).

The child is forked, so it inherits the desired state (and the snapshot) instead of receiving them pickled; it
runs the very same ``run_check`` and sends back only the ``CheckResult``, so the results are the serial ones,
finding for finding. Not on a small fabric (under ``MIN_LINKS``: the fork costs more than the check), not without
fork, not when this process runs other threads (a fork copies their locks in whatever state), not on one core, and
not when memory is short: the child's reads touch the state's reference counts, so it may copy all we hold.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from xoff.validate.model import CheckResult

# the failure sweep grows with the links: at 3,000 (1,024 GPUs) the fork and the copied pages cost more than the
# check itself, at 30,000 (10,000 GPUs) the check is 0.7 s and the fork ~0.2 s of CPU
MIN_LINKS = 10_000
_RUN: list[Callable[[str], CheckResult]] = []  # the parent's runner, inherited by the forked child


def worthwhile(links: int) -> bool:
    """Whether checks may run apart: a large fabric, fork, one thread, two cores, and room for a copy of us."""
    import multiprocessing  # noqa: PLC0415 - only for a large fabric

    if links < MIN_LINKS or threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
        return False
    return len(os.sched_getaffinity(0)) > 1 and _room_for_a_copy()


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
    """``run(check_id)`` of the given ids, started in one forked child now; ``result(check_id)`` waits for one.

    A child that dies or a result that cannot come back runs the check here instead: the check is never lost."""

    def __init__(self, run: Callable[[str], CheckResult], ids: list[str]) -> None:
        import multiprocessing  # noqa: PLC0415

        self._run = run
        self._futures: dict[str, Future[CheckResult]] = {}
        self._pool: ProcessPoolExecutor | None = None
        if not ids:
            return
        _RUN.append(run)
        try:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
            self._futures = {i: self._pool.submit(_run_inherited, i) for i in ids}  # the fork happens here
        finally:
            _RUN.clear()  # the child has its copy; this process keeps no global state

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self._futures)

    def result(self, check_id: str) -> CheckResult:
        try:
            return self._futures[check_id].result()
        except Exception:  # a broken child (killed, out of memory, unpicklable result): run it here
            return self._run(check_id)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _run_inherited(check_id: str) -> CheckResult:
    return _RUN[0](check_id)
