"""The QoS, buffer, cable-length and watchdog tables of CONFIG_DB -> FabricState values (see parse.py)."""

from __future__ import annotations

import re
from typing import Any, TypedDict

from xoff.desired.models import BufferPool, Ecn, PfcWatchdog, Scheduler
from xoff.platforms.sonic.names import DYNAMIC_PG_PROFILE, GLOBAL_QOS_KEY, WATCHDOG_GLOBAL_KEY
from xoff.platforms.sonic.parse_common import (
    ConfigDbParseError,
    Db,
    Row,
    check_fields,
    choice,
    fail,
    index_range,
    int_list,
    int_map,
    integer,
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
_WRED_FIELDS = {
    *(f"{c}_{k}" for c in _COLOURS for k in ("min_threshold", "max_threshold", "drop_probability")),
    *(f"wred_{c}_enable" for c in _COLOURS),
    "ecn",
}
_LENGTH = re.compile(r"^(0|[1-9][0-9]*)m$")


class ParsedQos(TypedDict, total=False):
    dscp_to_tc: dict[int, int]
    tc_to_queue: dict[int, int]
    tc_to_priority_group: dict[int, int]
    pfc_priority_to_queue: dict[int, int]
    pfc_priority_to_priority_group: dict[int, int]
    lossless_priorities: list[int]
    schedulers: dict[int, Scheduler]
    ecn: dict[int, Ecn]


class ParsedProfile(TypedDict):
    name: str
    pool: str
    xon: int
    xoff: int
    size: int
    xon_offset: int | None
    dynamic_th: int | None


class ParsedBuffers(TypedDict, total=False):
    model: str
    pools: list[BufferPool]
    profiles: dict[str, ParsedProfile]
    port_priority_groups: dict[str, dict[str, str]]
    lossless_mtu: int
    small_packet_percent: int


def _port(table: str, key: str, name: str, ports: list[str]) -> str:
    if name not in ports:
        raise fail(where(table, key), f"{name} is not a PORT")
    return name


def _single(db: Db, table: str) -> tuple[str, Row] | None:
    rows = db.table(table)
    if not rows:
        return None
    if len(rows) > 1:
        raise ConfigDbParseError(f"{table}: {len(rows)} entries ({', '.join(rows)}); FabricState holds one per switch")
    return next(iter(rows.items()))


# --- PORT_QOS_MAP, PFC_WD, CABLE_LENGTH --------------------------------------------------------------


def parse_port_qos(db: Db, ports: list[str]) -> dict[str, tuple[list[int], list[int]]]:
    """Port -> (pfc_enable, pfcwd_sw_enable); every map a port names must exist."""
    out: dict[str, tuple[list[int], list[int]]] = {}
    by_field = {f: t for t, (f, _, _) in MAPS.items()}
    for key, row in db.table("PORT_QOS_MAP").items():
        allowed = {"dscp_to_tc_map"} if key == GLOBAL_QOS_KEY else {*by_field, "pfc_enable", "pfcwd_sw_enable"}
        check_fields("PORT_QOS_MAP", key, row, allowed)
        for field, value in row.items():
            if field in by_field and text(where("PORT_QOS_MAP", key, field), value) not in db.table(by_field[field]):
                raise fail(where("PORT_QOS_MAP", key, field), f"no {by_field[field]}|{value}")
        if key == GLOBAL_QOS_KEY:
            continue
        _port("PORT_QOS_MAP", key, key, ports)
        pfc = int_list(where("PORT_QOS_MAP", key, "pfc_enable"), row.get("pfc_enable", ""), 0, 7)
        wd = int_list(where("PORT_QOS_MAP", key, "pfcwd_sw_enable"), row.get("pfcwd_sw_enable", ""), 0, 7)
        out[key] = (pfc, wd)
    return out


def parse_watchdog(db: Db, ports: list[str], pfcwd: dict[str, list[int]]) -> PfcWatchdog | None:
    rows = db.table("PFC_WD")
    # a port with pfcwd_sw_enable but no PFC_WD entry is one the watchdog does not run on: what
    # `config pfcwd stop <port>` leaves (it deletes PFC_WD|<port> only); the checks judge it
    watched = [k for k in rows if k != WATCHDOG_GLOBAL_KEY]
    if not watched:
        if WATCHDOG_GLOBAL_KEY in rows:
            check_fields("PFC_WD", WATCHDOG_GLOBAL_KEY, rows[WATCHDOG_GLOBAL_KEY], {"POLL_INTERVAL"})
        return None
    if WATCHDOG_GLOBAL_KEY not in rows:
        raise ConfigDbParseError("PFC_WD|GLOBAL: missing (POLL_INTERVAL)")
    check_fields(
        "PFC_WD", WATCHDOG_GLOBAL_KEY, rows[WATCHDOG_GLOBAL_KEY], {"POLL_INTERVAL"}, required=("POLL_INTERVAL",)
    )
    poll = integer(
        where("PFC_WD", WATCHDOG_GLOBAL_KEY, "POLL_INTERVAL"), rows[WATCHDOG_GLOBAL_KEY]["POLL_INTERVAL"], 100, 1000
    )
    timers: set[tuple[str, int, int]] = set()
    queue_sets: set[tuple[int, ...]] = set()
    for port in watched:
        row = rows[port]
        _port("PFC_WD", port, port, ports)
        fields = ("action", "detection_time", "restoration_time")
        check_fields("PFC_WD", port, row, fields, required=fields)
        action = choice(where("PFC_WD", port, "action"), row["action"], {a: a for a in ("drop", "forward", "alert")})
        detection = integer(where("PFC_WD", port, "detection_time"), row["detection_time"], 100, 5000)
        restoration = integer(where("PFC_WD", port, "restoration_time"), row["restoration_time"], 100, 60000)
        timers.add((action, detection, restoration))
        queues = pfcwd.get(port, [])
        if not queues:
            raise fail(where("PORT_QOS_MAP", port, "pfcwd_sw_enable"), "missing for a port with PFC_WD")
        queue_sets.add(tuple(queues))
    if len(timers) > 1 or len(queue_sets) > 1:
        raise ConfigDbParseError(
            "PFC_WD: ports differ in action, timers or pfcwd_sw_enable; FabricState has one watchdog"
        )
    ((action, detection, restoration),) = timers
    return PfcWatchdog(
        poll_interval_ms=poll,
        detection_ms=detection,
        restoration_ms=restoration,
        action=action,
        ports=watched,
        queues=list(next(iter(queue_sets))),
    )


def parse_cable_lengths(db: Db, ports: list[str]) -> dict[str, int]:
    found = _single(db, "CABLE_LENGTH")
    if found is None:
        return {}
    name, row = found
    out: dict[str, int] = {}
    for port, value in row.items():
        _port("CABLE_LENGTH", name, port, ports)
        raw = text(where("CABLE_LENGTH", name, port), value)
        if not _LENGTH.match(raw):
            raise fail(where("CABLE_LENGTH", name, port), f"{raw!r} is not <metres>m")
        out[port] = int(raw[:-1])
    return out


# --- maps, schedulers, ECN -----------------------------------------------------------------------


def parse_qos(db: Db, ports: list[str], pfc: dict[str, list[int]]) -> ParsedQos | None:
    present = [t for t in MAPS if db.table(t)]
    if not present:
        for table in ("SCHEDULER", "QUEUE", "WRED_PROFILE"):
            if db.table(table):
                raise ConfigDbParseError(f"{table}: QoS scheduling without the QoS maps")
        return None
    out = ParsedQos()
    for table, (_, (klo, khi), (vlo, vhi)) in MAPS.items():
        found = _single(db, table)
        if found is None:
            if table in _OPTIONAL_MAPS:
                continue
            raise ConfigDbParseError(f"{table}: missing (the other QoS maps are present)")
        name, row = found
        out[_QOS_FIELDS[table]] = int_map(table, name, row, klo, khi, vlo, vhi)  # type: ignore[literal-required]
    out["lossless_priorities"] = sorted({p for values in pfc.values() for p in values})
    schedulers = {name: _scheduler(name, row) for name, row in db.table("SCHEDULER").items()}
    wred = {name: _ecn(name, row) for name, row in db.table("WRED_PROFILE").items()}
    per_port: dict[str, dict[int, tuple[str | None, str | None]]] = {}
    for key, row in db.table("QUEUE").items():
        port, _, qindex = key.partition("|")
        _port("QUEUE", key, port, ports)
        check_fields("QUEUE", key, row, {"scheduler", "wred_profile"})
        sched, profile = row.get("scheduler"), row.get("wred_profile")
        if sched is not None and sched not in schedulers:
            raise fail(where("QUEUE", key, "scheduler"), f"no SCHEDULER|{sched}")
        if profile is not None and profile not in wred:
            raise fail(where("QUEUE", key, "wred_profile"), f"no WRED_PROFILE|{profile}")
        for queue in index_range(where("QUEUE", key), qindex, 0, 9):
            per_port.setdefault(port, {})[queue] = (sched, profile)
    plans = {tuple(sorted(p.items())) for p in per_port.values()}
    if len(plans) > 1:
        raise ConfigDbParseError(
            "QUEUE: ports differ in schedulers or WRED profiles; FabricState has one plan per switch"
        )
    plan = dict(plans.pop()) if plans else {}
    out["schedulers"] = {q: schedulers[s] for q, (s, _) in plan.items() if s is not None}
    out["ecn"] = {q: wred[w] for q, (_, w) in plan.items() if w is not None}
    return out


def _scheduler(name: str, row: Row) -> Scheduler:
    check_fields("SCHEDULER", name, row, {"type", "weight"}, required=("type",))
    kind = choice(where("SCHEDULER", name, "type"), row["type"], _SCHEDULER_TYPES)
    weight = integer(where("SCHEDULER", name, "weight"), row["weight"], 1, 100) if "weight" in row else None
    return Scheduler(type=kind, weight=weight)


def _ecn(name: str, row: Row) -> Ecn:
    """Only plain ECN marking is representable: every colour the same thresholds, all enabled, ecn_all."""
    check_fields("WRED_PROFILE", name, row, _WRED_FIELDS, required=sorted(_WRED_FIELDS))
    values: set[tuple[int, int, int]] = set()
    for c in _COLOURS:
        place = where("WRED_PROFILE", name)
        low = integer(f"{place} {c}_min_threshold", row[f"{c}_min_threshold"], 0)
        high = integer(f"{place} {c}_max_threshold", row[f"{c}_max_threshold"], 0)
        prob = integer(f"{place} {c}_drop_probability", row[f"{c}_drop_probability"], 0, 100)
        if high < low:
            raise fail(f"{place} {c}_max_threshold", f"{high} is below the minimum {low}")
        if row[f"wred_{c}_enable"] != "true":
            raise fail(f"{place} wred_{c}_enable", f"{row[f'wred_{c}_enable']!r}: only enabled marking is modelled")
        values.add((low, high, prob))
    if row["ecn"] != "ecn_all" or len(values) != 1:
        raise fail(where("WRED_PROFILE", name), "only ecn_all with the same thresholds on every colour is modelled")
    ((low, high, prob),) = values
    return Ecn(min_threshold=low, max_threshold=high, probability=prob)


# --- buffers ---------------------------------------------------------------------------------------


def parse_buffers(db: Db, ports: list[str], model: str | None) -> ParsedBuffers | None:  # noqa: C901 -- one pass per SONiC buffer table (POOL, PROFILE, PG, QUEUE), each checked against the ports and the ones before it
    tables = ("BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE")
    if not any(db.table(t) for t in tables):
        return None
    out = ParsedBuffers(model=model or "static", pools=[_pool(n, r) for n, r in db.table("BUFFER_POOL").items()])
    pools = {p.name: p for p in out["pools"]}
    profiles: dict[str, ParsedProfile] = {}
    known: set[str] = set()
    for name, row in db.table("BUFFER_PROFILE").items():
        known.add(name)
        parsed = _profile(name, row, pools)
        if parsed is not None:
            profiles[name] = parsed
    port_pgs: dict[str, dict[str, str]] = {}
    for key, row in db.table("BUFFER_PG").items():
        port, _, pgs = key.partition("|")
        _port("BUFFER_PG", key, port, ports)
        index_range(where("BUFFER_PG", key), pgs, 0, 7)
        check_fields("BUFFER_PG", key, row, {"profile"}, required=("profile",))
        profile = text(where("BUFFER_PG", key, "profile"), row["profile"])
        if profile == DYNAMIC_PG_PROFILE and out["model"] != "dynamic":
            raise fail(where("BUFFER_PG", key, "profile"), '"NULL" (computed headroom) needs buffer_model dynamic')
        if profile != DYNAMIC_PG_PROFILE and profile not in known:
            raise fail(where("BUFFER_PG", key, "profile"), f"no BUFFER_PROFILE|{profile}")
        if profile in profiles:
            port_pgs.setdefault(port, {})[pgs] = profile
    for key, row in db.table("BUFFER_QUEUE").items():
        port, _, queues = key.partition("|")
        _port("BUFFER_QUEUE", key, port, ports)
        index_range(where("BUFFER_QUEUE", key), queues, 0, 15)
        check_fields("BUFFER_QUEUE", key, row, {"profile"}, required=("profile",))
        if row["profile"] not in known:
            raise fail(where("BUFFER_QUEUE", key, "profile"), f"no BUFFER_PROFILE|{row['profile']}")
    if out["model"] == "static":
        out["profiles"] = profiles
        out["port_priority_groups"] = port_pgs
    pattern = _single(db, "LOSSLESS_TRAFFIC_PATTERN")
    if pattern is not None:
        name, row = pattern
        check_fields(
            "LOSSLESS_TRAFFIC_PATTERN",
            name,
            row,
            {"mtu", "small_packet_percentage"},
            required=("mtu", "small_packet_percentage"),
        )
        out["lossless_mtu"] = integer(where("LOSSLESS_TRAFFIC_PATTERN", name, "mtu"), row["mtu"], 1)
        out["small_packet_percent"] = integer(
            where("LOSSLESS_TRAFFIC_PATTERN", name, "small_packet_percentage"), row["small_packet_percentage"], 0, 100
        )
    params = _single(db, "DEFAULT_LOSSLESS_BUFFER_PARAMETER")
    if params is not None:
        name, row = params
        check_fields(
            "DEFAULT_LOSSLESS_BUFFER_PARAMETER", name, row, {"default_dynamic_th"}, required=("default_dynamic_th",)
        )
        integer(
            where("DEFAULT_LOSSLESS_BUFFER_PARAMETER", name, "default_dynamic_th"), row["default_dynamic_th"], -8, 7
        )
    return out


def _pool(name: str, row: Row) -> BufferPool:
    check_fields("BUFFER_POOL", name, row, {"type", "mode", "size", "xoff"}, required=("type", "mode"))
    place = where("BUFFER_POOL", name)
    kind: Any = choice(place + " type", row["type"], {"ingress": "ingress", "egress": "egress"})
    mode: Any = choice(place + " mode", row["mode"], {"static": "static", "dynamic": "dynamic"})
    return BufferPool(
        name=name,
        type=kind,
        mode=mode,
        size=integer(place + " size", row["size"], 0) if "size" in row else None,
        xoff=integer(place + " xoff", row["xoff"], 0) if "xoff" in row else None,
    )


def _profile(name: str, row: Row, pools: dict[str, BufferPool]) -> ParsedProfile | None:
    """A lossless (headroom) profile, which has xon and xoff, or None for a lossy one (still checked)."""
    allowed = {"pool", "size", "xon", "xoff", "xon_offset", "dynamic_th", "static_th"}
    check_fields("BUFFER_PROFILE", name, row, allowed, required=("pool", "size"))
    place = where("BUFFER_PROFILE", name)
    if row["pool"] not in pools:
        raise fail(place + " pool", f"no BUFFER_POOL|{row['pool']}")
    if ("dynamic_th" in row) == ("static_th" in row):
        raise fail(place, "needs exactly one of dynamic_th and static_th")
    dynamic_th = integer(place + " dynamic_th", row["dynamic_th"], -8, 7) if "dynamic_th" in row else None
    if "static_th" in row:
        integer(place + " static_th", row["static_th"], 0)
    size = integer(place + " size", row["size"], 0)
    xon_offset = integer(place + " xon_offset", row["xon_offset"], 0) if "xon_offset" in row else None
    if "xoff" not in row and "xon" not in row:
        return None
    check_fields("BUFFER_PROFILE", name, row, allowed, required=("xon", "xoff"))
    return ParsedProfile(
        name=name,
        pool=text(place + " pool", row["pool"]),
        xon=integer(place + " xon", row["xon"], 0),
        xoff=integer(place + " xoff", row["xoff"], 0),
        size=size,
        xon_offset=xon_offset,
        dynamic_th=dynamic_th,
    )
