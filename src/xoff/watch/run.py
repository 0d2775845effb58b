"""The watch loop: every ``interval`` read all devices through a ``CounterSource``, keep the window, call the round
hooks (the recorder, 18-prom's exporter, the live display), and stop on Ctrl-C, after ``--once``'s window, or when
a replay runs out.

Rounds are paced on the monotonic clock (``next = start + k * interval``): a slow round shortens the wait after it,
never shifts the schedule. A replay (``paced = False`` on the source) is read as fast as it goes: its samples carry
their own times.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xoff.watch.sample import CounterSource, Sample
from xoff.watch.window import Window

RoundHook = Callable[[Sequence[Sample], Window], None]


def rounds_for(window_s: float, interval_s: float) -> int:
    """``--once``: enough rounds to span the window, and at least two (a rate needs two reads)."""
    return max(2, math.ceil(window_s / interval_s) + 1)


@dataclass
class Loop:
    source: CounterSource
    devices: Sequence[str]
    interval_s: float
    window: Window
    hooks: list[RoundHook] = field(default_factory=list)
    rounds: int | None = None  # None: until stopped (Ctrl-C) or the source runs out
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    def _done(self, done: int) -> bool:
        if self.rounds is not None and done >= self.rounds:
            return True
        return bool(getattr(self.source, "exhausted", False))

    def run(self) -> Window:
        """Rounds until done; a KeyboardInterrupt propagates with the window kept as it was (the caller reports)."""
        paced = getattr(self.source, "paced", True)
        start, done = self.clock(), 0
        while not self._done(done):
            if done and paced:
                self.sleep(max(0.0, start + done * self.interval_s - self.clock()))
            samples = self.source.read(self.devices)
            done += 1
            if not samples and not paced:
                break  # a replay with nothing left for these devices
            self.window.add(samples)
            for hook in self.hooks:
                hook(samples, self.window)
        return self.window
