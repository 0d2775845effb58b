"""Fan a sweep's failures out over forked worker processes (issue 19).

The sweep's model (fabric, baseline routes, critical-class index, baseline turns) is built once in the
parent; ``run_chunked`` forks the workers (``multiprocessing`` "fork" context), so each inherits it
copy-on-write instead of receiving it pickled per task. The items (failure indices) go out in
contiguous chunks and the chunks' results come back in item order, so merging them in order gives the
same result as one process walking the items.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

R = TypeVar("R")

CHUNKS_PER_WORKER = 8  # small enough to balance uneven chunks, large enough to keep the pickling rare

_WORK: Callable[[Sequence[int]], Any] | None = None  # the parent's work function, inherited by fork


def default_workers() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def chunks(items: Sequence[int], workers: int) -> list[Sequence[int]]:
    """``items`` cut into contiguous runs, about ``CHUNKS_PER_WORKER`` per worker."""
    n = max(1, min(len(items), workers * CHUNKS_PER_WORKER))
    size = -(-len(items) // n)
    return [items[i : i + size] for i in range(0, len(items), size)]


def run_chunked(work: Callable[[Sequence[int]], R], items: Sequence[int], workers: int) -> list[R]:
    """``work`` on contiguous chunks of ``items``, in order: in this process when ``workers`` <= 1 (or fork is
    not available), else in a pool of forked workers that inherit ``work`` and everything it reaches."""
    if workers <= 1 or len(items) < 2:
        return [work(items)]
    # imported here: routing (and so ``xoff check``) imports this module, and one process needs neither
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    if "fork" not in multiprocessing.get_all_start_methods():
        return [work(items)]
    global _WORK  # noqa: PLW0603 -- handed to the forked workers through the inherited module state
    _WORK = work
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_run, chunks(items, workers)))
    finally:
        _WORK = None


def _run(chunk: Sequence[int]) -> Any:
    assert _WORK is not None, "run_chunked sets the work before it forks"
    return _WORK(chunk)
