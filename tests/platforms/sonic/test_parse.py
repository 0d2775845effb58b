"""Semantic round trip parse(render(state)) == state for every config-derivable field, and strictness."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from sonic_cases import broadcom_variant, dynamic_variant, sonic_switches

from xoff.desired.models import Device, FabricState, Vrf
from xoff.platforms.sonic.config_db import build_config_db
from xoff.platforms.sonic.parse import ConfigDbParseError, parse_config_db
from xoff.platforms.sonic.render import render

QOS_FIELDS = (
    "dscp_to_tc",
    "tc_to_queue",
    "tc_to_priority_group",
    "pfc_priority_to_queue",
    "pfc_priority_to_priority_group",
    "lossless_priorities",
    "schedulers",
    "ecn",
)
PROFILE_FIELDS = ("name", "pool", "xon", "xoff", "size", "xon_offset", "dynamic_th")


def expected(device: Device, *, pfc_to_pg: bool = True) -> dict[str, Any]:
    """The desired state's values for the fields CONFIG_DB determines (see parse.py's docstring)."""
    assert device.qos is not None and device.buffers is not None and device.bgp is not None
    interfaces = {
        name: {
            "kind": i.kind,
            "speed_mbps": i.speed_mbps,
            "mtu": i.mtu,
            "admin_up": i.admin_up,
            "addresses": i.addresses,
            "cable_m": i.cable_m,
            "pfc_priorities": i.pfc_priorities,
            "pfc_watchdog": i.pfc_watchdog,
            "vrf": i.vrf,
        }
        for name, i in device.interfaces.items()
        if i.kind in ("ethernet", "loopback")
    }
    qos = {f: getattr(device.qos, f) for f in QOS_FIELDS if pfc_to_pg or f != "pfc_priority_to_priority_group"}
    buffers: dict[str, Any] = {"model": device.buffers.model, "pools": device.buffers.pools}
    if device.buffers.model == "static":
        buffers["profiles"] = {
            n: {f: getattr(p, f) for f in PROFILE_FIELDS} for n, p in device.buffers.profiles.items()
        }
        buffers["port_priority_groups"] = device.buffers.port_priority_groups
    else:
        buffers["lossless_mtu"] = device.buffers.lossless_mtu
        buffers["small_packet_percent"] = device.buffers.small_packet_percent
        buffers["over_subscribe_ratio"] = device.buffers.over_subscribe_ratio
    return {
        "name": device.name,
        "role": device.role,
        "hwsku": device.hwsku,
        "interfaces": interfaces,
        "vrfs": sorted(v.name for v in device.vrfs),
        "vrf_vnis": {v.name: v.vni for v in device.vrfs},
        "bgp": {"asn": device.bgp.asn, "neighbors": device.bgp.neighbors},
        "qos": qos,
        "buffers": buffers,
        "pfc_watchdog": device.pfc_watchdog,
    }


@pytest.mark.parametrize("case", ["lab-mini", "roce-pod"])
def test_round_trip(case: str, states: dict[str, FabricState]) -> None:
    state = states[case]
    for device in sonic_switches(state):
        text = render(device, state)["config_db.json"]
        parsed = parse_config_db(json.loads(text))
        want = expected(device)
        for key in want:  # field by field first, for a readable failure
            assert parsed[key] == want[key], f"{device.name}: {key}"  # type: ignore[literal-required]
        assert dict(parsed) == want


def test_round_trip_of_tenant_vrfs(states: dict[str, FabricState]) -> None:
    """A tenant's VRF (VRF table) and the ports bound to it (INTERFACE vrf_name) read back as rendered."""
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    bound = {n: i.model_copy(update={"vrf": "Vrf-blue"}) if n == "Ethernet0" else i for n, i in leaf.interfaces.items()}
    tenant = leaf.model_copy(update={"interfaces": bound, "vrfs": [Vrf(name="Vrf-blue", tenant="blue")]})
    parsed = parse_config_db(build_config_db(tenant, state))
    assert parsed["vrfs"] == ["Vrf-blue"] and parsed["interfaces"]["Ethernet0"]["vrf"] == "Vrf-blue"
    assert dict(parsed) == expected(tenant)


