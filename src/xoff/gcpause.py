"""The cyclic garbage collector: set once per process by the program that runs xoff, never by the library.

Loading, planning and checking a 10k-GPU fabric, reading its snapshot, and analysing its deadlock risk
allocate millions of small, long-lived objects and create no garbage cycles; with the collector on, its
passes over the growing heap cost a large share of the work itself (bench/results/gc_edge.md). Reference
counting still frees everything as usual. So the CLI calls :func:`for_batch_run` once, first thing in
``main()``, and the benchmarks do the same. A long-lived program that embeds xoff (a service, a notebook)
keeps its collector: ``gc.freeze()`` after imports plus ``gc.set_threshold(100_000, 50, 100)`` recovers
most of the time, ``gc.freeze()`` alone does not (measured there).

One call at the edge, before any thread starts: toggling the collector around library calls (what this
module did before) is process-wide state changed from inside the core, and not thread-safe.
"""

from __future__ import annotations

import gc


def for_batch_run() -> None:
    """Turn the cyclic collector off for the rest of this short-lived process (its memory goes back at exit)."""
    gc.disable()
