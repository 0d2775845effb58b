"""``show queue-monitor length``: the Latency Analyzer's (LANZ) congestion reports, text and ``| json``.

The lab has no data plane, so no queue ever fills unless the device's ``counters.json`` (``show_counters``) says so:
its ``lanz`` table, ``{"Ethernet1/1": {"3": {"queueLength": n}}}`` keyed by port then traffic class (= tx-queue),
n the bytes in the queue (a running counter for a queue that keeps filling). Each queue given a non-zero length is
over its threshold: the report lists it as a polling entry (``P``) at the instant of the show, newest first.

The ``| json`` model is Arista's, as its goeapi library's fixture of a Sand (Jericho) switch shows it
(``show_queue-monitor_length_Et24.json``: ``reportTime``, ``bytesPerTxmpSegment``, ``globalHitCount``,
``lanzEnabled``, ``platformName``, ``entryList`` of ``entryTimeUsecs``, ``globalProtectionModeEnabled``,
``entryTime``, ``ingressPortSet``, ``interface``, ``duration``, ``durationUsecs``, ``entryType``, ``queueLength``,
``trafficClass``); the emulator reports as that Sand platform, whose lengths are bytes. The TEXT table follows the
column header that library quotes (``Type``, ``Time``, ``Intf(TC)``, ``Queue Length (bytes)``, ``Duration
(usecs)``, ``Ingress Port-set``) and is UNCONFIRMED beyond it: nothing parses it.
"""

from __future__ import annotations

import time
from typing import Any

from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.model import RunningConfig

Json = dict[str, Any]
PLATFORM = "Sand"
SEGMENT_BYTES = 512  # the Sand sample's bytesPerTxmpSegment
POLL_USECS = 1_000_000  # a polling entry's duration, as in the Sand sample


def _entries(cfg: RunningConfig, lanz: Json, now: float) -> list[Json]:
    """One polling entry per (port, traffic class) with a queue length, ports in EOS order."""
    ports = ifnames.sort_names([p for p in lanz if p in cfg.interfaces])
    out = []
    for port in ports:
        for tc, row in sorted(lanz[port].items(), key=lambda kv: int(kv[0])):
            length = int(row.get("queueLength", 0))
            if length <= 0:
                continue
            out.append(
                {
                    "entryTimeUsecs": int(now * 1e6),
                    "globalProtectionModeEnabled": True,
                    "entryTime": round(now, 6),
                    "ingressPortSet": [],
                    "interface": port,
                    "duration": POLL_USECS // 1_000_000,
                    "durationUsecs": POLL_USECS,
                    "entryType": "P",
                    "queueLength": length,
                    "trafficClass": int(tc),
                }
            )
    return out


def _text(entries: list[Json]) -> str:
    head = [
        f"{'Type':<10} {'Time':<23} {'Intf(TC)':<15} {'Queue':<13} {'Duration':<16} Ingress",
        f"{'':<10} {'':<23} {'':<15} {'Length':<13} {'':<16} Port-set",
        f"{'':<10} {'':<23} {'':<15} {'(bytes)':<13} {'(usecs)':<16}",
        " ".join("-" * w for w in (10, 23, 15, 13, 16, 48)),
    ]
    rows = []
    for e in entries:
        where = f"{ifnames.short(e['interface'])}({e['trafficClass']})"
        rows.append(
            f"{e['entryType']:<10} {'0:00:00.00000 ago':<23} {where:<15} {e['queueLength']:<13} {e['durationUsecs']:<16}"
        )
    return "".join(line.rstrip() + "\n" for line in head + rows)


def queue_monitor_length(cfg: RunningConfig, lanz: Json, now: float | None = None) -> tuple[str, Json]:
    """The report at ``now``: every queue the hook file fills, as LANZ on a Sand switch lists it."""
    at = time.time() if now is None else now
    entries = _entries(cfg, lanz, at)
    data = {
        "reportTime": round(at, 6),
        "bytesPerTxmpSegment": SEGMENT_BYTES,
        "globalHitCount": 0,
        "lanzEnabled": True,
        "platformName": PLATFORM,
        "entryList": entries,
    }
    return _text(entries), data
