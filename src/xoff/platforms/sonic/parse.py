"""CONFIG_DB -> the FabricState values of a SONiC switch that CONFIG_DB determines.

The inverse of ``config_db.build_config_db`` and the reader of a switch's running CONFIG_DB, so it
is strict: a table it does not read is an error unless the caller lists it in ``ignore_tables``; in
the tables it reads, every key and field must be understood and every value well-formed, and
content FabricState cannot represent (two DSCP maps, per-port scheduler differences, a WRED profile
that is not plain ECN marking, ...) is an error too. Errors are ``ConfigDbParseError`` naming the
``TABLE|key field``.

What comes back (``ParsedSwitch``): Device fields by name, as desired.models values where the
whole model is derivable (``BgpNeighbor``, ``Scheduler``, ``Ecn``, ``BufferPool``, ``PfcWatchdog``)
and as dicts of the derivable fields otherwise (interfaces, buffer profiles, the QoS maps).
Not derivable from CONFIG_DB, so absent: the management interface, peers and link roles, the BGP
router id, max-paths and originated networks (frr.conf), QoS classes/trust/CNP, buffer profile
sources and per-port headroom totals; ``pfc_priority_to_priority_group`` only where the map is
written (Mellanox/Barefoot); lossless profiles and PG profiles only in the traditional model (the
dynamic model computes them outside CONFIG_DB), and the lossless traffic pattern only in the dynamic one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from ipaddress import IPv4Address, IPv4Interface
from typing import Any, Literal, TypedDict

from xoff.desired.models import BgpNeighbor, PfcWatchdog
from xoff.platforms.sonic.names import BUFFER_MODELS, ROLE_TYPES
from xoff.platforms.sonic.parse_common import (
    ConfigDbParseError,
    Db,
    check_fields,
    choice,
    fail,
    integer,
    text,
    where,
)
from xoff.platforms.sonic.parse_qos import (
    ParsedBuffers,
    ParsedQos,
    parse_buffers,
    parse_cable_lengths,
    parse_port_qos,
    parse_qos,
    parse_watchdog,
)

__all__ = ["OWNED_TABLES", "ConfigDbParseError", "ParsedInterface", "ParsedSwitch", "parse_config_db"]

OWNED_TABLES = (
    "DEVICE_METADATA",
    "PORT",
    "INTERFACE",
    "LOOPBACK_INTERFACE",
    "BGP_NEIGHBOR",
    "DSCP_TO_TC_MAP",
    "TC_TO_PRIORITY_GROUP_MAP",
    "TC_TO_QUEUE_MAP",
    "MAP_PFC_PRIORITY_TO_QUEUE",
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "PORT_QOS_MAP",
    "SCHEDULER",
    "QUEUE",
    "WRED_PROFILE",
    "BUFFER_POOL",
    "BUFFER_PROFILE",
    "BUFFER_PG",
    "BUFFER_QUEUE",
    "CABLE_LENGTH",
    "PFC_WD",
    "LOSSLESS_TRAFFIC_PATTERN",
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER",
)

_UP_DOWN = {"up": True, "down": False}
# Fields SONiC keeps that carry no FabricState value: read (and type-checked by YANG), not returned.
_METADATA_FIELDS = {
    "hostname",
    "hwsku",
    "platform",
    "mac",
    "type",
    "bgp_asn",
    "docker_routing_config_mode",
    "buffer_model",
}
_PORT_FIELDS = {"admin_status", "alias", "lanes", "mtu", "speed", "index", "description"}


class ParsedInterface(TypedDict):
    kind: Literal["ethernet", "loopback"]
    speed_mbps: int | None
    mtu: int | None
    admin_up: bool
    addresses: list[str]
    cable_m: int | None
    pfc_priorities: list[int]
    pfc_watchdog: bool


class ParsedBgp(TypedDict):
    asn: int
    neighbors: list[BgpNeighbor]


class ParsedSwitch(TypedDict):
    name: str
    role: str
    hwsku: str | None
    interfaces: dict[str, ParsedInterface]
    bgp: ParsedBgp | None
    qos: ParsedQos | None
    buffers: ParsedBuffers | None
    pfc_watchdog: PfcWatchdog | None


def parse_config_db(config_db: Mapping[str, Any], *, ignore_tables: Collection[str] = ()) -> ParsedSwitch:
    """The FabricState values of one SONiC switch from its CONFIG_DB tables (see the module doc)."""
    db = Db(config_db, OWNED_TABLES, ignore_tables)
    meta = _metadata(db)
    interfaces = _interfaces(db)
    ports = [n for n, i in interfaces.items() if i["kind"] == "ethernet"]
    for port, metres in parse_cable_lengths(db, ports).items():
        interfaces[port]["cable_m"] = metres
    port_qos = parse_port_qos(db, ports)
    pfc = {port: enabled for port, (enabled, _) in port_qos.items()}
    watchdog = parse_watchdog(db, ports, {port: queues for port, (_, queues) in port_qos.items()})
    for port, enabled in pfc.items():
        interfaces[port]["pfc_priorities"] = enabled
    for port in watchdog.ports if watchdog is not None else []:
        interfaces[port]["pfc_watchdog"] = True
    bgp = _bgp(db, meta.get("bgp_asn"), interfaces)
    qos = parse_qos(db, ports, pfc)
    buffers = parse_buffers(db, ports, meta.get("buffer_model"))
    return ParsedSwitch(
        name=meta["hostname"],
        role=meta["role"],
        hwsku=meta.get("hwsku"),
        interfaces=interfaces,
        bgp=bgp,
        qos=qos,
        buffers=buffers,
        pfc_watchdog=watchdog,
    )


def _metadata(db: Db) -> dict[str, Any]:
    rows = db.table("DEVICE_METADATA")
    extra = sorted(set(rows) - {"localhost"})
    if extra:
        raise fail(where("DEVICE_METADATA", extra[0]), "unknown key (allowed: localhost)")
    if "localhost" not in rows:
        raise ConfigDbParseError("DEVICE_METADATA|localhost: missing")
    row = rows["localhost"]
    check_fields("DEVICE_METADATA", "localhost", row, _METADATA_FIELDS, required=("hostname", "type"))
    place = where("DEVICE_METADATA", "localhost")
    out: dict[str, Any] = {
        "hostname": text(place + " hostname", row["hostname"]),
        "role": choice(place + " type", row["type"], {v: k for k, v in ROLE_TYPES.items()}),
    }
    for name in ("hwsku", "platform", "mac", "docker_routing_config_mode"):
        if name in row:
            out[name] = text(f"{place} {name}", row[name])
    if "bgp_asn" in row:
        out["bgp_asn"] = integer(place + " bgp_asn", row["bgp_asn"], 1, 2**32 - 1)
    if "buffer_model" in row:
        out["buffer_model"] = choice(
            place + " buffer_model", row["buffer_model"], {v: k for k, v in BUFFER_MODELS.items()}
        )
    return out


def _interfaces(db: Db) -> dict[str, ParsedInterface]:
    out: dict[str, ParsedInterface] = {}
    for name, row in db.table("PORT").items():
        check_fields("PORT", name, row, _PORT_FIELDS, required=("speed",))
        place = where("PORT", name)
        out[name] = ParsedInterface(
            kind="ethernet",
            speed_mbps=integer(place + " speed", row["speed"], 1),
            mtu=integer(place + " mtu", row["mtu"], 68, 9216) if "mtu" in row else None,
            # sonic-port.yang: admin_status defaults to down
            admin_up=choice(place + " admin_status", row.get("admin_status", "down"), _UP_DOWN),
            addresses=[],
            cable_m=None,
            pfc_priorities=[],
            pfc_watchdog=False,
        )
    for key, addresses in _addressed(db, "INTERFACE", set(out)).items():
        out[key]["addresses"] = addresses
    loopbacks = db.table("LOOPBACK_INTERFACE")
    for key, row in loopbacks.items():
        if "|" not in key:
            check_fields("LOOPBACK_INTERFACE", key, row, {"admin_status"})
            out[key] = ParsedInterface(
                kind="loopback",
                speed_mbps=None,
                mtu=None,
                admin_up=choice(
                    where("LOOPBACK_INTERFACE", key, "admin_status"), row.get("admin_status", "up"), _UP_DOWN
                ),
                addresses=[],
                cable_m=None,
                pfc_priorities=[],
                pfc_watchdog=False,
            )
    for key, addresses in _addressed(db, "LOOPBACK_INTERFACE", {k for k in loopbacks if "|" not in k}).items():
        out[key]["addresses"] = addresses
    return out


def _addressed(db: Db, table: str, names: set[str]) -> dict[str, list[str]]:
    """``<if>|<prefix>`` rows -> interface -> prefixes; the ``<if>`` row must exist too (YANG ``must``)."""
    out: dict[str, list[str]] = {}
    for key, row in db.table(table).items():
        name, sep, prefix = key.partition("|")
        if name not in names:
            raise fail(where(table, key), f"{name} is not a known interface of this table's kind")
        if not sep:
            if table == "INTERFACE":
                check_fields(table, key, row, ())
            continue
        check_fields(table, key, row, ())
        try:
            address = IPv4Interface(prefix)
        except ValueError:
            raise fail(where(table, key), f"{prefix!r} is not an IPv4 address/prefix-length") from None
        if str(address) != prefix:
            raise fail(where(table, key), f"{prefix!r} is not in canonical form ({address})")
        out.setdefault(name, []).append(prefix)
    bases = {k for k in db.table(table) if "|" not in k}
    for name in out:
        if name not in bases:
            raise fail(where(table, name), "addresses without the interface's own row")
    return out


def _bgp(db: Db, asn: int | None, interfaces: dict[str, ParsedInterface]) -> ParsedBgp | None:
    rows = db.table("BGP_NEIGHBOR")
    if asn is None:
        if rows:
            raise ConfigDbParseError("BGP_NEIGHBOR: neighbours but no DEVICE_METADATA|localhost bgp_asn")
        return None
    local = {IPv4Interface(a).ip: n for n, i in interfaces.items() for a in i["addresses"]}
    neighbors: list[BgpNeighbor] = []
    for key, row in rows.items():
        place = where("BGP_NEIGHBOR", key)
        vrf, _, address = key.rpartition("|")
        if vrf not in ("", "default"):
            raise fail(place, f"VRF {vrf!r}: only the default VRF is modelled")
        check_fields("BGP_NEIGHBOR", key, row, {"asn", "name", "local_addr"}, required=("asn", "name", "local_addr"))
        try:
            ip, mine = IPv4Address(address), IPv4Address(text(place + " local_addr", row["local_addr"]))
        except ValueError as exc:
            raise fail(place, f"{exc} (IPv4 neighbours are modelled)") from None
        if str(ip) != address:
            raise fail(place, f"{address!r} is not in canonical form ({ip})")
        if mine not in local:
            raise fail(place + " local_addr", f"{mine} is not an address of any interface")
        neighbors.append(
            BgpNeighbor(
                address=str(ip),
                remote_asn=integer(place + " asn", row["asn"], 1, 2**32 - 1),
                peer=text(place + " name", row["name"]),
                interface=local[mine],
            )
        )
    return ParsedBgp(asn=asn, neighbors=neighbors)
