"""Cumulus (NVUE) renderer: golden files, the two files agree leaf for leaf, YAML validity, determinism,
every command against NVUE's published grammar, and the QoS values the reference prescribes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT
from xoff.desired.models import Device, FabricState, LoadBalancing, StaticRoute
from xoff.platforms.cumulus.grammar import rule_for, unmatched
from xoff.platforms.cumulus.render import COMMANDS_FILE, STARTUP_FILE, render

GOLDEN_ROCE_POD = ("sleaf1", "sspine1")


@pytest.fixture(scope="module")
def roce_pod_state() -> FabricState:
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    return build_fabric_state(load_intent(ROOT / "inventory" / "roce-pod"))


@pytest.fixture(scope="module")
def lab_mini(lab_mini_state: Any) -> FabricState:
    state: FabricState = lab_mini_state[1]
    return state


def _cumulus(state: FabricState) -> list[Device]:
    return [d for d in state.devices.values() if d.platform == "cumulus"]


def _both(lab_mini: FabricState, roce_pod_state: FabricState) -> list[tuple[Device, FabricState]]:
    return [(d, s) for s in (lab_mini, roce_pod_state) for d in _cumulus(s)]


# --- parsing the two files back, independently of the renderer's own tree code -------------------


def command_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def command_leaves(text: str) -> list[tuple[str, ...]]:
    out = []
    for line in command_lines(text):
        words = line.split()
        assert words[:2] == ["nv", "set"], f"not an `nv set` line: {line!r}"
        out.append(tuple(words[2:]))
    return out


def yaml_leaves(node: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Flatten the startup.yaml tree: ``{}`` is a collection member, a scalar is path + value."""
    assert isinstance(node, dict), f"{' '.join(path)}: expected a mapping, got {node!r}"
    out: list[tuple[str, ...]] = []
    for key, value in node.items():
        assert isinstance(key, str), f"{' '.join(path)}: key {key!r} is not a string (NVUE ids are strings)"
        here = (*path, key)
        if isinstance(value, dict):
            out.extend(yaml_leaves(value, here) if value else [here])
        else:
            assert isinstance(value, (str, int)) and not isinstance(value, bool), (
                f"{' '.join(here)}: value {value!r} ({type(value).__name__}) must be a string or an integer"
            )
            out.append((*here, str(value)))
    return out


def load_startup(text: str) -> dict[str, Any]:
    doc = yaml.safe_load(text)
    assert isinstance(doc, list) and len(doc) == 1, "startup.yaml is a list holding one document"
    assert isinstance(doc[0], dict) and list(doc[0]) == ["set"], "the document is a single `set` tree"
    tree: dict[str, Any] = doc[0]["set"]
    return tree


# --- tests -----------------------------------------------------------------------------------------


def test_golden_lab_mini(lab_mini: FabricState, golden: Any) -> None:
    files = render(lab_mini.devices["sleaf1"], lab_mini)
    golden({f"sleaf1/{name}": text for name, text in files.items()}, "render/cumulus/lab-mini")


def test_golden_roce_pod(roce_pod_state: FabricState, golden: Any) -> None:
    files = {
        f"{dev}/{name}": text
        for dev in GOLDEN_ROCE_POD
        for name, text in render(roce_pod_state.devices[dev], roce_pod_state).items()
    }
    golden(files, "render/cumulus/roce-pod")


def test_commands_and_startup_yaml_express_the_same_settings(
    lab_mini: FabricState, roce_pod_state: FabricState
) -> None:
    for device, state in _both(lab_mini, roce_pod_state):
        files = render(device, state)
        assert set(files) == {COMMANDS_FILE, STARTUP_FILE}
        cmds = command_leaves(files[COMMANDS_FILE])
        assert len(cmds) == len(set(cmds)), f"{device.name}: a command is repeated"
        tree_leaves = yaml_leaves(load_startup(files[STARTUP_FILE]))
        assert len(tree_leaves) == len(set(tree_leaves))
        only_cmds = sorted(set(cmds) - set(tree_leaves))
        only_yaml = sorted(set(tree_leaves) - set(cmds))
        assert not only_cmds, f"{device.name}: in nvue-commands.txt, not in startup.yaml: {only_cmds[:5]}"
        assert not only_yaml, f"{device.name}: in startup.yaml, not in nvue-commands.txt: {only_yaml[:5]}"


