"""Deadlock analysis on collected FIBs: FRR's `show ip route json` (real FRR 8.4 output captured from
the lab) parsed into FIB entries, and snapshots built by longest-prefix match, checked by hand.

The hand-made FIBs are lab-mini's compute network (leaf1, leaf2 under spine1, spine2; gpu1..4 with a
rail on each leaf). Clean ECMP up-down routing has no risk; the two "bounce" routes of deadlock.md
§3.4 (each spine sends one leaf's hosts down through the other leaf) close a cycle, which the
analysis reports with its bounce turns.
"""

from __future__ import annotations

from ipaddress import IPv4Interface, IPv4Network

import pytest

from tests.support.paths import ROOT
from xoff.contracts.fib import FibEntry
from xoff.deadlock.analysis import analyse
from xoff.deadlock.from_fib import snapshot_from_fibs
from xoff.desired.models import FabricState
from xoff.platforms.frr.fib import parse_route_json

FIXTURES = ROOT / "tests" / "fixtures" / "parse" / "frr" / "show_ip_route_json"


def test_real_frr_output_parses_to_installed_routes_with_ecmp_ports() -> None:
    leaf1 = {str(e.prefix): e for e in parse_route_json((FIXTURES / "lab-mini-leaf1.json").read_text())}
    assert leaf1["198.18.4.10/31"] == FibEntry(IPv4Network("198.18.4.10/31"), "bgp", ("Ethernet32", "Ethernet40"))
    assert leaf1["198.18.4.8/31"].ports == ("Ethernet0",)  # a host rail, directly connected
    assert leaf1["198.18.4.8/31"].protocol == "connected"
    assert leaf1["198.18.255.1/32"].ports == ("Ethernet32",)  # a spine's loopback, one path
    assert len(leaf1) == 15


def test_linux_interface_names_map_back_to_intent_ports() -> None:
    text = (FIXTURES / "lab-mini-spine2.json").read_text()
    spine2 = {str(e.prefix): e for e in parse_route_json(text, {"Ethernet1_1": "Ethernet1/1"})}
    assert spine2["198.18.4.8/31"].ports == ("Ethernet1/1",)
    assert spine2["198.18.4.10/31"].ports == ("Ethernet2_1",)  # not in the map: kept as printed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[]", "expected an object keyed by prefix"),
        ('{"10.0.0.0/8": {}}', "10.0.0.0/8: expected a list of routes"),
    ],
)
def test_malformed_output_is_an_error_not_an_empty_fib(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_route_json(text)


def test_routes_not_selected_or_not_installed_are_not_forwarding() -> None:
    text = '{"10.0.0.0/8": [{"selected": true, "installed": false, "protocol": "bgp", "nexthops": [{"interfaceName": "Ethernet0", "active": true, "fib": true}]}]}'
    assert parse_route_json(text) == []


@pytest.fixture(scope="module")
def state(lab_mini_state: tuple[object, FabricState]) -> FabricState:
    return lab_mini_state[1]


# --- snapshots from hand-made FIBs on lab-mini's compute network ------------------------------------


def _rails(state: FabricState) -> dict[str, dict[str, str]]:
    """leaf -> host /31 -> the leaf port it is connected to."""
    out: dict[str, dict[str, str]] = {}
    for link in state.links:
        if link.network != "compute" or link.role != "host_leaf":
            continue
        host, leaf = (link.a, link.b) if state.devices[link.a.device].kind == "host" else (link.b, link.a)
        nic = state.devices[host.device].host.nics[host.port]  # type: ignore[union-attr]
        assert nic.address is not None
        out.setdefault(leaf.device, {})[str(IPv4Interface(nic.address).network)] = leaf.port
    return out


def _uplinks(state: FabricState, leaf: str) -> dict[str, str]:
    """spine -> the leaf's port towards it."""
    out = {}
    for link in state.links:
        for me, other in ((link.a, link.b), (link.b, link.a)):
            if me.device == leaf and state.devices[other.device].role == "spine":
                out[other.device] = me.port
    return out


def _downlinks(state: FabricState, spine: str) -> dict[str, str]:
    """leaf -> the spine's port towards it."""
    out = {}
    for link in state.links:
        for me, other in ((link.a, link.b), (link.b, link.a)):
            if me.device == spine and state.devices[other.device].role == "leaf" and link.network == "compute":
                out[other.device] = me.port
    return out


def _clean_fibs(state: FabricState) -> dict[str, list[FibEntry]]:
    rails = _rails(state)
    fibs: dict[str, list[FibEntry]] = {}
    for leaf, subnets in rails.items():
        up = tuple(sorted(_uplinks(state, leaf).values()))
        entries = [FibEntry(IPv4Network(n), "connected", (p,)) for n, p in subnets.items()]
        entries.append(FibEntry(IPv4Network("198.18.0.0/24"), "bgp", up))  # aggregate up, ECMP
        fibs[leaf] = entries
    for spine in ("spine1", "spine2"):
        down = _downlinks(state, spine)
        fibs[spine] = [
            FibEntry(IPv4Network(n), "bgp", (down[leaf],)) for leaf, subnets in rails.items() for n in subnets
        ]
    return fibs


def test_clean_fibs_give_every_endpoint_a_path_and_no_risk(state: FabricState) -> None:
    snapshot = snapshot_from_fibs(state, _clean_fibs(state))
    assert len(snapshot.hosts) == 8  # gpu1..4, one endpoint per rail
    assert snapshot.forwarding["gpu1:eth0"]["leaf1"] == ("Ethernet0",)
    assert snapshot.forwarding["gpu1:eth0"]["leaf2"] == ("Ethernet32", "Ethernet40")
    result = analyse(snapshot)
    assert not result.deadlock_risk
    assert result.certified


def test_bounce_routes_in_two_spines_close_a_cycle(state: FabricState) -> None:
    fibs = _clean_fibs(state)
    rails = _rails(state)
    # spine1 sends leaf2's hosts down to leaf1, spine2 sends leaf1's hosts down to leaf2 (deadlock.md §3.4)
    for spine, wrong_leaf, their_leaf in (("spine1", "leaf1", "leaf2"), ("spine2", "leaf2", "leaf1")):
        down = _downlinks(state, spine)
        fibs[spine] = [
            FibEntry(e.prefix, e.protocol, (down[wrong_leaf],)) if str(e.prefix) in rails[their_leaf] else e
            for e in fibs[spine]
        ]
    # and the leaves send hosts they do not have up to the other spine only
    for leaf, other_spine in (("leaf1", "spine2"), ("leaf2", "spine1")):
        up = _uplinks(state, leaf)
        fibs[leaf] = [
            FibEntry(e.prefix, e.protocol, (up[other_spine],)) if e.protocol == "bgp" else e for e in fibs[leaf]
        ]
    result = analyse(snapshot_from_fibs(state, fibs))
    assert result.deadlock_risk
    assert result.risky_priorities == (3,)
    assert not result.certified
    kinds = {step.kind for cycle in result.cycles for step in cycle.steps}
    assert "bounce" in kinds
    switches = {step.switch for cycle in result.cycles for step in cycle.steps}
    assert switches == {"leaf1", "leaf2", "spine1", "spine2"}


def test_a_switch_without_a_collected_fib_is_an_error(state: FabricState) -> None:
    fibs = _clean_fibs(state)
    del fibs["spine2"]
    with pytest.raises(ValueError, match="no FIB collected from spine2"):
        snapshot_from_fibs(state, fibs)
