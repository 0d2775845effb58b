"""CONFIG_DB -> the FabricState values of a SONiC switch that CONFIG_DB determines.

The inverse of ``config_db.build_config_db`` and the reader of a switch's running CONFIG_DB. It reads
faithfully (``read_config_db``): a table, key or field xoff does not model is counted as unmodelled
(``FEATURE``, ``PORT.fec``), never an error; a malformed value of a field it models is one located error
(``TABLE|key field: ...``) and the Device paths that value gives are not observed; ports that differ from
the switch's most common watchdog, DSCP map, scheduler or ECN profile are per-port settings
(``PortSettings``), the Device holding the most common value. ``parse_config_db`` is the strict form the
render round trip uses: any error, unmodelled name or per-port difference raises ``ConfigDbParseError``.

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
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, ip_interface
from typing import Any, Literal, TypedDict

from xoff.contracts.observed import PortSettings
from xoff.desired.models import BgpNeighbor, PfcWatchdog
from xoff.platforms.sonic.fields import MODELLED
from xoff.platforms.sonic.names import BUFFER_MODELS, ROLE_TYPES
from xoff.platforms.sonic.parse_buffers import ParsedBuffers, parse_buffers
from xoff.platforms.sonic.parse_common import ConfigDbParseError, Db, choice, fail, integer, text, where
from xoff.platforms.sonic.parse_qos import (
    ParsedQos,
    parse_cable_lengths,
    parse_port_qos,
    parse_qos,
    parse_watchdog,
)

__all__ = [
    "OWNED_TABLES",
    "ConfigDbParseError",
    "ConfigDbReading",
    "ParsedInterface",
    "ParsedSwitch",
    "parse_config_db",
    "read_config_db",
]

OWNED_TABLES = (
    "DEVICE_METADATA",
    "PORT",
    "VRF",
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
# multi-ASIC: ports between ASICs (sonic-port.yang role Int / Inb / Rec), not front-panel ports
_INTERNAL_ROLES = {"Int", "Inb", "Rec", "Dpc"}


class ParsedInterface(TypedDict):
    kind: Literal["ethernet", "loopback"]
    speed_mbps: int | None
    mtu: int | None
    admin_up: bool
    addresses: list[str]
    cable_m: int | None
    pfc_priorities: list[int]
    pfc_watchdog: bool
    vrf: str | None


class ParsedBgp(TypedDict):
    asn: int
    neighbors: list[BgpNeighbor]


class ParsedSwitch(TypedDict):
    name: str | None  # None: not observed (missing or malformed; see the reading's errors)
    role: str | None  # None: not observed, or a DEVICE_METADATA type xoff has no role for
    hwsku: str | None
    interfaces: dict[str, ParsedInterface]
    vrfs: list[str]  # the VRF table's names (tenant VRFs)
    vrf_vnis: dict[str, int | None]  # VRF -> its L3 VNI (None: none, 0 or absent); a malformed one left out
    bgp: ParsedBgp | None
    qos: ParsedQos | None
    buffers: ParsedBuffers | None
    pfc_watchdog: PfcWatchdog | None


@dataclass
class ConfigDbReading:
    """What one CONFIG_DB gave: the values, what xoff does not model, what it could not read."""

    switch: ParsedSwitch
    unmodelled: dict[str, int] = field(default_factory=dict)  # name -> count (``FEATURE``, ``PORT.fec``)
    errors: list[str] = field(default_factory=list)  # one located message per malformed modelled value
    unobserved: set[str] = field(default_factory=set)  # Device field paths those errors left unread
    port_settings: dict[str, PortSettings] = field(default_factory=dict)  # ports that differ from the switch


def parse_config_db(config_db: Mapping[str, Any], *, ignore_tables: Collection[str] = ()) -> ParsedSwitch:
    """Strict: the values of a CONFIG_DB that xoff models entirely (the render round trip), else the first
    error, unmodelled name or per-port difference as ``ConfigDbParseError``."""
    reading = read_config_db(config_db, ignore_tables=ignore_tables)
    if reading.errors:
        raise ConfigDbParseError(reading.errors[0])
    if reading.unmodelled:
        raise ConfigDbParseError(f"not modelled: {', '.join(sorted(reading.unmodelled))}")
    if reading.port_settings:
        port, settings = next(iter(sorted(reading.port_settings.items())))
        differs = ", ".join(k for k, v in settings.model_dump().items() if v is not None)
        raise ConfigDbParseError(f"{port}: differs from the switch's other ports in {differs}")
    return reading.switch


def read_config_db(config_db: Mapping[str, Any], *, ignore_tables: Collection[str] = ()) -> ConfigDbReading:
    """The FabricState values of one SONiC switch from its CONFIG_DB tables, read faithfully (module doc)."""
    db = Db(config_db, OWNED_TABLES, ignore_tables)
    meta = _metadata(db)
    interfaces = _interfaces(db)
    ports = [n for n, i in interfaces.items() if i["kind"] == "ethernet"]
    with db.guard("interfaces.*.cable_m"):
        for port, metres in parse_cable_lengths(db, ports).items():
            interfaces[port]["cable_m"] = metres
    port_qos = parse_port_qos(db, ports)
    settings: dict[str, dict[str, Any]] = {}
    pfc = {port: values.pfc for port, values in port_qos.items() if port in interfaces}
    watchdog = parse_watchdog(db, ports, port_qos, settings)
    for port, enabled in pfc.items():
        interfaces[port]["pfc_priorities"] = enabled
    for port in watchdog.ports if watchdog is not None else []:
        interfaces[port]["pfc_watchdog"] = True
    bgp = None
    with db.guard("bgp"):
        if "bgp" not in db.unobserved:  # a malformed bgp_asn already said why BGP is not read
            bgp = _bgp(db, meta.get("bgp_asn"), interfaces)
    qos = parse_qos(db, ports, port_qos, settings)
    buffers = None
    with db.guard("buffers"):
        buffers = parse_buffers(db, ports, meta.get("buffer_model"))
    switch = ParsedSwitch(
        name=meta.get("hostname"),
        role=meta.get("role"),
        hwsku=meta.get("hwsku"),
        interfaces=interfaces,
        vrfs=_vrfs(db),
        vrf_vnis=_vrf_vnis(db),
        bgp=bgp,
        qos=qos,
        buffers=buffers,
        pfc_watchdog=watchdog,
    )
    return ConfigDbReading(
        switch=switch,
        unmodelled=dict(sorted(db.unmodelled.items())),
        errors=db.errors,
        unobserved=db.unobserved,
        port_settings={p: PortSettings(**v) for p, v in sorted(settings.items()) if v},
    )


def _metadata(db: Db) -> dict[str, Any]:
    rows = db.table("DEVICE_METADATA")
    for key in sorted(set(rows) - {"localhost"}):
        db.unmodelled_key("DEVICE_METADATA", key)
    out: dict[str, Any] = {}
    if "localhost" not in rows:
        db.errors.append("DEVICE_METADATA|localhost: missing")
        db.unobserved.update(("name", "role", "hwsku"))
        return out
    place = where("DEVICE_METADATA", "localhost")
    row = db.fields("DEVICE_METADATA", "localhost", rows["localhost"], MODELLED["DEVICE_METADATA"])
    with db.guard("name"):
        out["hostname"] = text(place + " hostname", row["hostname"]) if "hostname" in row else None
        if "hostname" not in row:
            raise fail(place, "missing field(s) hostname")
    with db.guard("role"):
        out["role"] = _role(db, place, row.get("type"))
    for name in ("hwsku", "platform", "mac", "docker_routing_config_mode"):
        if name in row:
            with db.guard(*(("hwsku",) if name == "hwsku" else ())):
                out[name] = text(f"{place} {name}", row[name])
    if "bgp_asn" in row:
        with db.guard("bgp"):
            out["bgp_asn"] = integer(place + " bgp_asn", row["bgp_asn"], 1, 2**32 - 1)
    if "buffer_model" in row:
        with db.guard("buffers"):
            models = {v: k for k, v in BUFFER_MODELS.items()}
            out["buffer_model"] = choice(place + " buffer_model", row["buffer_model"], models)
    return out


def _role(db: Db, place: str, value: Any) -> str | None:
    """The intent role of a DEVICE_METADATA type; a valid type with no xoff role (ToRRouter, ...) is
    unmodelled and the role not observed."""
    if value is None:
        raise fail(place, "missing field(s) type")
    raw = text(place + " type", value)
    roles = {v: k for k, v in ROLE_TYPES.items()}
    if raw not in roles:
        db.unmodelled[f"DEVICE_METADATA.type={raw}"] += 1
        db.unobserved.add("role")
        return None
    return roles[raw]


def _port(db: Db, name: str, raw: Any) -> ParsedInterface | None:
    place = where("PORT", name)
    row = db.fields("PORT", name, raw, MODELLED["PORT"])
    if raw.get("role") in _INTERNAL_ROLES:
        return None
    out = ParsedInterface(
        kind="ethernet",
        speed_mbps=None,
        mtu=None,
        admin_up=False,
        addresses=[],
        cable_m=None,
        pfc_priorities=[],
        pfc_watchdog=False,
        vrf=None,
    )
    with db.guard(f"interfaces.{name}.speed_mbps"):
        if "speed" not in row:
            raise fail(place, "missing field(s) speed")
        out["speed_mbps"] = integer(place + " speed", row["speed"], 1)
    with db.guard(f"interfaces.{name}.mtu"):
        out["mtu"] = integer(place + " mtu", row["mtu"], 68, 9216) if "mtu" in row else None
    with db.guard(f"interfaces.{name}.admin_up"):
        # sonic-port.yang: admin_status defaults to down
        out["admin_up"] = choice(place + " admin_status", row.get("admin_status", "down"), _UP_DOWN)
    for name_field in ("alias", "lanes"):
        if name_field in row:
            with db.guard():
                text(f"{place} {name_field}", row[name_field])
    return out


def _interfaces(db: Db) -> dict[str, ParsedInterface]:
    out: dict[str, ParsedInterface] = {}
    for name, row in db.table("PORT").items():
        port = _port(db, name, row)
        if port is None:
            db.unmodelled["PORT (internal, role " + str(row.get("role")) + ")"] += 1
        else:
            out[name] = port
    for key, addresses in _addressed(db, "INTERFACE", set(out)).items():
        out[key]["addresses"] = addresses
    _bound(db, out)
    loopbacks = db.table("LOOPBACK_INTERFACE")
    names = {k.partition("|")[0] for k in loopbacks}  # older images have only the address rows
    for key in sorted(names):
        row = loopbacks.get(key, {})
        db.fields("LOOPBACK_INTERFACE", key, row, MODELLED["LOOPBACK_INTERFACE"])
        admin_up = True
        with db.guard(f"interfaces.{key}.admin_up"):
            place = where("LOOPBACK_INTERFACE", key, "admin_status")
            admin_up = choice(place, row.get("admin_status", "up"), _UP_DOWN)
        out[key] = ParsedInterface(
            kind="loopback",
            speed_mbps=None,
            mtu=None,
            admin_up=admin_up,
            addresses=[],
            cable_m=None,
            pfc_priorities=[],
            pfc_watchdog=False,
            vrf=None,
        )
    for key, addresses in _addressed(db, "LOOPBACK_INTERFACE", names).items():
        out[key]["addresses"] = addresses
    return out


def _addressed(db: Db, table: str, names: set[str]) -> dict[str, list[str]]:
    """``<if>|<prefix>`` rows -> interface -> IPv4 prefixes (IPv6 ones are unmodelled)."""
    out: dict[str, list[str]] = {}
    for key, row in db.table(table).items():
        name, sep, prefix = key.partition("|")
        db.fields(table, key, row, MODELLED[table] if not sep and table == "INTERFACE" else ())
        if name not in names:
            db.unmodelled_key(table, "<not a port>")
            continue
        if not sep:
            continue
        with db.guard(f"interfaces.{name}.addresses"):
            out.setdefault(name, [])
            if ":" in prefix and _is_ip(prefix):
                db.unmodelled_key(table, "IPv6 address")
                continue
            try:
                address = IPv4Interface(prefix)
            except ValueError:
                raise fail(where(table, key), f"{prefix!r} is not an IPv4 address/prefix-length") from None
            if str(address) != prefix:
                raise fail(where(table, key), f"{prefix!r} is not in canonical form ({address})")
            out[name].append(prefix)
    return out


def _bound(db: Db, interfaces: dict[str, ParsedInterface]) -> None:
    """INTERFACE|<port> ``vrf_name``: the VRF a routed port is bound to (sonic-interface.yang)."""
    for key, row in db.table("INTERFACE").items():
        if "|" in key or key not in interfaces or not isinstance(row, Mapping) or "vrf_name" not in row:
            continue
        with db.guard(f"interfaces.{key}.vrf"):
            interfaces[key]["vrf"] = text(where("INTERFACE", key, "vrf_name"), row["vrf_name"])


def _vrfs(db: Db) -> list[str]:
    """The VRF table's names; its fields but ``vni`` (``fallback``, ...) are unmodelled."""
    rows = db.table("VRF")
    for key, row in rows.items():
        db.fields("VRF", key, row, MODELLED["VRF"])
    return sorted(rows)