def test_command_file_holds_only_set_lines_and_says_so(lab_mini: FabricState) -> None:
    text = render(lab_mini.devices["sleaf1"], lab_mini)[COMMANDS_FILE]
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert any("nv config apply -y" in line for line in header), "the header says the push step applies"
    assert all(line.startswith("nv set ") for line in command_lines(text))
    assert "nv config" not in "\n".join(command_lines(text))
    assert text.endswith("\n")


def test_startup_yaml_is_valid_and_typed(lab_mini: FabricState, roce_pod_state: FabricState) -> None:
    for device, state in _both(lab_mini, roce_pod_state):
        tree = load_startup(render(device, state)[STARTUP_FILE])
        assert tree["system"]["hostname"] == device.name
        # `on` must survive YAML 1.1 loaders as the string NVUE's schema wants, not a boolean
        if device.bgp is not None:
            assert tree["router"]["bgp"]["enable"] == "on"
            assert tree["router"]["bgp"]["autonomous-system"] == device.bgp.asn


def test_every_command_is_in_nvue_grammar(lab_mini: FabricState, roce_pod_state: FabricState) -> None:
    used: set[str] = set()
    for device, state in _both(lab_mini, roce_pod_state):
        lines = command_lines(render(device, state)[COMMANDS_FILE])
        assert unmatched(lines) == [], f"{device.name}: not in the NVUE grammar"
        used.update(rule.text for line in lines if (rule := rule_for(line)) is not None)
    # the examples declare no static routes; one device with two (ECMP) covers that rule
    leaf = lab_mini.devices["sleaf1"]
    routes = [StaticRoute(prefix="10.0.0.0/8", next_hop=f"198.18.0.{i}", interface=f"swp{i}") for i in (1, 3)]
    lines = command_lines(render(leaf.model_copy(update={"static_routes": routes}), lab_mini)[COMMANDS_FILE])
    assert "nv set vrf default router static 10.0.0.0/8 via 198.18.0.3" in lines and unmatched(lines) == []
    used.update(rule.text for line in lines if (rule := rule_for(line)) is not None)
    # nor load balancing; one device with a seed and adaptive routing on a port covers those rules
    lb = LoadBalancing(hash_fields=["src-ip"], seed=7, adaptive_routing=True, adaptive_routing_ports=["swp1"])
    lines = command_lines(render(leaf.model_copy(update={"load_balancing": lb}), lab_mini)[COMMANDS_FILE])
    assert "nv set interface swp1 router adaptive-routing enable on" in lines and unmatched(lines) == []
    used.update(rule.text for line in lines if (rule := rule_for(line)) is not None)
    from xoff.platforms.cumulus.grammar import GRAMMAR

    assert used == {text for text, _ in GRAMMAR}, "every grammar rule kept is one xoff uses"


@pytest.mark.parametrize(
    "line",
    [
        "nv set qos pfc pfc-sp4-5m tx enabled",  # 5.15+ spelling, not this release's
        "nv set interface swp1 link mtu 9300",  # above 9216
        "nv set interface swp1 link speed 100g",  # speeds are upper case
        "nv set qos mapping default-global dscp 64 switch-priority 0",  # DSCP is 0-63
        "nv set qos egress-queue-mapping default-global switch-priority 3 traffic-class 8",
        "nv set qos pfc-watchdog polling-interval 50",  # below 100 ms
        "nv set qos pfc-watchdog detection-time 300",  # Cumulus has no such knob
        "nv set vrf default router bgp neighbor swp51 type numbered",  # xoff peers by address
        "nv set interface Ethernet0 type swp",
    ],
)
def test_grammar_rejects_what_nvue_rejects(line: str) -> None:
    assert rule_for(line) is None


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_deterministic_across_runs_and_hash_seeds(lab_mini: FabricState, tmp_path: Path) -> None:
    first = render(lab_mini.devices["sleaf1"], lab_mini)
    assert render(lab_mini.devices["sleaf1"], lab_mini) == first
    script = (
        "import sys, pathlib\n"
        "from xoff.intent import load_intent\n"
        "from xoff.desired import build_fabric_state\n"
        "from xoff.platforms.cumulus.render import render\n"
        "state = build_fabric_state(load_intent(pathlib.Path(sys.argv[1])))\n"
        "out = pathlib.Path(sys.argv[2])\n"
        "for d in state.devices.values():\n"
        "    if d.platform == 'cumulus':\n"
        "        for name, text in render(d, state).items():\n"
        "            (out / f'{d.name}.{name}').write_text(text)\n"
    )
    runs = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        out.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [sys.executable, "-c", script, str(ROOT / "inventory" / "roce-pod"), str(out)], check=True, env=env
        )
        runs.append({p.name: _digest(p) for p in sorted(out.iterdir())})
    assert runs[0] == runs[1]
    assert len(runs[0]) == 12  # 6 Cumulus switches x 2 files


