"""Tenants over VXLAN-EVPN on EOS: the render (Vxlan1, address-family evpn, a VRF's rd and evpn route targets),
every rendered line taken by the EOS emulator's grammar and shown back as rendered, the emulator refusing
forms EOS refuses, the read-back of each VRF's L3 VNI (a wrong one is drift and fails tenant.evpn_consistent),
and a mixed fabric (SONiC leaves, an EOS spine) that now carries its tenants over EVPN."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.evpn import TENANTS, drift_judged
from tests.support.paths import ROOT
from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.emulators.eos.apply import bgp_commands
from xoff.lab.emulators.eos.commands import CONFIG, execute, load
from xoff.lab.emulators.eos.grammar import CommandError, ParseError
from xoff.lab.emulators.eos.model import RunningConfig, render
from xoff.platforms.eos.collect import RUNNING, Collector
from xoff.platforms.eos.config_tree import config_diff
from xoff.platforms.eos.render import render_running_config
from xoff.validate.model import Status

SONIC_LEAVES = '  - {name: "leaf{1..2}", role: leaf, mgmt: 198.19.252.21}'
EOS_LEAVES = (
    '  - {name: "leaf{1..2}", role: leaf, platform: eos, asic: tomahawk5, mgmt: 198.19.252.21,\n'
    '     ports: [{name: "Ethernet{1..4}/1", speed: 400G, use: downlink}, '
    '{name: "Ethernet{5..8}/1", speed: 400G, use: uplink}]}'
)


def lab_mini(tmp_path: Path, leaves: str) -> Path:
    """lab-mini (spine2 is EOS) with the two tenants of tests/support/evpn.py and the given leaves."""
    target = tmp_path / "lab-mini"
    shutil.copytree(ROOT / "inventory" / "lab-mini", target)
    devices = target / "devices.yaml"
    text = devices.read_text(encoding="utf-8")
    assert SONIC_LEAVES in text
    devices.write_text(text.replace(SONIC_LEAVES, leaves), encoding="utf-8")
    (target / "tenants.yaml").write_text(f"tenants:\n  {TENANTS}\n", encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def eos_leaves(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, FabricState]:
    intent = lab_mini(tmp_path_factory.mktemp("eos-evpn"), EOS_LEAVES)
    return intent, build_fabric_state(load_intent(intent))


def test_eos_leaf_renders_its_vtep_l3vnis_and_type5_routes(eos_leaves: tuple[Path, FabricState]) -> None:
    text = render_running_config(eos_leaves[1].devices["leaf1"])
    assert (
        "interface Vxlan1\n   vxlan source-interface Loopback0\n   vxlan udp-port 4789\n"
        "   vxlan vrf Vrf-blue vni 50001\n   vxlan vrf Vrf-red vni 50002\n!\n"
    ) in text
    assert "vrf instance Vrf-blue\n" in text and "ip routing vrf Vrf-blue\n" in text
    assert "   address-family evpn\n      neighbor " in text and "bgp next-hop-unchanged" not in text
    assert "send-community extended\n" in text
    assert (
        "   vrf Vrf-blue\n      rd 198.18.255.3:50001\n      route-target import evpn 50001:50001\n"
        "      route-target export evpn 50001:50001\n      router-id 198.18.255.3\n"
    ) in text
    # AVD's order: Management1, then Vxlan1, then ip routing
    assert text.index("interface Management1") < text.index("interface Vxlan1") < text.index("\nip routing\n")


def test_eos_spine_passes_type5_routes_on_with_the_next_hop_unchanged(eos_leaves: tuple[Path, FabricState]) -> None:
    text = render_running_config(eos_leaves[1].devices["spine2"])
    assert "   address-family evpn\n      bgp next-hop-unchanged\n      neighbor " in text
    assert "interface Vxlan1" not in text and "\n   vrf " not in text


@pytest.mark.parametrize("device", ["leaf1", "leaf2", "spine2"])
def test_every_rendered_line_is_taken_by_the_emulator_and_shown_back(
    eos_leaves: tuple[Path, FabricState], device: str
) -> None:
    text = render_running_config(eos_leaves[1].devices[device])
    cfg, errors = load(text)
    assert errors == []
    assert config_diff(render(cfg), text) == []


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (["interface Vxlan1", "vxlan vni 50001 vrf red"], "% Invalid input"),
        (["interface Vxlan1", "vxlan vrf red vni 16777216"], "% Invalid input"),
        (["interface Vxlan1", "vxlan vrf red"], "% Incomplete command"),
        (["router bgp 65101", "vrf red", "route-target import evpn 65101"], "% Invalid input"),
        (["router bgp 65101", "vrf red", "rd 198.18.0.1:70000"], "% Invalid input"),
        (["router bgp 65101", "address-family evpn", "neighbor 198.18.0.0 activate"], "% Neighbor 198.18.0.0 does"),
    ],
)
def test_the_emulator_refuses_what_eos_refuses(lines: list[str], error: str) -> None:
    cfg, mode = RunningConfig(), CONFIG
    with pytest.raises((ParseError, CommandError)) as caught:
        for line in lines:
            mode = execute(cfg, mode, line)
    assert str(caught.value).startswith(error)


def _drift(intent: Path, fabric: FabricState, tmp_path: Path, text: str) -> tuple[list[tuple[str, ...]], Status]:
    device = fabric.devices["leaf1"]
    obs = Collector().parse({RUNNING.text: text}, device)
    assert obs.errors == [] and obs.device is not None
    assert {"vrfs.*.vni", "vrfs.*.route_target", "bgp.evpn"} <= set(obs.fields)
    assert {"interface Vxlan.vxlan source-interface", "interface Vxlan.vxlan udp-port"} <= set(obs.unmodelled)
    findings, status = drift_judged(intent, fabric, tmp_path, "eos", obs)
    return sorted(findings), status


def test_the_vni_is_read_back_and_a_wrong_one_is_drift(eos_leaves: tuple[Path, FabricState], tmp_path: Path) -> None:
    intent, fabric = eos_leaves
    text = render_running_config(fabric.devices["leaf1"])
    assert _drift(intent, fabric, tmp_path, text) == ([], Status.SUCCESS)
    wrong = text.replace("vxlan vrf Vrf-blue vni 50001", "vxlan vrf Vrf-blue vni 50009")
    findings, status = _drift(intent, fabric, tmp_path, wrong)
    assert status is Status.FAILURE
    assert findings == [("leaf1", "vrfs.Vrf-blue.vni", "50001", "50009")]


def test_a_route_target_exported_but_not_imported_is_drift(
    eos_leaves: tuple[Path, FabricState], tmp_path: Path
) -> None:
    intent, fabric = eos_leaves
    text = render_running_config(fabric.devices["leaf1"])
    wrong = text.replace("route-target export evpn 50002:50002", "route-target export evpn 50009:50009")
    findings, status = _drift(intent, fabric, tmp_path, wrong)
    assert status is Status.FAILURE
    assert findings == [("leaf1", "vrfs.Vrf-red.route_target", "50002:50002", "import 50002:50002 export 50009:50009")]


def test_a_mixed_fabric_with_an_eos_spine_now_carries_its_tenants_over_evpn(tmp_path: Path) -> None:
    fabric = build_fabric_state(load_intent(lab_mini(tmp_path, SONIC_LEAVES)))
    assert [(v.name, v.vni) for v in fabric.devices["leaf1"].vrfs] == [("Vrf-blue", 50001), ("Vrf-red", 50002)]
    for sw in ("leaf1", "leaf2", "spine1", "spine2"):
        bgp = fabric.devices[sw].bgp
        assert bgp is not None and bgp.evpn, sw
    text = render_running_config(fabric.devices["spine2"])
    assert "   address-family evpn\n      bgp next-hop-unchanged\n" in text
    assert load(text)[1] == []


def test_the_lab_spine_gives_frr_its_evpn_sessions_with_the_next_hop_unchanged(
    eos_leaves: tuple[Path, FabricState],
) -> None:
    cfg, errors = load(render_running_config(eos_leaves[1].devices["spine2"]))
    assert errors == [] and cfg.bgp is not None
    lines = bgp_commands(None, cfg.bgp, peer_group=False)
    start = lines.index("address-family l2vpn evpn")
    peers = sorted(cfg.bgp.neighbors)
    assert lines[start : lines.index("exit-address-family", start) + 1] == [
        "address-family l2vpn evpn",
        *(line for p in peers for line in (f"neighbor {p} activate", f"neighbor {p} attribute-unchanged next-hop")),
        "exit-address-family",
    ]
    assert bgp_commands(cfg.bgp, cfg.bgp, peer_group=False) == []
