"""The collect step reads each switch's FIB: SONiC and Cumulus through FRR's ``show ip route json``
(real FRR 8.4 output), EOS through ``show ip route | json`` (the eAPI shape: ``vrfs.default.routes``,
``routeType``, ``vias[{nexthopAddr, interface}]``; samples in the real-format corpus,
tests/fixtures/real/eos/show_ip_route_json/). Bad output is a parse error naming the command, never an empty
table; the emulator builds EOS's table from the device's FRR with EOS's port names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.collect.engine import DeviceRun, assemble
from xoff.connect.targets import Target
from xoff.contracts.observed import FibRoute
from xoff.desired.models import FabricState
from xoff.platforms.eos import fib as eos_fib
from xoff.platforms.registry import collector_for

FIX = ROOT / "tests" / "fixtures" / "parse"
FRR_LEAF1 = (FIX / "frr" / "show_ip_route_json" / "lab-mini-leaf1.json").read_text(encoding="utf-8")
FRR_SPINE2 = (FIX / "frr" / "show_ip_route_json" / "lab-mini-spine2.json").read_text(encoding="utf-8")
EOS_REAL = ROOT / "tests" / "fixtures" / "real" / "eos" / "show_ip_route_json"
EOS_SPINE2 = (EOS_REAL / "ebgp-ecmp-and-connected.txt").read_text(encoding="utf-8")
FIB_COMMANDS = {
    "sonic": "vtysh -c 'show ip route json'",
    "cumulus": "vtysh -c 'show ip route json'",
    "eos": "show ip route | json",
}


def _eos(routes: dict[str, Any]) -> str:
    return json.dumps({"vrfs": {"default": {"routes": routes}}})


def test_eos_routes_not_in_hardware_or_dropping_do_not_forward() -> None:
    via = [
        {"nexthopAddr": "10.0.0.1", "interface": "Ethernet1/1"},
        {"nexthopAddr": "10.0.0.3", "interface": "Ethernet2/1"},
    ]
    text = _eos(
        {
            "10.1.0.0/24": {"routeType": "eBGP", "hardwareProgrammed": True, "routeAction": "forward", "vias": via},
            "10.2.0.0/24": {"routeType": "eBGP", "hardwareProgrammed": False, "routeAction": "forward", "vias": via},
            "10.3.0.0/24": {"routeType": "static", "hardwareProgrammed": True, "routeAction": "drop", "vias": []},
        }
    )
    got = {str(e.prefix): e.ports for e in eos_fib.parse_route_json(text)}
    assert got == {"10.1.0.0/24": ("Ethernet1/1", "Ethernet2/1"), "10.3.0.0/24": ()}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("% Invalid input", "not JSON"),
        ('{"vrfs": {}}', "no vrfs.default object"),
        ('{"vrfs": {"default": {"routes": []}}}', "expected an object keyed by prefix"),
        (_eos({"10.0.0.0/8": {"vias": {}}}), "10.0.0.0/8: expected a route object with a list of vias"),
        (_eos({"fe80::/64": {"vias": []}}), "fe80::/64: not an IPv4 prefix"),
    ],
)
def test_malformed_eos_output_is_an_error(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        eos_fib.parse_route_json(text)


@pytest.mark.parametrize(
    ("platform", "device", "text", "prefix", "ports"),
    [
        ("sonic", "leaf1", FRR_LEAF1, "198.18.4.10/31", ["Ethernet32", "Ethernet40"]),
        ("cumulus", "sleaf1", FRR_LEAF1, "198.18.4.8/31", ["Ethernet0"]),  # the same FRR format
        ("eos", "spine2", EOS_SPINE2, "198.18.255.1/32", ["Ethernet1/1", "Ethernet2/1"]),
    ],
)
def test_collectors_read_the_fib(
    platform: str, device: str, text: str, prefix: str, ports: list[str], lab_mini_state: tuple[object, FabricState]
) -> None:
    desired = lab_mini_state[1].devices[device]
    collector = collector_for(platform)
    assert FIB_COMMANDS[platform] in [c.text for c in collector.commands(desired)]
    obs = collector.parse({FIB_COMMANDS[platform]: text}, desired)
    assert obs.errors == []
    assert obs.fib is not None
    assert {r.prefix: r.ports for r in obs.fib}[prefix] == ports
    # the engine files it under the device in the snapshot
    run = DeviceRun(Target(device, platform, desired.kind, desired.role, desired.network, "192.0.2.1"), observation=obs)
    snap = assemble(lab_mini_state[1], [run])
    assert snap.fib[device] == obs.fib


@pytest.mark.parametrize("platform,device", [("sonic", "leaf1"), ("cumulus", "sleaf1"), ("eos", "spine2")])
def test_garbage_fib_is_a_parse_error_naming_the_command(
    platform: str, device: str, lab_mini_state: tuple[object, FabricState]
) -> None:
    command = FIB_COMMANDS[platform]
    obs = collector_for(platform).parse({command: "% something else entirely\n"}, lab_mini_state[1].devices[device])
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", command)]
    assert obs.fib is None  # not an empty, so "clean", table


def test_eos_emulator_builds_its_table_from_frr_with_eos_names(tmp_path: Path) -> None:
    """Fed FRR's real ``show ip route json`` of spine2's namespace: EOS's shape, EOS's port names."""
    from tests.support.eos_cli_helpers import Cli, RecordingContext, replace_with_rendered
    from xoff.lab.emulators.eos import Emulator

    ctx = RecordingContext(
        device="spine2",
        state_dir=tmp_path / "state",
        netns="unused",
        frr_vty_dir=tmp_path,
        answers={"show ip route json": FRR_SPINE2},
    )
    cli = replace_with_rendered(Cli(Emulator(ctx)), tmp_path / "state")
    shown = json.loads(cli.run("show ip route | json"))
    routes = shown["vrfs"]["default"]["routes"]
    assert routes["198.18.4.8/31"] == {
        "hardwareProgrammed": True,
        "routeType": "eBGP",
        "routeLeaked": False,
        "kernelProgrammed": True,
        "routeAction": "forward",
        "directlyConnected": False,
        "preference": 200,
        "metric": 0,
        "vias": [{"nexthopAddr": "198.18.4.3", "interface": "Ethernet1/1"}],
    }
    assert routes["198.18.255.2/32"]["vias"] == [{"interface": "Loopback0"}]
    # no key the real-format corpus' samples lack
    real = [json.loads(p.read_text())["vrfs"]["default"] for p in sorted(EOS_REAL.glob("*.txt"))]
    assert set(shown["vrfs"]["default"]) <= set().union(*real)
    assert set().union(*(set(r) for r in routes.values())) <= set().union(
        *(set(r) for v in real for r in v["routes"].values())
    )
    text = cli.run("show ip route")
    assert " B E      198.18.4.8/31 [200/0] via 198.18.4.3, Ethernet1/1" in text
    assert " C        198.18.255.2/32 is directly connected, Loopback0" in text
    parsed = [
        FibRoute(prefix=str(e.prefix), protocol=e.protocol, ports=list(e.ports))
        for e in eos_fib.parse_route_json(json.dumps(shown))
    ]
    assert {r.prefix: r.ports for r in parsed}["198.18.4.10/31"] == ["Ethernet2/1"]
