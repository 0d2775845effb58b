"""Cabling generators expand into explicit, checked links; 3-tier Clos pods drive the ASN plan."""

from __future__ import annotations

from collections import Counter
from ipaddress import IPv4Address
from pathlib import Path

import pytest

from xoff.desired import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.intent.resolved import dotted_quad

CLOS3 = """
fabric: {name: clos}
networks:
  management: {prefix: 192.0.2.0/24}
  compute:
    kind: roce
    qos_policy: p
    p2p_prefix: 198.18.0.0/22
    loopback_prefix: 198.19.255.0/24
    underlay: {asn_plan: {super_spine: 65000, spine: 65100, leaf: 4200000001}}
qos_policies:
  p:
    classes:
      roce: {dscp: [26], priority: 3, lossless: true, ecn: {min_threshold: 150KB, max_threshold: 1500KB}}
      other: {priority: 0, scheduler: {type: dwrr, weight: 50}}
    default_class: other
defaults:
  switch: {platform: sonic, asic: spectrum4}
roles:
  leaf: {ports: [{name: "Ethernet{0..24..8}", speed: 400G, use: downlink}, {name: "Ethernet{32..56..8}", speed: 400G, use: uplink}]}
  spine: {ports: [{name: "Ethernet{0..24..8}", speed: 400G, use: downlink}, {name: "Ethernet{32..56..8}", speed: 400G, use: uplink}]}
  super-spine: {ports: [{name: "Ethernet{0..56..8}", speed: 400G, use: downlink}]}
switches:
  - {name: "leaf{1..4}", role: leaf}
  - {name: "spine{1..4}", role: spine}
  - {name: "ss{1..4}", role: super-spine}
host_profiles:
  h: {gpus: 2, nics: [{netdev: "eth{0..1}", rdma: "mlx5_{0..1}", network: compute, rail: 0, gpu: 0, speed: 400G}]}
hosts:
  - {name: "gpu{1..4}", profile: h}
cabling:
  - {kind: clos3, pods: 2, leaves: "leaf{1..4}", spines: "spine{1..4}", super_spines: "ss{1..4}"}
  - {kind: rail_optimized, hosts: "gpu{1..2}", leaves: [leaf1, leaf2]}
  - {kind: rail_optimized, hosts: "gpu{3..4}", leaves: [leaf3, leaf4]}
"""


def _load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    return load_intent(path)


def test_clos3_pods_planes_and_asns(tmp_path: Path) -> None:
    intent = _load(tmp_path, CLOS3)
    roles = Counter(lk.role for lk in intent.links)
    # 2 pods x 2 leaves x 2 spines; 4 spines x plane of 2 super-spines; 4 hosts x 2 rails
    assert roles == {"leaf_spine": 8, "spine_super_spine": 8, "host_leaf": 8}
    assert {n: s.pod for n, s in intent.switches.items() if s.role != "super-spine"} == {
        "leaf1": 1,
        "leaf2": 1,
        "spine1": 1,
        "spine2": 1,
        "leaf3": 2,
        "leaf4": 2,
        "spine3": 2,
        "spine4": 2,
    }
    planes = {(lk.b[0], lk.a[0]) for lk in intent.links if lk.role == "spine_super_spine"}
    # spine i of each pod -> plane i: spine1/spine3 -> ss1, ss2; spine2/spine4 -> ss3, ss4
    assert planes == {
        ("spine1", "ss1"),
        ("spine1", "ss2"),
        ("spine3", "ss1"),
        ("spine3", "ss2"),
        ("spine2", "ss3"),
        ("spine2", "ss4"),
        ("spine4", "ss3"),
        ("spine4", "ss4"),
    }
    state = build_fabric_state(intent)
    asn = {n: d.bgp.asn for n, d in state.devices.items() if d.bgp}
    assert asn["ss1"] == asn["ss4"] == 65000
    assert asn["spine1"] == asn["spine2"] == 65100 and asn["spine3"] == asn["spine4"] == 65101
    assert sorted(asn[f"leaf{i}"] for i in range(1, 5)) == [4200000001, 4200000002, 4200000003, 4200000004]
    # every /31 is unique and both ends share it
    ends = [lk.address_texts(end) for lk in intent.links for end in (lk.a, lk.b)]
    addrs = [texts[0] for texts in ends if texts is not None]
    assert len(addrs) == len(ends) and len(set(addrs)) == len(addrs)
    for lk in intent.links:  # the upper (a) end holds the even address of the link's /31, the b end the odd one
        a, b = lk.address_texts(lk.a), lk.address_texts(lk.b)
        assert a is not None and b is not None and a[2] == b[2] == a[0]
        assert b[1] == a[0].removesuffix("/31") and a[1] == b[0].removesuffix("/31")


def test_generators_use_the_declared_port_groups(tmp_path: Path) -> None:
    intent = _load(tmp_path, CLOS3)
    for lk in intent.links:
        upper, lower = lk.a, lk.b
        up_port = intent.switches[upper[0]].ports[upper[1]]
        assert up_port.use == "downlink"
        if lower[0] in intent.switches:
            assert intent.switches[lower[0]].ports[lower[1]].use == "uplink"


def test_running_out_of_ports_names_the_device(tmp_path: Path) -> None:
    text = CLOS3.replace(
        'super_spines: "ss{1..4}"',
        'super_spines: "ss{1..4}"}\n  - {kind: leaf_spine, leaves: leaf1, spines: "spine{1..4}"',
    )
    with pytest.raises(InputError) as exc:
        _load(tmp_path, text)
    # clos3 took 2 of leaf1's 4 uplinks; this leaf_spine takes 2 more, then spine3 and spine4 find none
    assert exc.value.render().splitlines() == [
        f"{tmp_path / 'intent.yaml'}:33:5: cabling[1]: leaf1 has no free uplink port for its link to {spine}"
        " (4 uplink or 'any' ports, all cabled)"
        for spine in ("spine3", "spine4")
    ]


def test_uneven_pods_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        _load(tmp_path, CLOS3.replace("pods: 2", "pods: 3"))
    assert exc.value.render().endswith("cabling[0].leaves: 4 leaves do not split evenly into 3 pods")


@pytest.mark.parametrize("address", [0, 1, 255, 256, 0xC6120001, 0x0A000000, 0xFFFFFFFE, 0xFFFFFFFF])
def test_dotted_quad_is_what_ipaddress_writes(address: int) -> None:
    assert dotted_quad(address) == str(IPv4Address(address))
