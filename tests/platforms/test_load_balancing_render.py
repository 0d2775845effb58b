"""Load balancing per platform: what each renders from one intent, and the one located line that refuses what a
platform cannot render (SONiC: no seed or adaptive routing in sonic-hash.yang; EOS: no IP-protocol keyword,
seed or adaptive routing; nowhere: RoCE queue-pair hashing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.lb_intent import CUMULUS_LEAF, EOS_SPINE, LEAF_ROLE, SONIC_DEFAULTS, lb_intent
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.platforms.cumulus.grammar import GRAMMAR
from xoff.platforms.sonic.yang import validate_config_db
from xoff.render import render_fabric


def _files(state: FabricState) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for f in render_fabric(state):
        out.setdefault(f.device, {})[f.name] = f.content
    return out


FOUR = "{hash_fields: [src-ip, dst-ip, l4-src-port, l4-dst-port, flow-label]}"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    path = lb_intent(
        tmp_path_factory.mktemp("lb"),
        (SONIC_DEFAULTS, f"{SONIC_DEFAULTS}    load_balancing: {FOUR}\n"),
        (CUMULUS_LEAF, f"{CUMULUS_LEAF} load_balancing: {{seed: 7, adaptive_routing: true}},"),
    )
    return _files(build_fabric_state(load_intent(path)))


def test_sonic_switch_hash(rendered: dict[str, dict[str, str]]) -> None:
    db = json.loads(rendered["leaf1"]["config_db.json"])
    assert db["SWITCH_HASH"] == {"GLOBAL": {"ecmp_hash@": "SRC_IP,DST_IP,L4_SRC_PORT,L4_DST_PORT,IPV6_FLOW_LABEL"}}


def test_sonic_switch_hash_is_valid_yang(rendered: dict[str, dict[str, str]]) -> None:
    """SWITCH_HASH as rendered passes sonic-hash.yang through yanglint; a field SONiC does not know fails it."""
    db = json.loads(rendered["leaf1"]["config_db.json"])
    assert validate_config_db(db) == []
    db["SWITCH_HASH"]["GLOBAL"]["ecmp_hash@"] = "SRC_IP,DST_QP"
    (problem,) = validate_config_db(db)
    assert 'Invalid enumeration value "DST_QP"' in problem and "SWITCH_HASH|GLOBAL ecmp_hash" in problem


def test_eos_ip_load_sharing(rendered: dict[str, dict[str, str]]) -> None:
    lines = rendered["spine2"]["running-config"].splitlines()
    assert [ln for ln in lines if ln.startswith("ip load-sharing")] == [
        "ip load-sharing trident fields ip source-ip destination-ip source-port destination-port",
        "ip load-sharing trident fields ipv6 source-ip destination-ip source-port destination-port flow-label",
    ]


def test_cumulus_ecmp_hash_seed_and_adaptive_routing(rendered: dict[str, dict[str, str]]) -> None:
    lines = rendered["sleaf1"]["nvue-commands.txt"].splitlines()
    mine = [ln for ln in lines if " forwarding " in ln or "adaptive-routing" in ln]
    assert mine == [
        "nv set system forwarding ecmp-hash source-ip on",
        "nv set system forwarding ecmp-hash destination-ip on",
        "nv set system forwarding ecmp-hash ip-protocol on",
        "nv set system forwarding ecmp-hash source-port on",
        "nv set system forwarding ecmp-hash destination-port on",
        "nv set system forwarding ecmp-hash ipv6-label off",
        "nv set system forwarding ecmp-hash ingress-interface off",
        "nv set system forwarding hash-seed 7",
        "nv set router adaptive-routing enable on",
    ]
    assert {"nv set system forwarding hash-seed 0-4294967295", "nv set router adaptive-routing enable (on|off)"} <= {
        rule for rule, _ in GRAMMAR
    }


def test_cumulus_adaptive_routing_on_fabric_ports(tmp_path: Path) -> None:
    """A Cumulus leaf with uplinks: adaptive routing on each of them, none on its host ports."""
    path = lb_intent(
        tmp_path,
        ("    platform: sonic\n", "    platform: cumulus\n"),
        ("    asic: spectrum4\n    hwsku: ACS-SN5600\n", "    asic: spectrum4\n"),
        (LEAF_ROLE, "  leaf:\n    load_balancing: {adaptive_routing: true}\n    ports:\n"),
        (
            '{name: "Ethernet{0..24..8}", speed: 400G, use: downlink}\n  leaf:',
            '{name: "swp{1..4}", speed: 400G, use: downlink}\n  leaf:',
        ),
        (
            '      - {name: "Ethernet{0..24..8}", speed: 400G, use: downlink}\n      - {name: "Ethernet{32..56..8}"',
            '      - {name: "swp{1..4}", speed: 400G, use: downlink}\n      - {name: "swp{5..8}"',
        ),
    )
    state = build_fabric_state(load_intent(path))
    lb = state.devices["leaf1"].load_balancing
    assert lb is not None
    uplinks = sorted(i.name for i in state.devices["leaf1"].interfaces.values() if i.link_role == "leaf_spine")
    assert uplinks
    assert lb.adaptive_routing_ports == uplinks
    text = _files(state)["leaf1"]["nvue-commands.txt"]
    for port in uplinks:
        assert f"nv set interface {port} router adaptive-routing enable on" in text
    assert "nv set interface swp1 router adaptive-routing" not in text


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            (SONIC_DEFAULTS, f"{SONIC_DEFAULTS}    load_balancing: {{seed: 7}}\n"),
            [
                "devices.yaml:6:28: defaults.switch.load_balancing.seed: eos cannot render seed (no verified EOS"
                " keyword for it on Trident/Tomahawk) (allowed: remove seed)",
                "devices.yaml:6:28: defaults.switch.load_balancing.seed: sonic cannot render seed (sonic-hash.yang's"
                " SWITCH_HASH has hash fields and an algorithm only: no seed, UDF or adaptive routing)"
                " (allowed: remove seed)",
                "devices.yaml:6:21: defaults.switch.load_balancing.hash_fields: eos cannot hash on ip-protocol"
                " (allowed: dst-ip, flow-label, ingress-port, l4-dst-port, l4-src-port, src-ip)",
            ],
        ),
        (
            (CUMULUS_LEAF, f"{CUMULUS_LEAF} load_balancing: {{roce_qp_hash: true}},"),
            [
                "devices.yaml:21:138: switches[3].load_balancing.roce_qp_hash: cumulus cannot render roce_qp_hash"
                " (NVUE's system forwarding ecmp-hash has no queue-pair or UDF field) (allowed: remove roce_qp_hash)",
            ],
        ),
        (
            (EOS_SPINE, f"{EOS_SPINE} load_balancing: {{hash_fields: [src-ip, src-ip]}},"),
            [
                "devices.yaml:18:116: switches[1].load_balancing.hash_fields: hash field(s) src-ip"
                " listed twice (allowed: each field once)",
            ],
        ),
    ],
    ids=["seed-on-sonic-and-eos", "qp-hash-on-cumulus", "field-twice"],
)
def test_refused_with_one_located_line(tmp_path: Path, edit: tuple[str, str], expected: list[str]) -> None:
    path = lb_intent(tmp_path, edit)
    with pytest.raises(InputError) as info:
        load_intent(path)
    lines = ["devices.yaml" + str(p).split("devices.yaml", 1)[1] for p in info.value.problems]
    assert sorted(lines) == sorted(expected)