def test_round_trip_of_evpn_vrfs(states: dict[str, FabricState]) -> None:
    """A tenant VRF's L3 VNI (VRF ``vni``) reads back as rendered; the VXLAN tables are not modelled."""
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    bound = {n: i.model_copy(update={"vrf": "Vrf-blue"}) if n == "Ethernet0" else i for n, i in leaf.interfaces.items()}
    vrfs = [Vrf(name="Vrf-blue", tenant="blue", vni=50001, route_target="50001:50001")]
    tenant = leaf.model_copy(update={"interfaces": bound, "vrfs": vrfs})
    db = build_config_db(tenant, state)
    parsed = parse_config_db(db, ignore_tables=[t for t in db if t.startswith(("VXLAN", "VLAN"))])
    assert parsed["vrf_vnis"] == {"Vrf-blue": 50001}
    assert dict(parsed) == expected(tenant)


def test_round_trip_of_variants(states: dict[str, FabricState]) -> None:
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    dynamic = dynamic_variant(leaf)
    assert dict(parse_config_db(build_config_db(dynamic, state))) == expected(dynamic)
    assert dynamic.buffers is not None
    shared = dynamic.buffers.model_copy(update={"over_subscribe_ratio": 2})
    oversubscribed = dynamic.model_copy(update={"buffers": shared})
    assert dict(parse_config_db(build_config_db(oversubscribed, state))) == expected(oversubscribed)
    assert expected(oversubscribed)["buffers"]["over_subscribe_ratio"] == 2
    broadcom = broadcom_variant(leaf)
    assert dict(parse_config_db(build_config_db(broadcom, state))) == expected(broadcom, pfc_to_pg=False)


@pytest.fixture
def db(states: dict[str, FabricState]) -> dict[str, Any]:
    state = states["lab-mini"]
    return copy.deepcopy(build_config_db(state.devices["leaf1"], state))


def _set(*path_and_value: Any) -> Any:
    """A mutation: ``_set(TABLE, key, field, value)`` (or shorter paths); value None deletes."""
    *path, value = path_and_value

    def apply(db: dict[str, Any]) -> None:
        *parents, last = path
        node = db
        for part in parents:
            node = node.setdefault(part, {})
        if value is None:
            del node[last]
        else:
            node[last] = value

    return apply


