"""Pause the cyclic garbage collector around bulk model building.

Planning a 10k-GPU fabric allocates ~400k small, long-lived objects and creates no garbage
cycles; with the collector on, its full passes over the growing heap cost more than the build
itself (bench/results/plan_scale.md). Reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
