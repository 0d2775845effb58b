"""Cumulus Linux (NVUE) counters as ``-o json``, one port per command (NVUE has no all-ports form of
these): PFC pause frames per switch priority and egress-queue frames, discards and ECN marks per traffic
class (``nv show interface <swp> counters qos``, Cumulus Linux 5.5+), and PFC watchdog deadlocks per
traffic class (``nv show interface <swp> qos pfc-watchdog``, 5.6+), into ``PortCounters``.

Read faithfully (samples and their sources: tests/fixtures/real/cumulus/README.md):

- ``counters qos``: ``pfc-stats.<switch-priority>.{rx-pause-frames,tx-pause-frames}`` and
  ``egress-queue-stats.<traffic-class>.{tx-frames,tx-bytes,tx-uc-buffer-discards,wred-discards,
  ecn-marked-frames}``. A key the output lacks is not observed (None, never 0); a queue's drops are its
  unicast buffer discards (frames, though the table prints them with a byte unit) plus its WRED discards
  where the release prints them, and not observed without the buffer discards. NVUE shows no dropped
  bytes. Every other group (``ingress-buffer-stats``, ``port-stats``, ...) and key is counted as
  unmodelled.
- ``qos pfc-watchdog``: ``status.<traffic-class>.{status,deadlock-count}`` with ``status`` ``OK`` or
  ``DEADLOCK``; a port whose watchdog is off shows no ``status``.

A value of the wrong type, or a class outside 0-7, is a ``CounterParseError`` naming its path.
NVUE's traffic class is the egress queue, and its switch priority is the PFC priority.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from xoff.collect.json_shape import ShapeError as CounterParseError
from xoff.collect.json_shape import obj as _obj
from xoff.contracts.collect import Command
from xoff.contracts.observed import PfcCounters, PortCounters, QueueCounters, WatchdogCounters

CLASSES = range(8)
WATCHDOG_STATES = ("OK", "DEADLOCK")
QOS_GROUPS = ("pfc-stats", "egress-queue-stats")
PFC_KEYS = ("rx-pause-frames", "tx-pause-frames")
QUEUE_KEYS = ("tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards", "ecn-marked-frames")
WATCHDOG_KEYS = ("state", "status")
QosReading = tuple[PfcCounters, dict[int, QueueCounters], dict[str, int]]
WatchdogReading = tuple[dict[int, WatchdogCounters], dict[str, int]]


def qos_command(port: str) -> Command:
    return Command(f"nv show interface {port} counters qos -o json")


def watchdog_command(port: str) -> Command:
    return Command(f"nv show interface {port} qos pfc-watchdog -o json")


def _classes(data: Any, where: str) -> dict[int, dict[str, Any]]:
    """A collection keyed by priority or traffic class, ``"0"``-``"7"``."""
    out = {}
    for key, row in _obj(data, where).items():
        if not key.isdigit() or int(key) not in CLASSES:
            raise CounterParseError(f"{where}: {key!r} is not a priority or traffic class 0-7")
        out[int(key)] = _obj(row, f"{where}.{key}")
    return dict(sorted(out.items()))


def _count(row: dict[str, Any], name: str, where: str) -> int | None:
    """A counter, or None when the output has no such key (not observed)."""
    value = row.get(name)
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise CounterParseError(f"{where}.{name}: expected a count, got {value!r}")
    return value


def _extra(row: dict[str, Any], known: tuple[str, ...], where: str, into: Counter[str]) -> None:
    for name in row:
        if name not in known:
            into[f"{where}.{name}"] += 1


def _load(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CounterParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    return _obj(data, "output")


def _drops(row: dict[str, Any], where: str) -> int | None:
    buffer = _count(row, "tx-uc-buffer-discards", where)
    wred = _count(row, "wred-discards", where)
    return None if buffer is None else buffer + (wred or 0)


def parse_qos(text: str) -> QosReading:
    """One port's PFC frames per priority, egress queues (= traffic classes), and what was not modelled."""
    data = _load(text)
    extra: Counter[str] = Counter(f"counters qos {g}" for g in data if g not in QOS_GROUPS)
    pfc = _classes(data.get("pfc-stats", {}), "pfc-stats")
    rx, tx = {}, {}
    for p, row in pfc.items():
        _extra(row, PFC_KEYS, "counters qos pfc-stats", extra)
        if (value := _count(row, "rx-pause-frames", f"pfc-stats.{p}")) is not None:
            rx[p] = value
        if (value := _count(row, "tx-pause-frames", f"pfc-stats.{p}")) is not None:
            tx[p] = value
    queues = {}
    for tc, row in _classes(data.get("egress-queue-stats", {}), "egress-queue-stats").items():
        where = f"egress-queue-stats.{tc}"
        _extra(row, QUEUE_KEYS, "counters qos egress-queue-stats", extra)
        queues[tc] = QueueCounters(
            packets=_count(row, "tx-frames", where),
            bytes=_count(row, "tx-bytes", where),
            dropped_packets=_drops(row, where),
            ecn_marked_packets=_count(row, "ecn-marked-frames", where),
        )
    return PfcCounters(rx_pause=rx, tx_pause=tx), queues, dict(sorted(extra.items()))


def parse_watchdog(text: str) -> WatchdogReading:
    """One port's traffic class -> deadlocks detected (``deadlock-count``) and restored."""
    data = _load(text)
    extra: Counter[str] = Counter(f"qos pfc-watchdog {k}" for k in data if k not in WATCHDOG_KEYS)
    out = {}
    for tc, row in _classes(data.get("status", {}), "status").items():
        where = f"status.{tc}"
        _extra(row, ("status", "deadlock-count"), "qos pfc-watchdog status", extra)
        state = row.get("status")
        if state not in WATCHDOG_STATES:
            raise CounterParseError(f"{where}.status: {state!r} (allowed: {', '.join(WATCHDOG_STATES)})")
        detected = _count(row, "deadlock-count", where)
        # no count printed: not observed (None, never 0); restored = detected less the one still in deadlock
        restored = None if detected is None else max(0, detected - int(state == "DEADLOCK"))
        out[tc] = WatchdogCounters(storms_detected=detected, storms_restored=restored)
    return out, dict(sorted(extra.items()))


def port_counters(
    qos: dict[str, QosReading | None], watchdog: dict[str, WatchdogReading | None]
) -> tuple[dict[str, PortCounters], dict[str, int]]:
    """Every port either command could be read for, in the order given (the intent's), and the names of
    what they printed that xoff does not model (summed over the ports)."""
    out = {}
    extra: Counter[str] = Counter()
    for port in dict.fromkeys([*qos, *watchdog]):
        read_qos, read_wd = qos.get(port), watchdog.get(port)
        if read_qos is None and read_wd is None:
            continue
        pfc, queues = (read_qos[0], read_qos[1]) if read_qos is not None else (PfcCounters(), {})
        extra.update(read_qos[2] if read_qos is not None else {})
        extra.update(read_wd[1] if read_wd is not None else {})
        out[port] = PortCounters(pfc=pfc, queues=queues, watchdog=read_wd[0] if read_wd is not None else {})
    return out, dict(sorted(extra.items()))
