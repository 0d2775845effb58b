"""The buffer tables of CONFIG_DB (BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE, and the dynamic
model's LOSSLESS_TRAFFIC_PATTERN and DEFAULT_LOSSLESS_BUFFER_PARAMETER) -> FabricState values (see parse.py)."""

from __future__ import annotations

from typing import Any, TypedDict

from xoff.desired.models import BufferPool
from xoff.platforms.sonic.fields import MODELLED
from xoff.platforms.sonic.names import DYNAMIC_PG_PROFILE
from xoff.platforms.sonic.parse_common import (
    Db,
    Row,
    choice,
    fail,
    index_range,
    integer,
    on_port,
    ref,
    single,
    where,
)


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
    over_subscribe_ratio: int | None


def parse_buffers(db: Db, ports: list[str], model: str | None) -> ParsedBuffers | None:
    tables = ("BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE")
    if not any(db.table(t) for t in tables):
        return None
    out = ParsedBuffers(model=model or "static", pools=[_pool(db, n, r) for n, r in db.table("BUFFER_POOL").items()])
    pools = {p.name: p for p in out["pools"]}
    profiles: dict[str, ParsedProfile] = {}
    for name, row in db.table("BUFFER_PROFILE").items():
        parsed = _profile(db, name, row, pools)
        if parsed is not None:
            profiles[name] = parsed
    port_pgs = _priority_groups(db, ports, out["model"], set(db.table("BUFFER_PROFILE")), profiles)
    for key, raw in db.table("BUFFER_QUEUE").items():
        port, _, queues = key.partition("|")
        if not on_port(db, "BUFFER_QUEUE", port, ports):
            continue
        index_range(where("BUFFER_QUEUE", key), queues, 0, 15)
        row = db.fields("BUFFER_QUEUE", key, raw, MODELLED["BUFFER_QUEUE"], required=("profile",))
        profile = ref(where("BUFFER_QUEUE", key, "profile"), row["profile"], "BUFFER_PROFILE")
        if profile not in db.table("BUFFER_PROFILE"):
            raise fail(where("BUFFER_QUEUE", key, "profile"), f"no BUFFER_PROFILE|{profile}")
    if out["model"] == "static":
        out["profiles"] = profiles
        out["port_priority_groups"] = port_pgs
    _dynamic_parameters(db, out)
    return out


def _priority_groups(
    db: Db, ports: list[str], model: str, known: set[str], profiles: dict[str, ParsedProfile]
) -> dict[str, dict[str, str]]:
    port_pgs: dict[str, dict[str, str]] = {}
    for key, raw in db.table("BUFFER_PG").items():
        port, _, pgs = key.partition("|")
        if not on_port(db, "BUFFER_PG", port, ports):
            continue
        index_range(where("BUFFER_PG", key), pgs, 0, 7)
        row = db.fields("BUFFER_PG", key, raw, MODELLED["BUFFER_PG"], required=("profile",))
        profile = ref(where("BUFFER_PG", key, "profile"), row["profile"], "BUFFER_PROFILE")
        if profile == DYNAMIC_PG_PROFILE and model != "dynamic":
            raise fail(where("BUFFER_PG", key, "profile"), '"NULL" (computed headroom) needs buffer_model dynamic')
        if profile != DYNAMIC_PG_PROFILE and profile not in known:
            raise fail(where("BUFFER_PG", key, "profile"), f"no BUFFER_PROFILE|{profile}")
        if profile in profiles:
            port_pgs.setdefault(port, {})[pgs] = profile
    return port_pgs


def _dynamic_parameters(db: Db, out: ParsedBuffers) -> None:
    pattern = single(db, "LOSSLESS_TRAFFIC_PATTERN")
    if pattern is not None:
        name, raw = pattern
        fields = ("mtu", "small_packet_percentage")
        row = db.fields("LOSSLESS_TRAFFIC_PATTERN", name, raw, fields, required=fields)
        out["lossless_mtu"] = integer(where("LOSSLESS_TRAFFIC_PATTERN", name, "mtu"), row["mtu"], 1)
        out["small_packet_percent"] = integer(
            where("LOSSLESS_TRAFFIC_PATTERN", name, "small_packet_percentage"), row["small_packet_percentage"], 0, 100
        )
    params = single(db, "DEFAULT_LOSSLESS_BUFFER_PARAMETER")
    if params is not None:
        name, raw = params
        allowed = MODELLED["DEFAULT_LOSSLESS_BUFFER_PARAMETER"]
        row = db.fields("DEFAULT_LOSSLESS_BUFFER_PARAMETER", name, raw, allowed, required=("default_dynamic_th",))
        place = where("DEFAULT_LOSSLESS_BUFFER_PARAMETER", name, "default_dynamic_th")
        integer(place, row["default_dynamic_th"], -8, 7)
        # SONiC reads a missing or 0 ratio as "no over-subscription" (buffer_pool_mellanox.lua).
        ratio = row.get("over_subscribe_ratio")
        place = where("DEFAULT_LOSSLESS_BUFFER_PARAMETER", name, "over_subscribe_ratio")
        out["over_subscribe_ratio"] = (integer(place, ratio, 0, 65535) or None) if ratio is not None else None


def _pool(db: Db, name: str, raw: Row) -> BufferPool:
    row = db.fields("BUFFER_POOL", name, raw, MODELLED["BUFFER_POOL"], required=("type", "mode"))
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


def _profile(db: Db, name: str, raw: Row, pools: dict[str, BufferPool]) -> ParsedProfile | None:
    """A lossless (headroom) profile, which has xon and xoff, or None for a lossy one (still checked)."""
    allowed = MODELLED["BUFFER_PROFILE"]
    row = db.fields("BUFFER_PROFILE", name, raw, allowed, required=("pool", "size"))
    place = where("BUFFER_PROFILE", name)
    pool = ref(place + " pool", row["pool"], "BUFFER_POOL")
    if pool not in pools:
        raise fail(place + " pool", f"no BUFFER_POOL|{pool}")
    if ("dynamic_th" in row) == ("static_th" in row):
        raise fail(place, "needs exactly one of dynamic_th and static_th")
    dynamic_th = integer(place + " dynamic_th", row["dynamic_th"], -8, 7) if "dynamic_th" in row else None
    if "static_th" in row:
        integer(place + " static_th", row["static_th"], 0)
    size = integer(place + " size", row["size"], 0)
    xon_offset = integer(place + " xon_offset", row["xon_offset"], 0) if "xon_offset" in row else None
    if "xoff" not in row and "xon" not in row:
        return None
    db.fields("BUFFER_PROFILE", name, row, allowed, required=("xon", "xoff"))
    return ParsedProfile(
        name=name,
        pool=pool,
        xon=integer(place + " xon", row["xon"], 0),
        xoff=integer(place + " xoff", row["xoff"], 0),
        size=size,
        xon_offset=xon_offset,
        dynamic_th=dynamic_th,
    )
