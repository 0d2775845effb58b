"""SONiC's telemetry service (sonic-gnmi) over COUNTERS_DB: the virtual paths it serves for counters.

Source: sonic-net/SONiC ``doc/system-telemetry/grpc_telemetry.md`` (the server's flags, port 8080 with
``--insecure`` for testing, ``Get`` and ``Subscribe`` STREAM/POLL on target ``COUNTERS_DB``, the paths
``COUNTERS/Ethernet9``, ``COUNTERS/Ethernet*``, ``COUNTERS/Ethernet9/SAI_PORT_STAT_PFC_7_RX_PKTS``,
``COUNTERS/Ethernet68/Queues`` and their JSON_IETF values) and sonic-gnmi's tests (``COUNTERS/Ethernet*/Pfcwd``,
keyed ``Ethernet68:3`` with the PFC watchdog's ``PFC_WD_*`` fields as orchagent's pfcwdorch writes them).

Every value is a string, as COUNTERS_DB holds it. A port's table has the fields the emulator's
``counters.json`` models (``pfc``: ``SAI_PORT_STAT_PFC_<p>_RX_PKTS`` / ``_TX_PKTS``); queues are
``<port>:<index>`` (UC0-9 are 0-9, MC10-19 are 10-19, as queuestat maps them) with ``SAI_QUEUE_STAT_PACKETS``,
``_BYTES``, ``_DROPPED_PACKETS``, ``_DROPPED_BYTES``; the watchdog's rows are those ``counters.json`` holds and
every PFC-enabled queue of a port the watchdog watches (CONFIG_DB ``PFC_WD`` and ``PORT_QOS_MAP``). A value
``null`` in the file is a field COUNTERS_DB lacks: it is left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from xoff.lab.emulators.sonic.moving import read_counters as load

TARGET = "COUNTERS_DB"
PORTS = 8
WILDCARD = "Ethernet*"
_PORT = re.compile(r"^Ethernet\d+$")
_QUEUE_FIELDS = (
    ("packets", "SAI_QUEUE_STAT_PACKETS"),
    ("bytes", "SAI_QUEUE_STAT_BYTES"),
    ("drop_packets", "SAI_QUEUE_STAT_DROPPED_PACKETS"),
    ("drop_bytes", "SAI_QUEUE_STAT_DROPPED_BYTES"),
)
_WD_FIELDS = (
    ("storm_detected", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"),
    ("storm_restored", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"),
    ("tx_ok", "PFC_WD_QUEUE_STATS_TX_PACKETS"),
    ("tx_dropped", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"),
    ("rx_ok", "PFC_WD_QUEUE_STATS_RX_PACKETS"),
    ("rx_dropped", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"),
)
Table = dict[str, dict[str, str]]


class PathNotFoundError(LookupError):
    """A path COUNTERS_DB has nothing at (gRPC NOT_FOUND)."""


def _config(state_dir: Path) -> dict[str, Any]:
    path = state_dir / "config_db.json"
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return data if isinstance(data, dict) else {}


def _key(name: str) -> tuple[int, str]:
    digits = re.sub(r"\D", "", name)
    return (int(digits) if digits else 0, name)


class CountersDb:
    """COUNTERS_DB as the switch holds it at one instant: ports, queues and watchdog rows."""

    def __init__(self, state_dir: Path, now: float) -> None:
        self.counters = load(state_dir / "counters.json", now)
        self.config = _config(state_dir)
        names = set(self.config.get("PORT", {})) or set(self.counters.get("pfc", {})) | set(
            self.counters.get("queue", {})
        )
        self.ports = sorted((p for p in names if _PORT.match(p)), key=_key)

    def port(self, name: str) -> dict[str, str]:
        row = self.counters.get("pfc", {}).get(name, {})
        out: dict[str, str] = {}
        for side, tag in (("rx", "RX"), ("tx", "TX")):
            values = list(row.get(side, []))
            values += [0] * (PORTS - len(values))
            for prio, value in enumerate(values[:PORTS]):
                if value is not None:
                    out[f"SAI_PORT_STAT_PFC_{prio}_{tag}_PKTS"] = str(int(value))
        return out

    def queues(self, name: str) -> Table:
        data = self.counters.get("queue", {}).get(name, {})
        out: Table = {}
        for index in range(20):
            q = data.get(f"UC{index}" if index < 10 else f"MC{index}", {})
            out[f"{name}:{index}"] = {f: str(int(q.get(k, 0))) for k, f in _QUEUE_FIELDS if q.get(k, 0) is not None}
        return out

    def pfcwd(self, name: str) -> Table:
        rows: dict[str, dict[str, Any]] = {
            k: v for k, v in self.counters.get("pfcwd", {}).items() if k.split(":")[0] == name
        }
        if name in self.config.get("PFC_WD", {}):
            enabled = str(self.config.get("PORT_QOS_MAP", {}).get(name, {}).get("pfc_enable", ""))
            for queue in (q for q in enabled.split(",") if q.strip().isdigit()):
                rows.setdefault(f"{name}:{queue.strip()}", {})
        out: Table = {}
        for key, row in sorted(rows.items(), key=lambda kv: _key(kv[0].split(":")[-1])):
            fields = {"PFC_WD_STATUS": str(row.get("status", "operational"))}
            fields |= {f: str(int(row.get(k, 0))) for k, f in _WD_FIELDS if row.get(k, 0) is not None}
            out[key] = fields
        return out


def lookup(db: CountersDb, elems: list[str]) -> str | dict[str, Any]:
    """The value at ``elems`` (``COUNTERS/<port|Ethernet*>[/Queues|/Pfcwd|/<field>]``): a string for one
    field of one port, else the JSON object sonic-gnmi sends as ``json_ietf_val``."""
    if len(elems) not in (2, 3) or elems[0] != "COUNTERS":
        raise PathNotFoundError("/".join(elems))
    ports = db.ports if elems[1] == WILDCARD else [p for p in db.ports if p == elems[1]]
    if not ports:
        raise PathNotFoundError("/".join(elems))
    if len(elems) == 2:
        return {p: db.port(p) for p in ports} if elems[1] == WILDCARD else db.port(ports[0])
    leaf = elems[2]
    if leaf in ("Queues", "Pfcwd"):
        merged: dict[str, Any] = {}
        for p in ports:
            merged |= db.queues(p) if leaf == "Queues" else db.pfcwd(p)
        return merged
    values = {p: db.port(p).get(leaf) for p in ports}
    if all(v is None for v in values.values()):
        raise PathNotFoundError("/".join(elems))
    if elems[1] == WILDCARD:
        return {p: {leaf: v} for p, v in values.items() if v is not None}
    return str(values[ports[0]])
