"""Static routes from the intent: carried into FabricState, honoured by the routing model (longest
prefix, then static over eBGP; a less specific route only where the dynamic model has none), and a
test intent whose static routes make a bounce that `xoff deadlock` reports with its witness."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest
from deadlock_fabrics import leaf_spine_intent, load_state
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.cli.deadlock_intent import make_app
from xoff.deadlock.analysis import analyse
from xoff.deadlock.failures import brute_force, sweep
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.validate import check_snapshot
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState, StaticRoute
from xoff.intent import load_intent

FIXTURE = ROOT / "tests" / "fixtures" / "deadlock_intent" / "static-bounce.yaml"
runner = CliRunner()


def _with_statics(base: str, statics: dict[str, str], *, two_hosts: bool = False) -> str:
    """``base`` (leaf_spine_intent) with ``static_routes`` (a flow list) on the named switches."""
    lines = []
    for original in base.splitlines():
        line = original
        for pattern, role in (("leaf", "leaf"), ("spine", "spine")):
            if original.startswith(f'  - {{name: "{pattern}{{1..'):
                count = int(original.split("..")[1].split("}")[0])
                line = "\n".join(
                    f"  - {{name: {pattern}{i}, role: {role}"
                    + (f", static_routes: {statics[f'{pattern}{i}']}" if f"{pattern}{i}" in statics else "")
                    + "}"
                    for i in range(1, count + 1)
                )
        lines.append(line)
    text = "\n".join(lines) + "\n"
    if two_hosts:
        text = text.replace('{name: "gpu1", profile: h}', '{name: "gpu{1..2}", profile: h}')
        text = text.replace('hosts: "gpu1", leaves', 'hosts: "gpu{1..2}", leaves')
    return text


def _port(state: FabricState, switch: str, peer: str) -> str:
    (port,) = [p for p, i in state.devices[switch].interfaces.items() if i.peer is not None and i.peer.device == peer]
    return port


def _nic_address(state: FabricState, host: str, netdev: str) -> str:
    host_settings = state.devices[host].host
    assert host_settings is not None
    address = host_settings.nics[netdev].address
    assert address is not None
    return address.split("/")[0]


def test_fixture_bounce_cycle_cli_text_and_json() -> None:
    res = runner.invoke(make_app(), [str(FIXTURE), "--fail-on-risk"])
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "DEADLOCK RISK: cyclic buffer dependency" in out
    assert "up*/down* certificate fails: 4 down-to-up turn(s) carry lossless traffic" in out
    assert "[bounce, U-turn]" in out and "for gpu1:eth0" in out
    assert out.splitlines()[-1] == "verdict: DEADLOCK RISK in the baseline itself"

    res = runner.invoke(make_app(), [str(FIXTURE), "--format", "json", "--fail-on-risk"])
    assert res.exit_code == 1
    base = json.loads(res.stdout)["baseline"]
    assert base["deadlock_risk"] is True and base["certified"] is False and base["risky_priorities"] == [3]
    # the whole leaf -> spine -> leaf -> spine loop and both U-turns: every fabric buffer carrying host traffic back
    state = build_fabric_state(load_intent(FIXTURE))

    def dl(a: str, b: str) -> str:
        return f"{a}:{_port(state, a, b)}->{b}:{_port(state, b, a)}"

    want = {dl("leaf1", "spine1"), dl("spine1", "leaf1"), dl("spine1", "leaf2")}
    want |= {dl("leaf2", "spine2"), dl("spine2", "leaf2"), dl("spine2", "leaf1")}
    assert {link for link, prio in base["nodes_on_cycles"]} == want
    witness = base["cycles"][0]["witness"]
    assert [[w["link"], w["prio"]] for w in witness] == base["example_cycle"]
    assert all(w["because"]["dest"] in {"gpu1:eth0", "gpu1:eth1"} for w in witness)
    assert any(w["because"]["kind"] == "bounce" for w in witness)
    # the witness really is a cycle of the exported snapshot's graph (consecutive links meet at a switch)
    for step, nxt in zip(witness, witness[1:] + witness[:1], strict=True):
        assert step["link"].split("->")[1].split(":")[0] == nxt["link"].split(":")[0]


def test_the_four_link_loop_is_a_cycle_of_the_graph() -> None:
    """leaf1 -> spine1 -> leaf2 -> spine2 -> leaf1: each turn justified by a destination (rule 3)."""
    state = build_fabric_state(load_intent(FIXTURE))
    snap = snapshot_from_fabric(state)
    assert check_snapshot(snap) == []
    fwd = snap.forwarding
    eth0, eth1 = fwd["gpu1:eth0"], fwd["gpu1:eth1"]
    up1, up2 = _port(state, "leaf1", "spine1"), _port(state, "leaf2", "spine2")
    assert eth0["leaf1"] == (up1,) and eth1["leaf2"] == (up2,)  # the /32s beat the connected /31s
    assert _port(state, "spine1", "leaf2") in eth1["spine1"]  # leaf1 -> spine1 -> leaf2 (gpu1:eth1)
    assert up2 == eth1["leaf2"][0]  # leaf2 bounces it to spine2
    assert eth0["spine2"] == (_port(state, "spine2", "leaf1"),)  # spine2 -> leaf1 (gpu1:eth0)
    assert analyse(snap).deadlock_risk


def test_state_carries_routes_with_next_hop_and_interface() -> None:
    state = build_fabric_state(load_intent(FIXTURE))
    leaf1, leaf2 = state.devices["leaf1"], state.devices["leaf2"]
    spine1_addr = state.devices["spine1"].interfaces[_port(state, "spine1", "leaf1")].addresses[0].split("/")[0]
    assert leaf1.static_routes == [
        StaticRoute(prefix="198.18.0.9/32", next_hop=spine1_addr, interface=_port(state, "leaf1", "spine1"))
    ]
    assert leaf2.static_routes == [
        StaticRoute(prefix="198.18.0.11/32", next_hop="198.18.0.6", interface=_port(state, "leaf2", "spine2"))
    ]
    assert state.devices["spine1"].static_routes == []


def test_role_routes_are_inherited_and_a_device_list_replaces_them(tmp_path: Path) -> None:
    text = leaf_spine_intent(3, 2).replace(
        "  leaf: {ports:", "  leaf: {static_routes: [{prefix: 0.0.0.0/0, via: Ethernet128}], ports:"
    )
    text = _with_statics(text, {"leaf3": "[{prefix: 10.0.0.0/8, via: spine2}]"})
    state = load_state(tmp_path, text)
    assert [(r.prefix, r.interface) for r in state.devices["leaf1"].static_routes] == [("0.0.0.0/0", "Ethernet128")]
    assert [(r.prefix, r.interface) for r in state.devices["leaf2"].static_routes] == [("0.0.0.0/0", "Ethernet128")]
    assert [(r.prefix, r.interface) for r in state.devices["leaf3"].static_routes] == [
        ("10.0.0.0/8", _port(state, "leaf3", "spine2"))
    ]


def test_longest_prefix_then_static_over_bgp(tmp_path: Path) -> None:
    base = load_state(tmp_path, leaf_spine_intent(2, 2))
    h2 = _nic_address(base, "gpu1", "eth1")  # behind leaf2
    # /31 at the owner: the connected route wins; /31 elsewhere: equal length, static beats eBGP
    text = _with_statics(
        leaf_spine_intent(2, 2),
        {"leaf2": f"[{{prefix: {h2}/31, via: spine1}}]", "spine1": f"[{{prefix: {h2}/31, via: leaf1}}]"},
    )
    text = text.replace(f"{h2}/31", f"{_net31(h2)}/31")
    state = load_state(tmp_path, text)
    snap = snapshot_from_fabric(state)
    assert snap.forwarding["gpu1:eth1"]["leaf2"] == (_port(state, "leaf2", "gpu1"),)
    assert snap.forwarding["gpu1:eth1"]["spine1"] == (_port(state, "spine1", "leaf1"),)


def _net31(addr: str) -> str:
    a, b, c, d = (int(x) for x in addr.split("."))
    return f"{a}.{b}.{c}.{d & ~1}"


def test_a_default_route_applies_only_where_bgp_has_no_route(tmp_path: Path) -> None:
    text = _with_statics(leaf_spine_intent(3, 2), {"spine1": "[{prefix: 0.0.0.0/0, via: leaf1}]"})
    state = load_state(tmp_path, text)
    base = snapshot_from_fabric(state)
    assert base.forwarding["gpu1:eth2"]["spine1"] == (_port(state, "spine1", "leaf3"),)
    assert analyse(base).certified
    # spine1 loses leaf3: RFC 7938 withdraws (the valley path holds the spines' ASN), the default takes over
    failed = f"leaf3:{_port(state, 'leaf3', 'spine1')}--spine1:{_port(state, 'spine1', 'leaf3')}"
    if failed not in fabric_of(state).link_ids:
        failed = f"spine1:{_port(state, 'spine1', 'leaf3')}--leaf3:{_port(state, 'leaf3', 'spine1')}"
    after = snapshot_from_fabric(state, failed=frozenset({failed}))
    assert after.forwarding["gpu1:eth2"]["spine1"] == (_port(state, "spine1", "leaf1"),)
    assert after.forwarding["gpu1:eth2"]["leaf1"] == (_port(state, "leaf1", "spine2"),)  # a bounce at leaf1
    assert analyse(after).bounces


def test_static_routes_split_the_hosts_of_one_switch(tmp_path: Path) -> None:
    plain = load_state(tmp_path, _with_statics(leaf_spine_intent(2, 2), {}, two_hosts=True))
    target = _nic_address(plain, "gpu1", "eth0")  # gpu1:eth0 and gpu2:eth0 both hang off leaf1
    text = _with_statics(leaf_spine_intent(2, 2), {"spine1": f"[{{prefix: {target}/32, via: leaf2}}]"}, two_hosts=True)
    state = load_state(tmp_path, text)
    fab = fabric_of(state)
    assert len(fab.classes) == 3  # leaf1's hosts split in two, leaf2's one class
    snap = snapshot_from_fabric(state)
    assert snap.forwarding["gpu1:eth0"]["spine1"] == (_port(state, "spine1", "leaf2"),)
    assert snap.forwarding["gpu2:eth0"]["spine1"] == (_port(state, "spine1", "leaf1"),)
    assert snap.forwarding["gpu1:eth0"]["leaf2"] == tuple(sorted(snap.forwarding["gpu2:eth0"]["leaf2"]))


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_sweep_agrees_with_brute_force_under_static_and_default_routes(tmp_path: Path, routing: str) -> None:
    """Default routes that apply only after a failure, a /32 that splits a class: the incremental sweep
    finds exactly the single and double failures that the naive recompute finds."""
    plain = load_state(tmp_path, _with_statics(leaf_spine_intent(4, 2), {}, two_hosts=True))
    host = _nic_address(plain, "gpu2", "eth2")  # behind leaf3
    statics = {
        "spine1": "[{prefix: 0.0.0.0/0, via: leaf1}]",
        "spine2": "[{prefix: 0.0.0.0/0, via: leaf2}]",
        "leaf4": f"[{{prefix: {host}/32, via: spine2}}]",  # equal to eBGP's /31 is enough; narrows the ECMP set
    }
    state = load_state(tmp_path, _with_statics(leaf_spine_intent(4, 2), statics, two_hosts=True))
    assert len(fabric_of(state).classes) == 5  # gpu2:eth2 is a class of its own
    report = sweep(state, routing=routing, max_failures=2)  # type: ignore[arg-type]
    assert not report.baseline.deadlock_risk
    singles = {s.failed for s in report.risky if len(s.failed) == 1}
    pairs = {tuple(sorted(s.failed)) for s in report.risky if len(s.failed) == 2}
    want1 = set(brute_force(state, routing=routing, failures=1))  # type: ignore[arg-type]
    want2 = {tuple(sorted(f)) for f in brute_force(state, routing=routing, failures=2)}  # type: ignore[arg-type]
    assert singles == want1
    # pairs that hold a risky single failure are not searched (documented in the report)
    assert pairs == {f for f in want2 if not any((x,) in want1 for x in f)}
    assert pairs, "the case should have risky failure pairs, or it proves little"
    assert report.levels[2].scenarios == len(list(combinations(range(report.fabric_links), 2)))
