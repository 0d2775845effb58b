"""Tenants across the spines as VXLAN-EVPN (an L3 VNI per tenant VRF, type-5 routes): the VNIs the intent
writes or allocates, SONiC's CONFIG_DB (checked by SONiC's YANG models) and the frr.conf of a leaf and a
spine (checked by the real vtysh/bgpd)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.evpn import TENANTS, sonic_only
from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.emulators.cumulus.schema import CommandError, check_set
from xoff.platforms.frr.check import check_frr_conf
from xoff.platforms.sonic.yang import validate_config_db
from xoff.render import render_fabric


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> FabricState:
    return build_fabric_state(load_intent(sonic_only(tmp_path_factory.mktemp("evpn"), TENANTS)))


def files_of(state: FabricState, device: str) -> dict[str, str]:
    return {f.name: f.content for f in render_fabric(state, [device])}


def test_vnis_written_or_allocated_and_the_spines_carry_evpn(state: FabricState) -> None:
    for leaf in ("leaf1", "leaf2"):
        vrfs = state.devices[leaf].vrfs
        assert [(v.name, v.vni, v.route_target) for v in vrfs] == [
            ("Vrf-blue", 50001, "50001:50001"),
            ("Vrf-red", 50002, "50002:50002"),  # allocated: the next free one
        ]
    for sw in ("leaf1", "leaf2", "spine1", "spine2"):
        bgp = state.devices[sw].bgp
        assert bgp is not None and bgp.evpn, sw


def test_sonic_config_db_has_the_vteps_and_l3vnis_and_passes_sonic_yang(state: FabricState) -> None:
    db = json.loads(files_of(state, "leaf1")["config_db.json"])
    assert db["VRF"] == {"Vrf-blue": {"vni": "50001"}, "Vrf-red": {"vni": "50002"}}
    assert db["VXLAN_TUNNEL"] == {"vtep": {"src_ip": "198.18.255.3"}}
    assert db["VXLAN_EVPN_NVO"] == {"nvo": {"source_vtep": "vtep"}}
    assert db["VXLAN_TUNNEL_MAP"] == {
        "vtep|map_50001_Vlan3001": {"vlan": "Vlan3001", "vni": "50001"},
        "vtep|map_50002_Vlan3002": {"vlan": "Vlan3002", "vni": "50002"},
    }
    assert db["VLAN_INTERFACE"] == {"Vlan3001": {"vrf_name": "Vrf-blue"}, "Vlan3002": {"vrf_name": "Vrf-red"}}
    assert validate_config_db(db) == []
    spine = json.loads(files_of(state, "spine1")["config_db.json"])
    assert "VXLAN_TUNNEL" not in spine  # a spine routes the VTEPs' loopbacks; it has no VNI


def test_leaf_frr_exports_type5_routes_and_real_frr_accepts_it(state: FabricState) -> None:
    text = files_of(state, "leaf1")["frr.conf"]
    assert "vrf Vrf-blue\n vni 50001\nexit-vrf\n" in text
    assert "route-map EVPN-TYPE5 permit 10\n match evpn route-type prefix\nexit\n" in text
    assert " address-family l2vpn evpn\n  neighbor FABRIC activate\n" in text
    assert "  advertise-all-vni\n" in text
    assert (
        " address-family l2vpn evpn\n  rd 198.18.255.3:50002\n  route-target import 50002:50002\n"
        "  route-target export 50002:50002\n  advertise ipv4 unicast\n exit-address-family\n"
    ) in text
    result = check_frr_conf(text)
    assert result.ok, result.problems


def test_spine_frr_passes_type5_routes_on_with_the_vtep_as_next_hop(state: FabricState) -> None:
    text = files_of(state, "spine1")["frr.conf"]
    assert "  neighbor FABRIC attribute-unchanged next-hop\n" in text
    assert "advertise-all-vni" not in text and "\nvrf " not in text
    result = check_frr_conf(text)
    assert result.ok, result.problems


LEAVES = '  - {name: "leaf{1..2}", role: leaf, mgmt: 198.19.252.21}'
CUMULUS_LEAVES = (
    '  - {name: "leaf{1..2}", role: leaf, platform: cumulus, asic: spectrum4, mgmt: 198.19.252.21,\n'
    '     ports: [{name: "swp{1..4}", speed: 400G, use: downlink}, {name: "swp{5..8}", speed: 400G, use: uplink}]}'
)


def test_cumulus_nvue_l3vni_commands_pass_the_nvue_object_model(tmp_path: Path) -> None:
    target = sonic_only(tmp_path, TENANTS)
    devices = target / "devices.yaml"
    devices.write_text(devices.read_text(encoding="utf-8").replace(LEAVES, CUMULUS_LEAVES), encoding="utf-8")
    state = build_fabric_state(load_intent(target))
    lines = [ln for ln in files_of(state, "leaf1")["nvue-commands.txt"].splitlines() if ln.startswith("nv set ")]
    for line in (
        "nv set evpn enable on",
        "nv set nve vxlan source address 198.18.255.3",
        "nv set vrf Vrf-blue evpn vni 50001",
        "nv set vrf Vrf-blue router bgp rd 198.18.255.3:50001",
        "nv set vrf Vrf-blue router bgp route-import from-evpn route-target 50001:50001",
        "nv set vrf Vrf-blue router bgp route-export to-evpn route-target 50001:50001",
        "nv set vrf Vrf-red router bgp address-family ipv4-unicast route-export to-evpn enable on",
        "nv set vrf default router bgp neighbor 198.18.0.0 address-family l2vpn-evpn enable on",
    ):
        assert line in lines, line
    for line in lines:
        check_set(line.split()[2:])  # raises CommandError on what NVUE refuses
    with pytest.raises(CommandError):
        check_set(["vrf", "Vrf-blue", "evpn", "vni", "16777215"])  # out of NVUE's range
