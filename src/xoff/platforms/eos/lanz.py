"""EOS's egress queue lengths for ``xoff watch``'s slow drain: the Latency Analyzer (LANZ), ``show queue-monitor
length | json``, into bytes per (port, traffic class = tx-queue).

The eAPI model (Arista's goeapi ``ShowQueueMonitor`` and its fixture ``show_queue-monitor_length_Et24.json``, a Sand
platform; tests/fixtures/real/eos/README.md): ``lanzEnabled``, ``platformName``, ``reportTime`` and ``entryList``,
a list of congestion reports, newest first, each with ``interface``, ``trafficClass``, ``entryType`` (``S`` start,
``U`` update, ``E`` end, ``P`` polling), ``entryTime`` (Unix seconds) and ``queueLength``.

Read faithfully:

- per (port, traffic class) the NEWEST report's ``queueLength`` (a gauge: the queue's length at its last report).
  LANZ reports a queue only while it is over its threshold, so a queue with no report is not observed (left out),
  never 0; a report that stays the newest reads the same length round after round (flat, so never "growing").
- the unit: Arista's sample of a Sand (Jericho) switch prints the length in bytes (its text header ``Queue Length
  (bytes)``); for the other platforms neither that sample nor the JSON states the unit (segments of a platform's
  cell size are not bytes), so there nothing is read and the reports are counted in ``unmodelled``. With
  ``lanzEnabled`` false nothing is read either.

Strict: an entry without those keys, or of the wrong type, is a ``QueueMonitorParseError`` naming its path.
"""

from __future__ import annotations

import json
from typing import Any

from xoff.collect.json_shape import ShapeError as QueueMonitorParseError
from xoff.collect.json_shape import count as _count
from xoff.collect.json_shape import key as _key
from xoff.collect.json_shape import obj as _obj
from xoff.contracts.collect import Command

QUEUE_MONITOR = Command("show queue-monitor length | json")
BYTES_PLATFORMS = ("Sand",)  # where Arista's sample states the unit (bytes)
ENTRY_TYPES = ("S", "U", "E", "P")
CLASSES = range(8)
Lengths = dict[tuple[str, int], int]

__all__ = ["QUEUE_MONITOR", "QueueMonitorParseError", "parse_queue_monitor"]


def _entry(row: Any, where: str) -> tuple[str, int, float, int]:
    row = _obj(row, where)
    port = _key(row, "interface", where)
    if not isinstance(port, str) or not port:
        raise QueueMonitorParseError(f"{where}.interface: expected an interface name, got {port!r}")
    tc = _count(row, "trafficClass", where)
    if tc not in CLASSES:
        raise QueueMonitorParseError(f"{where}.trafficClass: {tc} is not a traffic class 0-7")
    kind = _key(row, "entryType", where)
    if kind not in ENTRY_TYPES:
        raise QueueMonitorParseError(f"{where}.entryType: {kind!r} (allowed: {', '.join(ENTRY_TYPES)})")
    at = _key(row, "entryTime", where)
    if type(at) not in (int, float):
        raise QueueMonitorParseError(f"{where}.entryTime: expected Unix seconds, got {at!r}")
    return port, tc, float(at), _count(row, "queueLength", where)


def parse_queue_monitor(text: str, unmodelled: dict[str, int] | None = None) -> Lengths:
    """(port, traffic class) -> bytes in the queue at its newest LANZ report; {} where the unit is not bytes."""
    try:
        data = _obj(json.loads(text), "output")
    except json.JSONDecodeError as exc:
        raise QueueMonitorParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    enabled = _key(data, "lanzEnabled", "output")
    platform = _key(data, "platformName", "output")
    entries = _key(data, "entryList", "output")
    if not isinstance(entries, list):
        raise QueueMonitorParseError(f"entryList: expected a list, got {type(entries).__name__}")
    rows = [_entry(row, f"entryList[{i}]") for i, row in enumerate(entries)]
    if enabled is not True:
        return {}
    if platform not in BYTES_PLATFORMS:
        if rows and unmodelled is not None:  # reports in a unit the output does not state
            name = f"{QUEUE_MONITOR.text}: queueLength on platform {platform!r}"
            unmodelled[name] = unmodelled.get(name, 0) + len(rows)
        return {}
    newest: dict[tuple[str, int], tuple[float, int]] = {}
    for port, tc, at, length in rows:
        if (port, tc) not in newest or at > newest[(port, tc)][0]:
            newest[(port, tc)] = (at, length)
    return {k: length for k, (_, length) in sorted(newest.items())}
