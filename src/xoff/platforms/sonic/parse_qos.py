"""The QoS, cable-length and watchdog tables of CONFIG_DB -> FabricState values (see parse.py).

Where a switch's ports differ (watchdog action and timers, DSCP map, scheduler or ECN profile per queue),
the Device gets the most common value and each port that differs gets its own in ``settings``
(port -> ``PortSettings`` fields).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from xoff.desired.models import Ecn, PfcWatchdog, Scheduler
from xoff.platforms.sonic.fields import MODELLED, WATCHDOG_FIELDS, WRED_FIELDS, modelled
from xoff.platforms.sonic.names import GLOBAL_QOS_KEY, WATCHDOG_GLOBAL_KEY
from xoff.platforms.sonic.parse_common import (
    ConfigDbParseError,
    Db,
    Row,
    choice,
    fail,
    index_range,
    int_list,
    int_map,
    integer,
    on_port,
    ref,
    single,
    text,
    where,
)

# CONFIG_DB map table -> (PORT_QOS_MAP field, key range, value range)
MAPS: dict[str, tuple[str, tuple[int, int], tuple[int, int]]] = {
    "DSCP_TO_TC_MAP": ("dscp_to_tc_map", (0, 63), (0, 15)),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc_to_pg_map", (0, 15), (0, 7)),
    "TC_TO_QUEUE_MAP": ("tc_to_queue_map", (0, 15), (0, 9)),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_to_queue_map", (0, 7), (0, 7)),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_to_pg_map", (0, 7), (0, 7)),
}
_QOS_FIELDS = {
    "DSCP_TO_TC_MAP": "dscp_to_tc",
    "TC_TO_PRIORITY_GROUP_MAP": "tc_to_priority_group",
    "TC_TO_QUEUE_MAP": "tc_to_queue",
    "MAP_PFC_PRIORITY_TO_QUEUE": "pfc_priority_to_queue",
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": "pfc_priority_to_priority_group",
}
_OPTIONAL_MAPS = {"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"}  # written on Mellanox/Barefoot only
_SCHEDULER_TYPES = {"STRICT": "strict", "DWRR": "dwrr"}
_COLOURS = ("green", "yellow", "red")
# sonic-wred-profile.yang ``ecn``: which colours are marked; lossless RoCE traffic is green
_ECN_MODES = ("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red")
_ECN_MODES_ALL = (*_ECN_MODES, "ecn_all")
_TRUE_FALSE = {"true": True, "false": False}
_WATCHDOG_FIELDS = {
    "action": "watchdog_action",
    "detection_time": "watchdog_detection_ms",
    "restoration_time": "watchdog_restoration_ms",
}
_QUEUE_REFS = {"scheduler": "SCHEDULER", "wred_profile": "WRED_PROFILE"}
_LENGTH = re.compile(r"^(0|[1-9][0-9]*)m$")

Settings = dict[str, dict[str, Any]]  # port -> PortSettings fields where the port differs from the switch


class ParsedQos(TypedDict, total=False):
    dscp_to_tc: dict[int, int]
    tc_to_queue: dict[int, int]
    tc_to_priority_group: dict[int, int]
    pfc_priority_to_queue: dict[int, int]
    pfc_priority_to_priority_group: dict[int, int]
    lossless_priorities: list[int]
    schedulers: dict[int, Scheduler]
    ecn: dict[int, Ecn]


def _key(value: Any) -> str:
    return json.dumps(value.model_dump() if hasattr(value, "model_dump") else value, sort_keys=True, default=str)


def _most_common(values: Iterable[Any]) -> Any:
    """The value most ports hold (the first one seen on a tie)."""
    items = list(values)
    counts = Counter(_key(v) for v in items)
    best = max(counts.values())
    return next(v for v in items if counts[_key(v)] == best)


# --- PORT_QOS_MAP, PFC_WD, CABLE_LENGTH --------------------------------------------------------------


@dataclass
class PortQos:
    """One PORT_QOS_MAP row: PFC priorities, the watchdog's queues (None: not written), the maps it names."""

    pfc: list[int]
    watchdog_queues: list[int] | None
    maps: dict[str, str]