# (mutation, expected message): the strict form (the render round trip) raises on every malformed value
# (naming its place), every unmodelled name and every per-port difference
STRICT_CASES = [
    (_set("FOO_TABLE", {"x": {}}), r"not modelled: FOO_TABLE"),
    (_set("PORT", "Ethernet0", "fec", "rs"), r"not modelled: PORT.fec"),
    (_set("PORT", "Ethernet0", "speed", "400G"), r"PORT\|Ethernet0 speed: '400G' is not an integer"),
    (_set("PORT", "Ethernet0", "mtu", 9100), r"PORT\|Ethernet0 mtu: must be a string, not int"),
    (_set("PORT", "Ethernet0", "admin_status", "UP"), r"admin_status: 'UP' is not one of up, down"),
    (_set("DEVICE_METADATA", "localhost", "type", "ToRRouter"), r"not modelled: DEVICE_METADATA.type=ToRRouter"),
    (_set("DEVICE_METADATA", "localhost", "hostname", None), r"missing field\(s\) hostname"),
    (_set("INTERFACE", "Ethernet0|198.18.0.8/33", {}), r"'198.18.0.8/33' is not an IPv4 address"),
    (_set("INTERFACE", "Ethernet0|198.18.0.8/255.255.255.254", {}), r"is not in canonical form \(198.18.0.8/31\)"),
    (_set("INTERFACE", "Ethernet99|10.0.0.0/31", {}), r"not modelled: INTERFACE\|<not a port>"),
    (_set("BGP_NEIGHBOR", "198.18.0.0", "local_addr", "198.18.9.9"), r"198.18.9.9 is not an address of any interface"),
    (_set("BGP_NEIGHBOR", "198.18.0.0", "holdtime", "9"), r"not modelled: BGP_NEIGHBOR.holdtime"),
    (
        _set("BGP_NEIGHBOR", "Vrf1|198.18.0.0", {"asn": "1", "name": "x", "local_addr": "198.18.0.1"}),
        r"not modelled: BGP_NEIGHBOR\|VRF Vrf1",
    ),
    (_set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,9"), r"pfc_enable: 9 is out of range 0..7"),
    (_set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,3"), r"repeats a value"),
    (_set("PORT_QOS_MAP", "Ethernet0", "tc_to_queue_map", "OTHER"), r"tc_to_queue_map: no TC_TO_QUEUE_MAP\|OTHER"),
    (_set("DSCP_TO_TC_MAP", "AZURE", "64", "0"), r"DSCP_TO_TC_MAP\|AZURE 64: 64 is out of range 0..63"),
    (_set("DSCP_TO_TC_MAP", "AZURE", "07", "0"), r"'07' is not an integer in canonical form"),
    (_set("DSCP_TO_TC_MAP", "OTHER", {"0": "0"}), r"not modelled: DSCP_TO_TC_MAP \(unused: OTHER\)"),
    (_set("TC_TO_QUEUE_MAP", None), r"tc_to_queue_map: no TC_TO_QUEUE_MAP\|AZURE"),
    (_set("SCHEDULER", "scheduler.1", "type", "WRR"), r"'WRR' is not one of STRICT, DWRR"),
    (_set("SCHEDULER", "scheduler.0", "priority", "3"), r"not modelled: SCHEDULER.priority"),
    (
        _set("QUEUE", "Ethernet8|6", "scheduler", "scheduler.0"),
        r"Ethernet8: differs from the switch's other ports in schedulers",
    ),
    (_set("QUEUE", "Ethernet8|3", "scheduler", "nope"), r"no SCHEDULER\|nope"),
    (
        _set("WRED_PROFILE", "WRED_Q3", "yellow_max_threshold", "2000000"),
        r"not modelled: WRED_PROFILE.yellow_\* \(differs from green\)",
    ),
    (
        _set("WRED_PROFILE", "WRED_Q3", "wred_red_enable", "false"),
        r"not modelled: WRED_PROFILE.wred_red_enable \(differs from green\)",
    ),
    (_set("WRED_PROFILE", "WRED_Q3", "green_max_threshold", "1"), r"1 is below the minimum 150000"),
    (_set("BUFFER_PG", "Ethernet0|3", "profile", "missing_profile"), r"no BUFFER_PROFILE\|missing_profile"),
    (_set("BUFFER_PG", "Ethernet0|3", "profile", "NULL"), r"needs buffer_model dynamic"),
    (
        _set("BUFFER_PG", "Ethernet0|9", {"profile": "ingress_lossy_profile"}),
        r"BUFFER_PG\|Ethernet0\|9: 9 is out of range 0..7",
    ),
    (_set("BUFFER_PROFILE", "q_lossy_profile", "static_th", "1"), r"needs exactly one of dynamic_th and static_th"),
    (_set("BUFFER_PROFILE", "q_lossy_profile", "pool", "nope"), r"pool: no BUFFER_POOL\|nope"),
    (_set("BUFFER_POOL", "egress_lossy_pool", "type", "both"), r"'both' is not one of ingress, egress"),
    (_set("BUFFER_QUEUE", "Ethernet0|3", "profile", "nope"), r"no BUFFER_PROFILE\|nope"),
    (_set("CABLE_LENGTH", "AZURE", "Ethernet0", "5"), r"'5' is not <metres>m"),
    (
        _set("PFC_WD", "Ethernet8", "detection_time", "300"),
        r"Ethernet8: differs from the switch's other ports in watchdog_detection_ms",
    ),
    (_set("PFC_WD", "GLOBAL", None), r"PFC_WD\|GLOBAL POLL_INTERVAL: missing"),
    (
        _set("PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable", "4"),
        r"not modelled: PORT_QOS_MAP.pfcwd_sw_enable \(per-port, Ethernet0\)",
    ),
]


@pytest.mark.parametrize(("mutate", "message"), STRICT_CASES, ids=[m for _, m in STRICT_CASES])
def test_strict(db: dict[str, Any], mutate: Any, message: str) -> None:
    mutate(db)
    with pytest.raises(ConfigDbParseError, match=message):
        parse_config_db(db)


def test_unknown_tables_can_be_skipped_explicitly(db: dict[str, Any], states: dict[str, FabricState]) -> None:
    db["FEATURE"] = {"bgp": {"state": "enabled"}}
    parsed = parse_config_db(db, ignore_tables={"FEATURE"})
    assert parsed["name"] == "leaf1"


def test_not_a_mapping_is_an_error() -> None:
    with pytest.raises(ConfigDbParseError, match="must map table names to tables"):
        parse_config_db([])  # type: ignore[arg-type]
    with pytest.raises(ConfigDbParseError, match=r"DEVICE_METADATA: must map keys to fields, not list"):
        parse_config_db({"DEVICE_METADATA": []})
