"""Cumulus Linux (NVUE) counters as ``-o json``, one port per command (NVUE has no all-ports form of
these): PFC pause frames per switch priority and egress-queue frames and discards per traffic class
(``nv show interface <swp> counters qos``), and PFC watchdog storms per traffic class (``nv show
interface <swp> qos pfc-watchdog``), into ``PortCounters``.

The keys are NVUE's (sources: tests/fixtures/parse/cumulus/README.md):

- ``counters qos``: ``pfc-stats.<switch-priority>.{rx-pause-frames,tx-pause-frames}`` and
  ``egress-queue-stats.<traffic-class>.{tx-frames,tx-bytes,tx-uc-buffer-discards,wred-discards}``
  (integers in JSON: ``tx-uc-buffer-discards`` counts frames, though the table prints it with a byte
  unit); the other groups (``ingress-buffer-stats``, ``port-stats``) and fields beyond these are allowed
  and not read;
- ``qos pfc-watchdog``: ``status.<traffic-class>.{status,deadlock-count}`` with ``status`` ``OK`` or
  ``DEADLOCK``; a port whose watchdog is off may show no ``status``.

NVUE's traffic class is the egress queue, and its switch priority is the PFC priority. A queue's drops are
its unicast buffer discards plus its WRED discards (both are frames a lossless queue must not lose);
NVUE shows no dropped bytes. The watchdog counts deadlocks detected (``deadlock-count``); a queue still
in ``DEADLOCK`` has one storm not yet restored. Parsing is strict: a missing key, a value of the wrong
type or a class outside 0-7 is a ``CounterParseError``.
"""

from __future__ import annotations

import json
from typing import Any

from xoff.collect.json_shape import ShapeError as CounterParseError
from xoff.collect.json_shape import count as _count
from xoff.collect.json_shape import key as _key
from xoff.collect.json_shape import obj as _obj
from xoff.contracts.collect import Command
from xoff.contracts.observed import PfcCounters, PortCounters, QueueCounters, WatchdogCounters

CLASSES = range(8)
WATCHDOG_STATES = ("OK", "DEADLOCK")


def qos_command(port: str) -> Command:
    return Command(f"nv show interface {port} counters qos -o json")


def watchdog_command(port: str) -> Command:
    return Command(f"nv show interface {port} qos pfc-watchdog -o json")


def _classes(data: Any, where: str) -> dict[int, Any]:
    """A collection keyed by priority or traffic class, ``"0"``-``"7"``."""
    out = {}
    for key, row in _obj(data, where).items():
        if not key.isdigit() or int(key) not in CLASSES:
            raise CounterParseError(f"{where}: {key!r} is not a priority or traffic class 0-7")
        out[int(key)] = row
    return dict(sorted(out.items()))


def _load(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CounterParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    return _obj(data, "output")


def parse_qos(text: str) -> tuple[PfcCounters, dict[int, QueueCounters]]:
    """One port's PFC frames per priority and egress queues (= traffic classes)."""
    data = _load(text)
    pfc = _classes(_key(data, "pfc-stats", "output"), "pfc-stats")
    rx = {p: _count(row, "rx-pause-frames", f"pfc-stats.{p}") for p, row in pfc.items()}
    tx = {p: _count(row, "tx-pause-frames", f"pfc-stats.{p}") for p, row in pfc.items()}
    queues = {}
    for tc, row in _classes(_key(data, "egress-queue-stats", "output"), "egress-queue-stats").items():
        where = f"egress-queue-stats.{tc}"
        queues[tc] = QueueCounters(
            packets=_count(row, "tx-frames", where),
            bytes=_count(row, "tx-bytes", where),
            dropped_packets=_count(row, "tx-uc-buffer-discards", where) + _count(row, "wred-discards", where),
        )
    return PfcCounters(rx_pause=rx, tx_pause=tx), queues


def parse_watchdog(text: str) -> dict[int, WatchdogCounters]:
    """One port's traffic class -> storms detected (``deadlock-count``) and restored."""
    data = _load(text)
    if "status" not in data:
        return {}  # the watchdog is off on this port: NVUE has nothing to count
    out = {}
    for tc, row in _classes(data["status"], "status").items():
        where = f"status.{tc}"
        state = _key(row, "status", where)
        if state not in WATCHDOG_STATES:
            raise CounterParseError(f"{where}.status: {state!r} (allowed: {', '.join(WATCHDOG_STATES)})")
        detected = _count(row, "deadlock-count", where)
        out[tc] = WatchdogCounters(
            storms_detected=detected, storms_restored=max(0, detected - int(state == "DEADLOCK"))
        )
    return out


def port_counters(
    qos: dict[str, tuple[PfcCounters, dict[int, QueueCounters]] | None],
    watchdog: dict[str, dict[int, WatchdogCounters] | None],
) -> dict[str, PortCounters]:
    """Every port either command could be read for, in the order given (the intent's)."""
    out = {}
    for port in dict.fromkeys([*qos, *watchdog]):
        read_qos, read_wd = qos.get(port), watchdog.get(port)
        if read_qos is None and read_wd is None:
            continue
        pfc, queues = read_qos if read_qos is not None else (PfcCounters(), {})
        out[port] = PortCounters(pfc=pfc, queues=queues, watchdog=read_wd or {})
    return out
