"""What the gNMI servers of SONiC and Cumulus send, as ``Reading``s named by the metric catalogue.

Input is pygnmi's decoding of a notification (``telemetryParser``): ``{"update": [{"path": ..., "val": ...}],
"prefix": ...}``. Formats (sources: tests/fixtures/real/sonic/README.md and cumulus/README.md):

- SONiC, target ``COUNTERS_DB``: ``COUNTERS/Ethernet*`` is one JSON object of port -> COUNTERS_DB fields
  (string values): ``SAI_PORT_STAT_PFC_<p>_RX_PKTS`` / ``_TX_PKTS`` are pause frames,
  ``SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US`` the time paused; ``COUNTERS/Ethernet*/Queues`` is keyed
  ``<port>:<queue index>`` (0-9 unicast, as queuestat's UC0-9) with ``SAI_QUEUE_STAT_*``;
  ``COUNTERS/Ethernet*/Pfcwd`` keyed alike with the watchdog's ``PFC_WD_QUEUE_STATS_DEADLOCK_*``.
- Cumulus (OpenConfig, NVIDIA's metrics table): ``/qos/interfaces/interface[interface-id=P]/switch-priority
  [priority=N]/state/counters/in-pause-pkts`` / ``out-pause-pkts``, ``.../state/in-pause-duration``
  (microseconds) and ``/qos/interfaces/interface[interface-id=P]/output/queues/queue[name=Q]/state/
  transmit-pkts`` / ``transmit-octets`` / ``no-buffer-uc-dropped-pkts`` / ``ecn-marked-pkts`` and
  ``/qos/interfaces/interface[interface-id=P]/input/priority-group[pg-id=G]/state/shared-buffer/data/max-occupancy``
  (the PG's peak shared-buffer occupancy in bytes since the last watermark reset: the slow drain's watermark).

A field xoff does not model is counted in ``unmodelled`` (by its name, ports and queues folded); a value that is
not a number is not observed (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from xoff.watch.sample import Reading

SONIC_TARGET = "COUNTERS_DB"
SONIC_PATHS = ("COUNTERS/Ethernet*", "COUNTERS/Ethernet*/Queues", "COUNTERS/Ethernet*/Pfcwd")
CUMULUS_PATHS = (
    "/qos/interfaces/interface[interface-id=*]/switch-priority[priority=*]",
    "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state",
    "/qos/interfaces/interface[interface-id=*]/input/priority-group[pg-id=*]/state/shared-buffer/data/max-occupancy",
)
_PFC = re.compile(r"^SAI_PORT_STAT_PFC_(\d)_(RX|TX)_(PKTS|PAUSE_DURATION_US)$")
_UNICAST = range(10)
_QUEUE = {
    "SAI_QUEUE_STAT_PACKETS": "xoff_queue_tx_packets_total",
    "SAI_QUEUE_STAT_BYTES": "xoff_queue_tx_bytes_total",
    "SAI_QUEUE_STAT_DROPPED_PACKETS": "xoff_queue_dropped_packets_total",
    "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "xoff_queue_ecn_marked_packets_total",
}
_WATCHDOG = {
    "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "xoff_pfc_watchdog_storms_detected_total",
    "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": "xoff_pfc_watchdog_storms_restored_total",
}
_CUMULUS_PRIORITY = {
    "state/counters/in-pause-pkts": ("xoff_pfc_rx_pause_frames_total", 1.0),
    "state/counters/out-pause-pkts": ("xoff_pfc_tx_pause_frames_total", 1.0),
    "state/in-pause-duration": ("xoff_pfc_rx_pause_duration_seconds_total", 1e-6),
}
_CUMULUS_QUEUE = {
    "transmit-pkts": "xoff_queue_tx_packets_total",
    "transmit-octets": "xoff_queue_tx_bytes_total",
    "ecn-marked-pkts": "xoff_queue_ecn_marked_packets_total",
}
_CUMULUS_DROPS = ("no-buffer-uc-dropped-pkts", "wred-dropped-pkts")
_CUMULUS_PRIO_PATH = re.compile(
    r"^/?qos/interfaces/interface\[interface-id=([^\]]+)\]/switch-priority\[priority=(\d+)\]/(.+)$"
)
_CUMULUS_PG_PATH = re.compile(
    r"^/?qos/interfaces/interface\[interface-id=([^\]]+)\]/input/priority-group\[pg-id=(\d+)\]/(.+)$"
)
_CUMULUS_PG = {"state/shared-buffer/data/max-occupancy": "xoff_pg_shared_watermark_bytes"}
_CUMULUS_QUEUE_PATH = re.compile(
    r"^/?qos/interfaces/interface\[interface-id=([^\]]+)\]/output/queues/queue\[name=([^\]]+)\]/state/(.+)$"
)
Unmodelled = dict[str, int]


def number(value: Any) -> float | None:
    """A counter as the server sent it (COUNTERS_DB strings, protobuf integers), or None: not observed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?", value.strip()):
        return float(value)
    return None


def _count(unmodelled: Unmodelled, name: str) -> None:
    unmodelled[name] = unmodelled.get(name, 0) + 1


def _updates(notifications: Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, Any]]:
    """(full path, value) of every update; the prefix joined in front where the server sent one."""
    for note in notifications:
        prefix = str(note.get("prefix") or "")
        prefix = "" if prefix.endswith(":") or prefix == SONIC_TARGET else prefix.split(":", 1)[-1]
        for update in note.get("update", []) or []:
            path = str(update.get("path") or "")
            yield (f"{prefix.rstrip('/')}/{path}" if prefix else path), update.get("val")


