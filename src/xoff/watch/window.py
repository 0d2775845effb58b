"""The samples of the last W seconds, per series, in bounded memory.

A series is one device's one metric with one set of labels (port, priority, queue, ...). Each keeps its points
``(at, value)`` in arrival order; a point older than the newest sample minus the window is dropped, and no series
keeps more than ``max_points`` (the oldest go first), so a long watch holds a fixed amount whatever the interval.
A value not observed stays ``None`` in the series (a gap, never 0). Devices that could not be read are remembered
with their error for the round they failed in.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xoff.watch.sample import Labels, Sample

Point = tuple[float, float | None]
SeriesKey = tuple[str, str, Labels]  # device, metric, labels

MAX_POINTS = 720  # an hour at 5 s; a window longer than this many rounds keeps its newest points


@dataclass
class Window:
    seconds: float
    max_points: int = MAX_POINTS
    series: dict[SeriesKey, deque[Point]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # device -> its last read's error (cleared when read)
    read_ok: set[str] = field(default_factory=set)  # devices read at least once inside the window
    unmodelled: dict[str, dict[str, int]] = field(default_factory=dict)  # device -> name -> count (last read)
    rounds: int = 0
    newest: float | None = None
    by_metric: dict[str, set[SeriesKey]] = field(default_factory=dict)  # metric -> its series (what ``of`` scans)

    def add(self, samples: Sequence[Sample]) -> None:
        """One round: every device's sample; then the points older than the window are dropped."""
        self.rounds += 1
        for s in samples:
            self.newest = s.at if self.newest is None else max(self.newest, s.at)
            if s.error is not None:
                self.errors[s.device] = s.error
                continue
            self.errors.pop(s.device, None)
            self.read_ok.add(s.device)
            if s.unmodelled:
                self.unmodelled[s.device] = dict(s.unmodelled)
            for r in s.readings:
                key = (s.device, r.metric, r.labels)
                points = self.series.get(key)
                if points is None:
                    points = self.series[key] = deque(maxlen=self.max_points)
                    self.by_metric.setdefault(r.metric, set()).add(key)
                points.append((s.at, r.value))
        self._trim()

    def _trim(self) -> None:
        if self.newest is None:
            return
        oldest = self.newest - self.seconds
        for key in list(self.series):
            points = self.series[key]
            while points and points[0][0] < oldest:
                points.popleft()
            if not points:
                del self.series[key]
                self.by_metric[key[1]].discard(key)

    def of(self, metric: str, device: str | None = None) -> Iterable[tuple[str, Labels, list[Point]]]:
        """Every series of ``metric`` (on ``device``): device, labels, points (oldest first)."""
        chosen = [k for k in self.by_metric.get(metric, ()) if device is None or k[0] == device]
        for key in sorted(chosen):
            yield key[0], key[2], list(self.series[key])

    def points(self, device: str, metric: str, **labels: str | int | None) -> list[Point] | None:
        """One series by its labels (None values left out); None when the window has no such series."""
        key = tuple(sorted((k, str(v)) for k, v in labels.items() if v is not None))
        found = self.series.get((device, metric, key))
        return list(found) if found is not None else None

    def devices(self) -> list[str]:
        """Devices with at least one series in the window."""
        return sorted({dev for dev, _, _ in self.series})


def latest(points: Sequence[Point]) -> float | None:
    """The newest observed value (a gauge's reading now); None when none was observed."""
    for _, value in reversed(points):
        if value is not None:
            return value
    return None