def parse_port_qos(db: Db, ports: list[str]) -> dict[str, PortQos]:
    """Port (and ``global``) -> its PORT_QOS_MAP row; every map a row names must exist."""
    out: dict[str, PortQos] = {}
    by_field = {f: t for t, (f, _, _) in MAPS.items()}
    for key, raw in db.table("PORT_QOS_MAP").items():
        allowed = modelled("PORT_QOS_MAP", key) or frozenset()
        if key != GLOBAL_QOS_KEY and not on_port(db, "PORT_QOS_MAP", key, ports):
            continue
        row = db.fields("PORT_QOS_MAP", key, raw, allowed)
        entry = PortQos(pfc=[], watchdog_queues=None, maps={})
        for name, value in row.items():
            if name in by_field:
                with db.guard(f"qos.{_QOS_FIELDS[by_field[name]]}"):
                    target = ref(where("PORT_QOS_MAP", key, name), value, by_field[name])
                    if target not in db.table(by_field[name]):
                        raise fail(where("PORT_QOS_MAP", key, name), f"no {by_field[name]}|{target}")
                    entry.maps[name] = target
        with db.guard(f"interfaces.{key}.pfc_priorities"):
            entry.pfc = int_list(where("PORT_QOS_MAP", key, "pfc_enable"), row.get("pfc_enable", ""), 0, 7)
        if "pfcwd_sw_enable" in row:
            with db.guard("pfc_watchdog.queues"):
                place = where("PORT_QOS_MAP", key, "pfcwd_sw_enable")
                entry.watchdog_queues = int_list(place, row["pfcwd_sw_enable"], 0, 7)
        out[key] = entry
    return out


def _poll_interval(db: Db, rows: dict[str, Row]) -> int | None:
    if WATCHDOG_GLOBAL_KEY not in rows:
        return None
    row = db.fields(
        "PFC_WD", WATCHDOG_GLOBAL_KEY, rows[WATCHDOG_GLOBAL_KEY], modelled("PFC_WD", WATCHDOG_GLOBAL_KEY) or ()
    )
    if "POLL_INTERVAL" not in row:
        return None
    with db.guard("pfc_watchdog.poll_interval_ms"):
        return integer(where("PFC_WD", WATCHDOG_GLOBAL_KEY, "POLL_INTERVAL"), row["POLL_INTERVAL"], 100, 1000)
    return None


def _watchdog_port(db: Db, port: str, raw: Row) -> dict[str, Any]:
    """One port's watchdog values by PortSettings name (a malformed one is left out, with its error)."""
    row = db.fields("PFC_WD", port, raw, WATCHDOG_FIELDS)
    out: dict[str, Any] = {}
    readers: dict[str, Callable[[str, Any], Any]] = {
        "action": lambda place, v: choice(place, v, {a: a for a in ("drop", "forward", "alert")}),
        "detection_time": lambda place, v: integer(place, v, 100, 5000),
        "restoration_time": lambda place, v: integer(place, v, 100, 60000),
    }
    for name, setting in _WATCHDOG_FIELDS.items():
        with db.guard():
            if name not in row:
                raise fail(where("PFC_WD", port), f"missing field(s) {name}")
            out[setting] = readers[name](where("PFC_WD", port, name), row[name])
    return out


def parse_watchdog(db: Db, ports: list[str], port_qos: dict[str, PortQos], settings: Settings) -> PfcWatchdog | None:
    """The watchdog as most watched ports run it; ports that differ get their values in ``settings``.

    A port with pfcwd_sw_enable but no PFC_WD entry is one the watchdog does not run on: what
    ``config pfcwd stop <port>`` leaves (it deletes PFC_WD|<port> only); the checks judge it."""
    rows = db.table("PFC_WD")
    poll = _poll_interval(db, rows)
    watched = [k for k in rows if k != WATCHDOG_GLOBAL_KEY and on_port(db, "PFC_WD", k, ports)]
    if not watched:
        return None
    values = {port: _watchdog_port(db, port, rows[port]) for port in watched}
    common: dict[str, Any] = {}
    for setting in _WATCHDOG_FIELDS.values():
        seen = [v[setting] for v in values.values() if setting in v]
        if not seen:
            db.unobserved.add("pfc_watchdog")
            return None
        common[setting] = _most_common(seen)
    for port, got in values.items():
        for setting, value in got.items():
            if value != common[setting]:
                settings.setdefault(port, {})[setting] = value
    queues = {p: (port_qos[p].watchdog_queues if p in port_qos else None) for p in watched}
    for port in watched:  # images before pfcwd_sw_enable watch the PFC queues
        if queues[port] is None:
            queues[port] = port_qos[port].pfc if port in port_qos else []
    common_queues = _most_common(queues.values())
    for port, value in queues.items():
        if value != common_queues:
            db.unmodelled[f"PORT_QOS_MAP.pfcwd_sw_enable (per-port, {port})"] += 1
    if poll is None and "pfc_watchdog.poll_interval_ms" not in db.unobserved:
        db.errors.append("PFC_WD|GLOBAL POLL_INTERVAL: missing while ports are watched")
        db.unobserved.add("pfc_watchdog.poll_interval_ms")
    return PfcWatchdog(
        poll_interval_ms=poll or 0,  # 0 only where not observed (listed in unobserved, never judged)
        detection_ms=common["watchdog_detection_ms"],
        restoration_ms=common["watchdog_restoration_ms"],
        action=common["watchdog_action"],
        ports=watched,
        queues=list(common_queues),
    )