def test_qos_follows_the_plan(lab_mini: FabricState) -> None:
    """lab-mini storage: DSCP 18 -> priority 4 lossless, CNP 48 -> 6 strict, 60/40 DWRR, ECN on queue 4."""
    tree = load_startup(render(lab_mini.devices["sleaf1"], lab_mini)[STARTUP_FILE])
    qos = tree["qos"]
    mapping = qos["mapping"]["default-global"]
    assert mapping["trust"] == "l3"
    dscp = {int(k): v["switch-priority"] for k, v in mapping["dscp"].items()}
    assert set(dscp) == set(range(64))
    assert dscp[18] == 4 and dscp[48] == 6 and dscp[26] == 0
    queues = {
        int(k): v["traffic-class"] for k, v in qos["egress-queue-mapping"]["default-global"]["switch-priority"].items()
    }
    assert queues == {p: p for p in range(8)}
    assert qos["pfc"]["pfc-sp4-5m"] == {"switch-priority": {"4": {}}, "tx": "enable", "rx": "enable", "cable-length": 5}
    assert qos["pfc"]["pfc-sp4-10m"]["cable-length"] == 10  # swp3's own cable, not the others'
    ports = tree["interface"]
    assert ports["swp3"]["qos"]["pfc"]["profile"] == "pfc-sp4-10m"
    assert ports["swp1"]["qos"]["pfc"]["profile"] == "pfc-sp4-5m"
    assert "qos" not in ports["swp5"], "an unused port gets no PFC"
    assert "pfc" not in str(qos.get("pfc", {}).get("default-global", "")), "PFC is not put on every port"
    ecn = qos["congestion-control"]["default-global"]["traffic-class"]
    assert ecn["4"] == {"min-threshold": 150000, "max-threshold": 1500000, "probability": 100, "ecn": "enable"}
    assert ecn["0"] == {"ecn": "disable"}, "NVUE's default ECN on queue 0 is switched off: the plan has none"
    ets = qos["egress-scheduler"]["default-global"]["traffic-class"]
    assert ets == {
        "0": {"mode": "dwrr", "bw-percent": 40},
        "4": {"mode": "dwrr", "bw-percent": 60},
        "6": {"mode": "strict"},
    }
    assert qos["traffic-pool"] == {"default-lossless": {"memory-percent": 50}, "default-lossy": {"memory-percent": 50}}


def test_watchdog_robustness_is_detection_over_poll(lab_mini: FabricState, roce_pod_state: FabricState) -> None:
    from xoff.platforms.cumulus.watchdog import robustness

    assert robustness(300, 100) == 3
    assert robustness(250, 100) == 3  # rounded up: never declared earlier than asked
    assert robustness(200, 200) == 1
    assert robustness(50, 100) == 1
    pod = load_startup(render(roce_pod_state.devices["sleaf1"], roce_pod_state)[STARTUP_FILE])
    assert pod["qos"]["pfc-watchdog"] == {"polling-interval": 100, "robustness": 3}  # 300 ms / 100 ms
    mini = load_startup(render(lab_mini.devices["sleaf1"], lab_mini)[STARTUP_FILE])
    assert mini["qos"]["pfc-watchdog"] == {"polling-interval": 200, "robustness": 1}
    wd = lab_mini.devices["sleaf1"].pfc_watchdog
    assert wd is not None
    on = {p for p, i in mini["interface"].items() if i.get("qos", {}).get("pfc-watchdog") == {"state": "enable"}}
    assert on == set(wd.ports)


