"""Tenants render on every platform that has them: a VRF per tenant on SONiC (CONFIG_DB, checked by SONiC's
YANG models), EOS, Cumulus NVUE (checked by the emulator's NVUE object model) and FRR (checked by the real
vtysh/bgpd), a partition per tenant in OpenSM's partitions.conf; a VRF a leaf's NOS cannot name is refused
at load with one located line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.lab.emulators.cumulus.schema import check_set
from xoff.platforms.eos.parse import parse_running_config
from xoff.platforms.frr.check import check_frr_conf
from xoff.platforms.sonic.yang import validate_config_db
from xoff.render import render_fabric

TENANTS = "- {name: blue, hosts: ['gpu{1..2}']}\n  - {name: red, hosts: ['gpu{3..4}'], share_lossless: true}"
LEAVES = '  - {name: "leaf{1..2}", role: leaf, mgmt: 198.19.252.21}'
AS_PLATFORM = {
    "sonic": LEAVES,
    "eos": '  - {name: "leaf{1..2}", role: leaf, platform: eos, asic: tomahawk5, mgmt: 198.19.252.21}',
    "cumulus": '  - {name: "leaf{1..2}", role: leaf, platform: cumulus, asic: spectrum4, mgmt: 198.19.252.21,\n'
    '     ports: [{name: "swp{1..4}", speed: 400G, use: downlink}, {name: "swp{5..8}", speed: 400G, use: uplink}]}',
}


def intent(tmp_path: Path, inventory: str, items: str, leaves: str | None = None) -> Path:
    target = tmp_path / inventory
    shutil.copytree(ROOT / "inventory" / inventory, target)
    (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    if leaves is not None:
        devices = target / "devices.yaml"
        devices.write_text(devices.read_text(encoding="utf-8").replace(LEAVES, leaves), encoding="utf-8")
    return target


def files_of(state: FabricState, device: str) -> dict[str, str]:
    return {f.name: f.content for f in render_fabric(state, [device])}


def leaf1(tmp_path: Path, platform: str) -> tuple[FabricState, dict[str, str]]:
    state = build_fabric_state(load_intent(intent(tmp_path, "lab-mini", TENANTS, AS_PLATFORM[platform])))
    return state, files_of(state, "leaf1")


def test_desired_state_binds_host_ports_and_moves_their_links_into_the_vrf(tmp_path: Path) -> None:
    state, _ = leaf1(tmp_path, "sonic")
    leaf = state.devices["leaf1"]
    assert [(v.name, v.tenant, v.networks, v.lossless_priority) for v in leaf.vrfs] == [
        ("Vrf-blue", "blue", ["198.18.0.8/31", "198.18.0.12/31"], 3),
        ("Vrf-red", "red", ["198.18.0.16/31", "198.18.0.20/31"], 3),
    ]
    assert {n: i.vrf for n, i in leaf.interfaces.items() if i.vrf} == {
        "Ethernet0": "Vrf-blue",
        "Ethernet8": "Vrf-blue",
        "Ethernet16": "Vrf-red",
        "Ethernet24": "Vrf-red",
    }
    assert leaf.bgp is not None and leaf.bgp.networks == ["198.18.255.3/32"]  # the underlay keeps only its own


def test_sonic_config_db_has_the_vrfs_and_passes_sonic_yang(tmp_path: Path) -> None:
    _, files = leaf1(tmp_path, "sonic")
    db = json.loads(files["config_db.json"])
    # lab-mini's spines (SONiC, EOS) carry EVPN, so each tenant VRF has its L3 VNI (test_evpn_render.py)
    assert db["VRF"] == {"Vrf-blue": {"vni": "50001"}, "Vrf-red": {"vni": "50002"}}
    assert db["INTERFACE"]["Ethernet0"] == {"vrf_name": "Vrf-blue"}
    assert db["INTERFACE"]["Ethernet32"] == {}  # an uplink stays in the default VRF
    assert validate_config_db(db) == []


def test_frr_runs_a_bgp_instance_per_vrf_and_real_frr_accepts_it(tmp_path: Path) -> None:
    _, files = leaf1(tmp_path, "sonic")
    text = files["frr.conf"]
    assert "router bgp 65101 vrf Vrf-blue\n bgp router-id 198.18.255.3\n" in text
    assert "  network 198.18.0.8/31\n  network 198.18.0.12/31\n" in text
    result = check_frr_conf(text)
    assert result.ok, result.problems


def test_eos_running_config_and_its_parse(tmp_path: Path) -> None:
    _, files = leaf1(tmp_path, "eos")
    text = files["running-config"]
    for line in ("vrf instance Vrf-blue", "   vrf Vrf-blue", "ip routing vrf Vrf-red", "   vrf Vrf-red"):
        assert f"\n{line}\n" in text, line
    assert (
        "   vrf Vrf-blue\n      rd 198.18.255.3:50001\n      route-target import evpn 50001:50001\n"
        "      route-target export evpn 50001:50001\n      router-id 198.18.255.3\n      !\n      address-family ipv4\n"
    ) in text
    parsed = parse_running_config(text)
    assert {n: i.vrf for n, i in parsed.interfaces.items() if i.vrf} == {
        "Ethernet0": "Vrf-blue",
        "Ethernet8": "Vrf-blue",
        "Ethernet16": "Vrf-red",
        "Ethernet24": "Vrf-red",
    }


def test_cumulus_nvue_commands_pass_the_nvue_object_model(tmp_path: Path) -> None:
    _, files = leaf1(tmp_path, "cumulus")
    lines = [line for line in files["nvue-commands.txt"].splitlines() if line.startswith("nv set ")]
    for line in ("nv set vrf Vrf-blue table auto", "nv set interface swp1 ip vrf Vrf-blue"):
        assert line in lines
    assert "nv set vrf Vrf-red router bgp address-family ipv4-unicast network 198.18.0.16/31" in lines
    for line in lines:
        check_set(line.split()[2:])  # raises CommandError on what NVUE refuses


def test_opensm_partition_per_tenant_holds_only_its_hcas(tmp_path: Path) -> None:
    items = "- {name: blue, gpus: ['gpu01:{0..1}'], pkey: 0x0b01, service_level: 1}"
    state = build_fabric_state(load_intent(intent(tmp_path, "ib-pod", items)))
    files = files_of(state, "sm01")
    lines = [line for line in files["partitions.conf"].splitlines() if line.startswith("blue=")]
    assert lines == ["blue=0x0b01, defmember=full : 0x0002c90400000002, 0x0002c90400000003 ; # gpu01"]
    assert "    any, pkey 0x0b01 : 1\n" in files["qos-policy.conf"]


@pytest.mark.parametrize(
    ("platform", "items", "expected"),
    [
        (
            "sonic",
            "- {name: blue, hosts: [gpu1], vrf: blue}",
            "2:38: tenants[0].vrf: sonic cannot render VRF 'blue' on leaf1 (allowed: VRF names matching"
            " Vrf[a-zA-Z0-9_-]+)",
        ),
        (
            "cumulus",
            "- {name: blue, hosts: [gpu1], vrf: mgmt}",
            "2:38: tenants[0].vrf: cumulus cannot render VRF 'mgmt' on leaf1 (allowed: VRF names matching"
            " (?!mgmt$)[A-Za-z][A-Za-z0-9_-]{0,14})",
        ),
    ],
)
def test_a_vrf_the_leaf_cannot_name_is_refused(tmp_path: Path, platform: str, items: str, expected: str) -> None:
    with pytest.raises(InputError) as caught:
        load_intent(intent(tmp_path, "lab-mini", items, AS_PLATFORM[platform]))
    assert [str(p) for p in caught.value.problems] == [f"{tmp_path / 'lab-mini' / 'tenants.yaml'}:{expected}"]
