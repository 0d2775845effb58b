"""config_db.json rendering: golden files, determinism, and the values the reference prescribes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from sonic_cases import broadcom_variant, dynamic_variant, sonic_switches

from tests.support.paths import ROOT
from xoff.desired.models import Device, FabricState
from xoff.platforms.sonic.config_db import build_config_db, lanes_of
from xoff.platforms.sonic.names import ranges, router_mac
from xoff.platforms.sonic.render import render

GOLDEN_DEVICES = {"lab-mini": ("leaf1", "spine1"), "roce-pod": ("leaf0", "spine1")}


@pytest.mark.parametrize("case", sorted(GOLDEN_DEVICES))
def test_golden(case: str, states: dict[str, FabricState], golden: Any) -> None:
    state = states[case]
    files = {
        f"{name}/config_db.json": render(state.devices[name], state)["config_db.json"] for name in GOLDEN_DEVICES[case]
    }
    golden(files, f"render/sonic/{case}")


def test_render_is_deterministic_across_processes(states: dict[str, FabricState]) -> None:
    """Byte-identical in-process and in a fresh interpreter with another hash seed."""
    state = states["lab-mini"]
    first = {d.name: render(d, state)["config_db.json"] for d in sonic_switches(state)}
    assert first == {d.name: render(d, state)["config_db.json"] for d in sonic_switches(state)}
    code = (
        "import json, sys\n"
        "from xoff.intent import load_intent\nfrom xoff.desired import build_fabric_state\n"
        "from xoff.platforms.sonic.render import render\nfrom pathlib import Path\n"
        "s = build_fabric_state(load_intent(Path(sys.argv[1])))\n"
        "print(json.dumps({n: render(d, s)['config_db.json'] for n, d in s.devices.items() if d.platform == 'sonic'}))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "inventory" / "lab-mini")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(proc.stdout) == first


def test_output_is_the_json_of_the_built_tables(states: dict[str, FabricState]) -> None:
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    text = render(leaf, state)["config_db.json"]
    assert text.endswith("}\n") and not text.startswith("{#")
    assert json.loads(text) == build_config_db(leaf, state)


def _leaf(states: dict[str, FabricState]) -> tuple[Device, dict[str, Any]]:
    state = states["lab-mini"]
    leaf = state.devices["leaf1"]
    return leaf, build_config_db(leaf, state)


def test_intent_dscp_map_replaces_sonic_stock_map(states: dict[str, FabricState]) -> None:
    """§1.2: SONiC's stock AZURE map sends DSCP 26 to lossy TC1; ours is written whole under that name."""
    _, db = _leaf(states)
    dscp = db["DSCP_TO_TC_MAP"]["AZURE"]
    assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == "6" and dscp["3"] == "0"
    assert db["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "AZURE"}
    assert all(v.get("dscp_to_tc_map") == "AZURE" for v in db["PORT_QOS_MAP"].values())


def test_port_qos_map_pfc_and_watchdog(states: dict[str, FabricState]) -> None:
    leaf, db = _leaf(states)
    cabled = [i.name for i in leaf.interfaces.values() if i.peer is not None]
    assert list(db["PORT_QOS_MAP"]) == ["global", *cabled]
    assert db["PORT_QOS_MAP"]["Ethernet0"] == {
        "dscp_to_tc_map": "AZURE",
        "tc_to_queue_map": "AZURE",
        "tc_to_pg_map": "AZURE",
        "pfc_to_queue_map": "AZURE",
        "pfc_to_pg_map": "AZURE",  # Spectrum: Mellanox vendor (§1.2)
        "pfc_enable": "3",
        "pfcwd_sw_enable": "3",
    }
    assert "Ethernet48" not in db["PORT_QOS_MAP"]  # spare, uncabled port
    assert db["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] == {"AZURE": {"3": "3"}}
    assert db["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}
    assert db["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "200", "restoration_time": "400"}


def test_two_lossless_priorities_render_as_a_list(states: dict[str, FabricState]) -> None:
    leaf = states["lab-mini"].devices["leaf1"]
    iface = leaf.interfaces["Ethernet0"].model_copy(update={"pfc_priorities": [4, 3]})
    twice = leaf.model_copy(update={"interfaces": {**leaf.interfaces, "Ethernet0": iface}})
    db = build_config_db(twice, states["lab-mini"])
    assert db["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3,4"
    assert db["BUFFER_QUEUE"]["Ethernet0|3-4"] == {"profile": "egress_lossless_profile"}


def test_schedulers_queues_and_wred(states: dict[str, FabricState]) -> None:
    _, db = _leaf(states)
    assert db["SCHEDULER"] == {
        "scheduler.0": {"type": "DWRR", "weight": "50"},
        "scheduler.1": {"type": "STRICT"},
    }
    assert db["QUEUE"]["Ethernet0|3"] == {"scheduler": "scheduler.0", "wred_profile": "WRED_Q3"}
    assert db["QUEUE"]["Ethernet0|6"] == {"scheduler": "scheduler.1"}
    wred = db["WRED_PROFILE"]["WRED_Q3"]
    assert wred["ecn"] == "ecn_all" and wred["green_min_threshold"] == "150000"
    assert wred["green_max_threshold"] == "1500000" and wred["green_drop_probability"] == "100"
    assert wred["wred_green_enable"] == "true"


def test_buffers_traditional_model(states: dict[str, FabricState]) -> None:
    _, db = _leaf(states)
    assert db["DEVICE_METADATA"]["localhost"]["buffer_model"] == "traditional"
    assert db["BUFFER_PG"]["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}
    assert db["BUFFER_PG"]["Ethernet0|3"] == {"profile": "pg_lossless_400000_5m_profile"}
    assert db["BUFFER_PG"]["Ethernet32|3"] == {"profile": "pg_lossless_400000_40m_profile"}
    profile = db["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]
    assert profile == {
        "pool": "ingress_lossless_pool",
        "size": "250880",
        "xon": "19456",
        "xoff": "231424",
        "dynamic_th": "0",
    }  # §1.3 Example B row 400000 5m
    # Example A queue layout: lossy profile around the lossless queue, queue 7 left to SAI
    assert [k for k in db["BUFFER_QUEUE"] if k.startswith("Ethernet0|")] == [
        "Ethernet0|0-2",
        "Ethernet0|3",
        "Ethernet0|4-6",
    ]
    # a static pool takes static_th (its size), a dynamic one dynamic_th
    assert db["BUFFER_PROFILE"]["egress_lossless_profile"]["static_th"] == "158229504"
    assert db["BUFFER_PROFILE"]["q_lossy_profile"]["dynamic_th"] == "3"
    assert db["CABLE_LENGTH"]["AZURE"] == {
        "Ethernet0": "5m",
        "Ethernet8": "5m",
        "Ethernet16": "5m",
        "Ethernet24": "5m",
        "Ethernet32": "40m",
        "Ethernet40": "40m",
    }
    assert "LOSSLESS_TRAFFIC_PATTERN" not in db


def test_buffers_dynamic_model(states: dict[str, FabricState]) -> None:
    """§6 rule 8: lossless PGs are "NULL" (SONiC computes the headroom), no lossless profiles."""
    leaf = dynamic_variant(states["lab-mini"].devices["leaf1"])
    db = build_config_db(leaf, states["lab-mini"])
    assert db["DEVICE_METADATA"]["localhost"]["buffer_model"] == "dynamic"
    assert db["BUFFER_PG"]["Ethernet0|3"] == {"profile": "NULL"}
    assert db["BUFFER_PG"]["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}
    assert not any(name.startswith("pg_lossless") for name in db["BUFFER_PROFILE"])
    assert db["LOSSLESS_TRAFFIC_PATTERN"] == {"AZURE": {"mtu": "1024", "small_packet_percentage": "50"}}
    assert db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] == {"AZURE": {"default_dynamic_th": "0"}}


def test_broadcom_has_no_pfc_to_pg_map(states: dict[str, FabricState]) -> None:
    """§1.2: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP and pfc_to_pg_map are Mellanox/Barefoot only."""
    db = build_config_db(broadcom_variant(states["lab-mini"].devices["leaf1"]), states["lab-mini"])
    assert "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP" not in db
    assert "pfc_to_pg_map" not in db["PORT_QOS_MAP"]["Ethernet0"]
    assert db["BUFFER_QUEUE"]["Ethernet0|0-2"] == {"profile": "egress_lossy_profile"}  # §1.3 Example C
    assert "hwsku" not in db["DEVICE_METADATA"]["localhost"] and "platform" not in db["DEVICE_METADATA"]["localhost"]


def test_device_metadata_ports_and_interfaces(states: dict[str, FabricState]) -> None:
    _, db = _leaf(states)
    meta = db["DEVICE_METADATA"]["localhost"]
    assert meta["hostname"] == "leaf1" and meta["bgp_asn"] == "65101" and meta["type"] == "LeafRouter"
    assert meta["hwsku"] == "ACS-SN5600" and meta["platform"] == "x86_64-nvidia_sn5600-r0"
    assert meta["mac"] == router_mac("leaf1") and int(meta["mac"][:2], 16) & 0x03 == 0x02  # local, unicast
    assert db["PORT"]["Ethernet8"] == {
        "admin_status": "up",
        "alias": "etp2",
        "lanes": "8,9,10,11,12,13,14,15",
        "mtu": "9100",
        "speed": "400000",
    }
    assert db["PORT"]["Ethernet48"]["admin_status"] == "down"
    assert db["INTERFACE"]["Ethernet0"] == {} and db["INTERFACE"]["Ethernet0|198.18.0.8/31"] == {}
    assert "Ethernet48" not in db["INTERFACE"]
    assert db["LOOPBACK_INTERFACE"] == {"Loopback0": {}, "Loopback0|198.18.255.3/32": {}}
    assert db["BGP_NEIGHBOR"]["198.18.0.0"] == {"asn": "65100", "local_addr": "198.18.0.1", "name": "spine1"}
    assert "MGMT_INTERFACE" not in db  # needs a gateway FabricState does not carry


def test_lanes_and_ranges() -> None:
    assert lanes_of(["Ethernet0", "Ethernet4"]) == {"Ethernet0": [0, 1, 2, 3], "Ethernet4": [4, 5, 6, 7]}
    assert lanes_of(["Ethernet0"])["Ethernet0"] == list(range(8))
    assert lanes_of(["Ethernet0", "Ethernet64"])["Ethernet64"] == list(range(64, 72))  # at most 8
    assert lanes_of(["swp1", "swp2"]) == {"swp1": list(range(8)), "swp2": list(range(8, 16))}
    assert ranges([0, 1, 2, 4, 5, 6]) == ("0-2", "4-6")
    assert ranges([3]) == ("3",) and ranges([]) == ()


def test_unknown_role_is_an_error(states: dict[str, FabricState]) -> None:
    leaf = states["lab-mini"].devices["leaf1"].model_copy(update={"role": "border"})
    with pytest.raises(ValueError, match=r"no SONiC DEVICE_METADATA type for role 'border' \(allowed: leaf, spine"):
        build_config_db(leaf, states["lab-mini"])
