"""Counters over a window, as rates.

The rule ``xoff.audit.rates`` uses between two snapshots, per pair of consecutive points: a total that went down
was cleared or its device restarted, a reset, so that interval gives no rate (never a negative one) and is counted
as a reset; a point not observed (None) gives no rate to either of its intervals. The rate is the increase summed
over the intervals that had one, divided by their summed length: a gap or a reset shortens the window, it never
reads as quiet.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from xoff.watch.window import Point


@dataclass(frozen=True, slots=True)
class Rate:
    per_s: float  # the increase per second over the intervals observed
    increase: float  # the summed increase
    seconds: float  # the summed length of the intervals that gave a rate
    intervals: int  # how many intervals gave a rate
    resets: int  # intervals where the total went down (no rate taken from them)
    moving: int  # intervals where the total went up


def step(was: float | None, now: float | None) -> float | None:
    """The increase from ``was`` to ``now``; None when either is not observed or the total went down (a reset)."""
    if was is None or now is None or now < was:
        return None
    return now - was


def intervals(points: Sequence[Point]) -> list[tuple[float, float, float | None]]:
    """Each consecutive pair as (start, end, rate per second or None: not observed, or a reset)."""
    out: list[tuple[float, float, float | None]] = []
    for (t0, v0), (t1, v1) in itertools.pairwise(points):
        d = step(v0, v1)
        out.append((t0, t1, d / (t1 - t0) if d is not None and t1 > t0 else None))
    return out


def rate(points: Sequence[Point]) -> Rate | None:
    """The counter's rate over the window; None when no interval could give one (one point, gaps, resets)."""
    increase = seconds = 0.0
    counted = resets = moving = 0
    for (t0, v0), (t1, v1) in itertools.pairwise(points):
        if v0 is not None and v1 is not None and v1 < v0:
            resets += 1
            continue
        d = step(v0, v1)
        if d is None or t1 <= t0:
            continue
        increase += d
        seconds += t1 - t0
        counted += 1
        moving += d > 0
    if counted == 0:
        return None
    return Rate(increase / seconds, increase, seconds, counted, resets, moving)