def parse_cable_lengths(db: Db, ports: list[str]) -> dict[str, int]:
    found = single(db, "CABLE_LENGTH")
    if found is None:
        return {}
    name, row = found
    out: dict[str, int] = {}
    for port, value in row.items():
        if not on_port(db, "CABLE_LENGTH", port, ports):
            continue
        raw = text(where("CABLE_LENGTH", name, port), value)
        if not _LENGTH.match(raw):
            raise fail(where("CABLE_LENGTH", name, port), f"{raw!r} is not <metres>m")
        out[port] = int(raw[:-1])
    return out


# --- maps, schedulers, ECN -----------------------------------------------------------------------


def _map_choice(db: Db, table: str, port_qos: dict[str, PortQos]) -> tuple[str | None, dict[str, str]]:
    """The map most rows of PORT_QOS_MAP name (or the only one), and port -> the map it names."""
    field_name = MAPS[table][0]
    rows = db.table(table)
    named = {p: q.maps[field_name] for p, q in port_qos.items() if field_name in q.maps}
    if named:
        return _most_common(named.values()), named
    if len(rows) == 1:
        return next(iter(rows)), named
    if rows:
        raise ConfigDbParseError(f"{table}: {len(rows)} entries ({', '.join(rows)}) and no PORT_QOS_MAP names one")
    if table in _OPTIONAL_MAPS:
        return None, named
    raise ConfigDbParseError(f"{table}: missing (the other QoS maps are present)")


def _read_map(db: Db, table: str, name: str) -> dict[int, int]:
    _, (klo, khi), (vlo, vhi) = MAPS[table]
    return int_map(table, name, db.table(table)[name], klo, khi, vlo, vhi)


def _maps(db: Db, out: ParsedQos, port_qos: dict[str, PortQos], settings: Settings) -> None:
    for table in MAPS:
        qos_field = _QOS_FIELDS[table]
        with db.guard(f"qos.{qos_field}"):
            chosen, named = _map_choice(db, table, port_qos)
            if chosen is None:
                continue
            out[qos_field] = _read_map(db, table, chosen)  # type: ignore[literal-required]
            for unused in sorted(set(db.table(table)) - {chosen, *named.values()}):
                db.unmodelled[f"{table} (unused: {unused})"] += 1
            for port, name in named.items():
                if name == chosen or port == GLOBAL_QOS_KEY:
                    continue
                if table == "DSCP_TO_TC_MAP":
                    with db.guard():
                        settings.setdefault(port, {})["dscp_to_tc"] = _read_map(db, table, name)
                else:
                    db.unmodelled[f"PORT_QOS_MAP.{MAPS[table][0]} (per-port, {port})"] += 1


def parse_qos(db: Db, ports: list[str], port_qos: dict[str, PortQos], settings: Settings) -> ParsedQos | None:
    if not any(db.table(t) for t in MAPS):
        for table in ("SCHEDULER", "QUEUE", "WRED_PROFILE"):
            if db.table(table):  # scheduling without the QoS maps: nothing of FabricState's qos to hold it
                db.unmodelled[f"{table} (without the QoS maps)"] += len(db.table(table))
        return None
    out = ParsedQos()
    _maps(db, out, port_qos, settings)
    out["lossless_priorities"] = sorted({p for port, q in port_qos.items() if port in ports for p in q.pfc})
    schedulers: dict[str, Scheduler] = {}
    for name, row in db.table("SCHEDULER").items():
        with db.guard("qos.schedulers"):
            schedulers[name] = _scheduler(db, name, row)
    wred: dict[str, Ecn | None] = {}
    for name, row in db.table("WRED_PROFILE").items():
        with db.guard("qos.ecn"):
            wred[name] = _ecn(db, name, row)
    per_port = _queues(db, ports, schedulers, wred)
    out["schedulers"] = _per_queue(per_port, 0, "schedulers", settings)
    out["ecn"] = _per_queue(per_port, 1, "ecn", settings)
    return out


QueuePlan = dict[int, tuple[Any, Any]]  # queue -> (Scheduler | None | _UNREAD, Ecn | None | _UNREAD)
_UNREAD: Any = object()  # a queue setting whose reference could not be read


def _queue_ref(db: Db, key: str, row: Row, name: str, known: dict[str, Any]) -> Any:
    """The row a QUEUE field names, read (None: not written, or a row whose own error is reported)."""
    if name not in row:
        return None
    table = _QUEUE_REFS[name]
    target = ref(where("QUEUE", key, name), row[name], table)
    if target not in db.table(table):
        raise fail(where("QUEUE", key, name), f"no {table}|{target}")
    return known.get(target, _UNREAD)


