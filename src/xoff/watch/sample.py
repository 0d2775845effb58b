"""What one read of one device's counters gives: readings named by the metric catalogue.

A value the device did not print, or printed as N/A, is ``None`` (not observed), never 0 and never taken from the
intent. A device that could not be read is a ``Sample`` with ``error`` set and no readings, never an empty (and so
"quiet") device. Counters (``Metric.kind == "counter"``) are totals as the device keeps them; rates are the
watcher's business (``xoff.watch.rates``), so a reset (a total that went down) is seen there and never becomes a
negative rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs: hashable, so a series key


@dataclass(frozen=True, slots=True)
class Reading:
    metric: str  # a name in xoff.watch.metrics.METRICS
    labels: Labels  # the metric's labels other than device/network/role (port, priority, queue, pg, pool, gpu, ...)
    value: float | None  # None: not observed on this read

    @staticmethod
    def of(metric: str, value: float | None, **labels: str | int) -> Reading:
        return Reading(metric, tuple(sorted((k, str(v)) for k, v in labels.items())), value)

    def label(self, name: str) -> str | None:
        return dict(self.labels).get(name)


@dataclass(frozen=True, slots=True)
class Sample:
    device: str
    at: float  # the controller's wall clock (Unix seconds) when the read completed
    readings: tuple[Reading, ...] = ()
    error: str | None = None  # the device could not be read: what went wrong, one line, no secrets
    source: str = "ssh"  # "ssh", "gnmi", "file"
    unmodelled: dict[str, int] = field(default_factory=dict)  # fields the device printed that xoff does not model


class CounterSource(Protocol):
    """Where samples come from. ``read`` reads every named device once and returns one Sample per device, in any
    order; a device that failed is a Sample with ``error``, and the others carry on."""

    name: str

    def read(self, devices: Sequence[str]) -> list[Sample]: ...