def test_interfaces_breakout_and_bgp(roce_pod_state: FabricState) -> None:
    device = roce_pod_state.devices["sleaf1"]
    tree = load_startup(render(device, roce_pod_state)[STARTUP_FILE])
    ports = tree["interface"]
    assert ports["swp1"] == {"type": "swp", "link": {"breakout": {"2x": {}}}}
    assert ports["swp1s0"]["link"] == {"state": {"up": {}}, "speed": "200G", "mtu": 9100}
    assert ports["swp17"]["ip"]["address"] == {"198.19.0.161/31": {}}
    assert ports["swp25"]["link"]["state"] == {"down": {}}
    assert ports["lo"] == {"type": "loopback", "ip": {"address": {"198.19.255.1/32": {}}}}
    assert "eth0" not in ports
    bgp = tree["vrf"]["default"]["router"]["bgp"]
    assert device.bgp is not None
    assert set(bgp["neighbor"]) == {n.address for n in device.bgp.neighbors}
    assert bgp["neighbor"]["198.19.0.160"] == {"remote-as": 65200, "type": "numbered"}
    af = bgp["address-family"]["ipv4-unicast"]
    assert list(af["network"]) == device.bgp.networks
    assert af["multipaths"] == {"ebgp": 64}
    assert tree["router"]["bgp"] == {"enable": "on", "autonomous-system": 65201, "router-id": "198.19.255.1"}


def _with(device: Device, **update: Any) -> Device:
    return device.model_copy(update=update)


def test_what_nvue_cannot_express_is_an_error(lab_mini: FabricState) -> None:
    from xoff.platforms.cumulus import CumulusRenderError

    dev = lab_mini.devices["sleaf1"]
    assert dev.pfc_watchdog is not None and dev.qos is not None
    cases = {
        "only drops": _with(dev, pfc_watchdog=dev.pfc_watchdog.model_copy(update={"action": "alert"})),
        "outside 100-5000": _with(dev, pfc_watchdog=dev.pfc_watchdog.model_copy(update={"poll_interval_ms": 50})),
        "watches all its lossless queues": _with(dev, pfc_watchdog=dev.pfc_watchdog.model_copy(update={"queues": [3]})),
        "total 110": _with(
            dev,
            qos=dev.qos.model_copy(
                update={
                    "schedulers": {**dev.qos.schedulers, 0: dev.qos.schedulers[0].model_copy(update={"weight": 50})}
                }
            ),
        ),
        "not an NVUE link speed": _with(
            dev, interfaces={**dev.interfaces, "swp1": dev.interfaces["swp1"].model_copy(update={"speed_mbps": 2500})}
        ),
        "cable length None": _with(
            dev, interfaces={**dev.interfaces, "swp1": dev.interfaces["swp1"].model_copy(update={"cable_m": None})}
        ),
    }
    for message, broken in cases.items():
        with pytest.raises(CumulusRenderError, match=message):
            render(broken, lab_mini)


def test_tree_conflicts_are_errors_not_overwrites() -> None:
    from xoff.platforms.cumulus.nvue import NvueConflictError, merge, put

    tree: dict[str, Any] = {}
    put(tree, ("interface", "swp1", "link", "mtu"), 9100)
    put(tree, ("interface", "swp1", "link", "mtu"), 9100)  # same value twice is fine
    with pytest.raises(NvueConflictError, match="interface swp1 link mtu"):
        put(tree, ("interface", "swp1", "link", "mtu"), 9000)
    with pytest.raises(NvueConflictError):
        merge(tree, {"interface": {"swp1": {"link": {"mtu": 1500}}}})
    with pytest.raises(ValueError, match="whitespace"):
        put(tree, ("system", "hostname"), "two words")


@pytest.mark.parametrize(
    "value", ["on", "off", "yes", "No", "true", "null", "2x", "100G", "198.19.0.0/31", "0", "it's"]
)
def test_yaml_scalars_read_back_as_the_same_string(value: str) -> None:
    from xoff.platforms.cumulus.nvue import yaml_scalar

    assert yaml.safe_load(f"k: {yaml_scalar(value)}") == {"k": value}