def _vrf_vnis(db: Db) -> dict[str, int | None]:
    """VRF ``vni`` (sonic-vrf.yang: 0..16777215, default 0 = no L3 VNI); a malformed one is a located error and
    that VRF's VNI is not observed (left out)."""
    out: dict[str, int | None] = {}
    for key, row in sorted(db.table("VRF").items()):
        if not isinstance(row, Mapping):
            continue
        with db.guard(f"vrfs.{key}.vni"):
            vni = integer(where("VRF", key, "vni"), row["vni"], 0, 16777215) if "vni" in row else 0
            out[key] = vni or None
    return out


def _is_ip(prefix: str) -> bool:
    try:
        ip_interface(prefix)
    except ValueError:
        return False
    return True


def _bgp(db: Db, asn: int | None, interfaces: dict[str, ParsedInterface]) -> ParsedBgp | None:
    rows = db.table("BGP_NEIGHBOR")
    if asn is None:
        if rows:
            raise ConfigDbParseError("BGP_NEIGHBOR: neighbours but no DEVICE_METADATA|localhost bgp_asn")
        return None
    local = {IPv4Interface(a).ip: n for n, i in interfaces.items() for a in i["addresses"]}
    neighbors: list[BgpNeighbor] = []
    for key, raw in rows.items():
        place = where("BGP_NEIGHBOR", key)
        vrf, _, address = key.rpartition("|")
        if vrf not in ("", "default"):
            db.unmodelled_key("BGP_NEIGHBOR", "VRF " + vrf)
            continue
        if ":" in address and _is_ip(address + "/128"):
            db.unmodelled_key("BGP_NEIGHBOR", "IPv6 neighbour")
            continue
        row = db.fields("BGP_NEIGHBOR", key, raw, MODELLED["BGP_NEIGHBOR"], required=("asn", "name", "local_addr"))
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