def _sonic_port(port: str, fields: Mapping[str, Any], out: list[Reading], unmodelled: Unmodelled) -> None:
    for field, raw in fields.items():
        m = _PFC.match(field)
        if m is None:
            _count(unmodelled, f"gnmi COUNTERS: {field}")
            continue
        prio, side, what = m.groups()
        value = number(raw)
        if what == "PKTS":
            metric = f"xoff_pfc_{side.lower()}_pause_frames_total"
        elif side == "RX":
            metric, value = "xoff_pfc_rx_pause_duration_seconds_total", None if value is None else value / 1e6
        else:
            _count(unmodelled, f"gnmi COUNTERS: SAI_PORT_STAT_PFC_N_{side}_{what}")
            continue
        out.append(Reading.of(metric, value, port=port, priority=prio))


def _sonic_keyed(
    table: str, rows: Mapping[str, Any], names: Mapping[str, str], out: list[Reading], unmodelled: Unmodelled
) -> None:
    for key, fields in rows.items():
        port, _, index = str(key).rpartition(":")
        if not index.isdigit() or not isinstance(fields, Mapping):
            _count(unmodelled, f"gnmi COUNTERS/{table}: {key}")
            continue
        if table == "Queues" and int(index) not in _UNICAST:  # multicast queues carry no lossless traffic
            _count(unmodelled, "gnmi COUNTERS/Queues: multicast queue")
            continue
        for field, raw in fields.items():
            if field in names:
                out.append(Reading.of(names[field], number(raw), port=port, queue=index))
            elif field != "PFC_WD_STATUS":
                _count(unmodelled, f"gnmi COUNTERS/{table}: {field}")


def sonic_readings(notifications: Iterable[Mapping[str, Any]]) -> tuple[list[Reading], Unmodelled]:
    """Readings from a SONiC Get (or one Subscribe round) of ``SONIC_PATHS``."""
    out: list[Reading] = []
    unmodelled: Unmodelled = {}
    for path, val in _updates(notifications):
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "COUNTERS" and not isinstance(val, Mapping):  # one field of one port
            _sonic_port(parts[1], {parts[2]: val}, out, unmodelled)
            continue
        if not isinstance(val, Mapping) or parts[:1] != ["COUNTERS"]:
            _count(unmodelled, f"gnmi {path}")
            continue
        if len(parts) == 3 and parts[2] in ("Queues", "Pfcwd"):
            names = _QUEUE if parts[2] == "Queues" else _WATCHDOG
            _sonic_keyed(parts[2], val, names, out, unmodelled)
        elif len(parts) == 2 and parts[1].endswith("*"):
            for port, fields in val.items():
                _sonic_port(str(port), fields if isinstance(fields, Mapping) else {}, out, unmodelled)
        elif len(parts) == 2:
            _sonic_port(parts[1], val, out, unmodelled)
        else:
            _count(unmodelled, f"gnmi {parts[0]}/{'/'.join('*' for _ in parts[1:])}")
    return out, unmodelled


def cumulus_readings(notifications: Iterable[Mapping[str, Any]]) -> tuple[list[Reading], Unmodelled]:
    """Readings from the first round (up to sync_response) of a Cumulus STREAM subscription. A queue's drops are
    its unicast no-buffer drops plus its WRED drops where sent (as ``nv show ... counters qos`` is read), and not
    observed without the no-buffer drops."""
    out: list[Reading] = []
    unmodelled: Unmodelled = {}
    drops: dict[tuple[str, str], dict[str, float | None]] = {}
    for path, val in _updates(notifications):
        prio = _CUMULUS_PRIO_PATH.match(path)
        queue = _CUMULUS_QUEUE_PATH.match(path)
        pg = _CUMULUS_PG_PATH.match(path)
        if pg is not None and pg.group(3) in _CUMULUS_PG:
            out.append(Reading.of(_CUMULUS_PG[pg.group(3)], number(val), port=pg.group(1), pg=pg.group(2)))
        elif prio is not None and prio.group(3) in _CUMULUS_PRIORITY:
            metric, scale = _CUMULUS_PRIORITY[prio.group(3)]
            value = number(val)
            scaled = None if value is None else value * scale
            out.append(Reading.of(metric, scaled, port=prio.group(1), priority=prio.group(2)))
        elif queue is not None and queue.group(3) in _CUMULUS_DROPS:
            drops.setdefault((queue.group(1), queue.group(2)), {})[queue.group(3)] = number(val)
        elif queue is not None and queue.group(3) in _CUMULUS_QUEUE:
            metric = _CUMULUS_QUEUE[queue.group(3)]
            out.append(Reading.of(metric, number(val), port=queue.group(1), queue=queue.group(2)))
        else:
            _count(unmodelled, "gnmi " + re.sub(r"=[^\]]+\]", "=*]", path))
    for (port, q), parts in drops.items():
        uc, wred = parts.get("no-buffer-uc-dropped-pkts"), parts.get("wred-dropped-pkts")
        value = None if uc is None else uc + (wred or 0.0)
        out.append(Reading.of("xoff_queue_dropped_packets_total", value, port=port, queue=q))
    return out, unmodelled