def _queues(
    db: Db, ports: list[str], schedulers: dict[str, Scheduler], wred: dict[str, Ecn | None]
) -> dict[str, QueuePlan]:
    per_port: dict[str, QueuePlan] = {}
    for key, raw in db.table("QUEUE").items():
        port, _, qindex = key.partition("|")
        if not on_port(db, "QUEUE", port, ports):
            continue
        row = db.fields("QUEUE", key, raw, MODELLED["QUEUE"])
        sched: Any = _UNREAD  # until read: a malformed reference leaves it so
        ecn: Any = _UNREAD
        with db.guard("qos.schedulers"):
            sched = _queue_ref(db, key, row, "scheduler", schedulers)
        with db.guard("qos.ecn"):
            ecn = _queue_ref(db, key, row, "wred_profile", wred)
        with db.guard("qos.schedulers", "qos.ecn"):
            for queue in index_range(where("QUEUE", key), qindex, 0, 9):
                per_port.setdefault(port, {})[queue] = (sched, ecn)
    return per_port


def _per_queue(per_port: dict[str, QueuePlan], side: int, setting: str, settings: Settings) -> dict[int, Any]:
    """Queue -> the value most ports hold; a port whose queues differ gets its own map in ``settings``."""
    queues = sorted({q for plan in per_port.values() for q in plan})
    common: dict[int, Any] = {}
    for queue in queues:
        seen = [plan[queue][side] for plan in per_port.values() if queue in plan and plan[queue][side] is not _UNREAD]
        value = _most_common(seen) if seen else None
        if value is not None:
            common[queue] = value
    for port, plan in per_port.items():
        if any(v[side] is _UNREAD for v in plan.values()):
            continue  # a queue of this port could not be read (its error is reported): not judged per port
        mine = {q: v[side] for q, v in plan.items() if v[side] is not None}
        theirs = {q: v for q, v in common.items() if q in plan}
        if mine != theirs:
            settings.setdefault(port, {})[setting] = mine
    return common


def _scheduler(db: Db, name: str, raw: Row) -> Scheduler:
    row = db.fields("SCHEDULER", name, raw, MODELLED["SCHEDULER"], required=("type",))
    kind = choice(where("SCHEDULER", name, "type"), row["type"], _SCHEDULER_TYPES)
    weight = integer(where("SCHEDULER", name, "weight"), row["weight"], 1, 100) if "weight" in row else None
    return Scheduler(type=kind, weight=weight)


def _ecn(db: Db, name: str, raw: Row) -> Ecn | None:
    """The ECN marking of green (lossless) traffic, or None where green is not marked (``ecn`` absent or
    not naming green, or ``wred_green_enable`` not true). Other colours' thresholds are checked; where
    they differ from green's they are counted as unmodelled."""
    row = db.fields("WRED_PROFILE", name, raw, WRED_FIELDS)
    place = where("WRED_PROFILE", name)
    thresholds: dict[str, tuple[int, int, int]] = {}
    for c in _COLOURS:
        keys = (f"{c}_min_threshold", f"{c}_max_threshold", f"{c}_drop_probability")
        if not any(k in row for k in keys):
            continue
        missing = [k for k in keys if k not in row]
        if missing:
            if c == "green":
                raise fail(place, f"missing field(s) {', '.join(missing)}")
            continue
        low = integer(f"{place} {keys[0]}", row[keys[0]], 0)
        high = integer(f"{place} {keys[1]}", row[keys[1]], 0)
        prob = integer(f"{place} {keys[2]}", row[keys[2]], 0, 100)
        if high < low:
            raise fail(f"{place} {keys[1]}", f"{high} is below the minimum {low}")
        thresholds[c] = (low, high, prob)
    enabled = {
        c: choice(f"{place} wred_{c}_enable", row.get(f"wred_{c}_enable", "false"), _TRUE_FALSE) for c in _COLOURS
    }
    mode = choice(place + " ecn", row.get("ecn", "ecn_none"), {m: m for m in _ECN_MODES_ALL})
    if not ("green" in mode or mode == "ecn_all") or not enabled["green"]:
        return None
    if "green" not in thresholds:
        raise fail(place, "marks green but has no green thresholds")
    for c in ("yellow", "red"):
        if c in thresholds and thresholds[c] != thresholds["green"]:
            db.unmodelled[f"WRED_PROFILE.{c}_* (differs from green)"] += 1
        if c in thresholds and enabled[c] != enabled["green"]:
            db.unmodelled[f"WRED_PROFILE.wred_{c}_enable (differs from green)"] += 1
    low, high, prob = thresholds["green"]
    return Ecn(min_threshold=low, max_threshold=high, probability=prob)
