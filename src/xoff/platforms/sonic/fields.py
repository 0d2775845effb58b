"""The CONFIG_DB fields xoff models, per table: what the parser reads (every other field is unmodelled) and what
the apply strategy owns (a field outside these, such as PORT ``fec`` or DEVICE_METADATA ``timezone``, is never
removed by a push). The render round trip proves the renderer writes nothing outside them."""

from __future__ import annotations

from xoff.platforms.sonic.names import GLOBAL_QOS_KEY, WATCHDOG_GLOBAL_KEY

_COLOURS = ("green", "yellow", "red")
WRED_FIELDS = frozenset(
    {
        *(f"{c}_{k}" for c in _COLOURS for k in ("min_threshold", "max_threshold", "drop_probability")),
        *(f"wred_{c}_enable" for c in _COLOURS),
        "ecn",
    }
)
MAP_FIELDS = frozenset({"dscp_to_tc_map", "tc_to_pg_map", "tc_to_queue_map", "pfc_to_queue_map", "pfc_to_pg_map"})
WATCHDOG_FIELDS = frozenset({"action", "detection_time", "restoration_time"})

MODELLED: dict[str, frozenset[str]] = {
    "DEVICE_METADATA": frozenset(
        {"hostname", "hwsku", "platform", "mac", "type", "bgp_asn", "docker_routing_config_mode", "buffer_model"}
    ),
    "PORT": frozenset({"admin_status", "alias", "lanes", "mtu", "speed"}),
    "VRF": frozenset({"vni"}),  # the L3 VNI (sonic-vrf.yang; 0 or absent: none)
    "INTERFACE": frozenset({"vrf_name"}),
    "LOOPBACK_INTERFACE": frozenset({"admin_status"}),
    "BGP_NEIGHBOR": frozenset({"asn", "name", "local_addr"}),
    "PORT_QOS_MAP": MAP_FIELDS | {"pfc_enable", "pfcwd_sw_enable"},
    "SCHEDULER": frozenset({"type", "weight"}),
    "QUEUE": frozenset({"scheduler", "wred_profile"}),
    "WRED_PROFILE": WRED_FIELDS,
    "BUFFER_POOL": frozenset({"type", "mode", "size", "xoff"}),
    "BUFFER_PROFILE": frozenset({"pool", "size", "xon", "xoff", "xon_offset", "dynamic_th", "static_th"}),
    "BUFFER_PG": frozenset({"profile"}),
    "BUFFER_QUEUE": frozenset({"profile"}),
    "PFC_WD": WATCHDOG_FIELDS,
    "LOSSLESS_TRAFFIC_PATTERN": frozenset({"mtu", "small_packet_percentage"}),
    "DEFAULT_LOSSLESS_BUFFER_PARAMETER": frozenset({"default_dynamic_th", "over_subscribe_ratio"}),
}
# rows of a table whose fields differ from the table's other rows
_KEYED: dict[tuple[str, str], frozenset[str]] = {
    ("PORT_QOS_MAP", GLOBAL_QOS_KEY): frozenset({"dscp_to_tc_map"}),
    ("PFC_WD", WATCHDOG_GLOBAL_KEY): frozenset({"POLL_INTERVAL"}),
}


def modelled(table: str, key: str) -> frozenset[str] | None:
    """The fields xoff models in ``table|key``; None: every field (the QoS maps and CABLE_LENGTH, whose fields
    are data, and tables the parser does not read field by field, such as STATIC_ROUTE)."""
    return _KEYED.get((table, key), MODELLED.get(table))
