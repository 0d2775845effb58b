"""Rendering over a process pool: the devices in contiguous chunks, one worker per core.

The workers are forked, so they inherit the planned state instead of receiving it pickled; each returns its
chunk's files as plain tuples, and the chunks are joined in order, so the result is the serial one, file for file.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor

from xoff.desired.models import FabricState
from xoff.render.registry import renderers

MIN_DEVICES = 400  # below this the pool's start-up costs more than it saves
FileTuple = tuple[str, str, str, str]  # device, platform, file name, content

_STATE: list[FabricState] = []  # the state the forked workers render (set only around the pool)


def workers_for(devices: int) -> int:
    """How many processes render ``devices`` devices: the usable cores (at most 16), or 1 below MIN_DEVICES,
    without fork, or when this process runs other threads (a fork copies their locks in whatever state)."""
    if devices < MIN_DEVICES or threading.active_count() > 1 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(len(os.sched_getaffinity(0)), 16)


def render_names(state: FabricState, names: list[str]) -> list[FileTuple]:
    """Every file of the devices ``names``, in order."""
    out: list[FileTuple] = []
    for name in names:
        device = state.devices[name]
        for renderer in renderers(device):
            files = renderer.load()(device, state)
            out.extend((name, device.platform, fname, text) for fname, text in files.items())
    return out


def _chunk(names: list[str]) -> list[FileTuple]:
    return render_names(_STATE[0], names)


def render_pool(state: FabricState, names: list[str], workers: int) -> list[FileTuple]:
    """``render_names`` over ``workers`` forked processes, several chunks each so a slow chunk does not stall."""
    size = max(1, -(-len(names) // (workers * 4)))
    chunks = [names[i : i + size] for i in range(0, len(names), size)]
    _STATE.append(state)
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            return [f for part in pool.map(_chunk, chunks) for f in part]
    finally:
        _STATE.clear()
