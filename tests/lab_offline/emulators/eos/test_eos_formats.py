"""What the emulator prints has EOS's formats: the samples in tests/fixtures/eos-cli/ (README there
says where each format comes from) parse with ntc-templates exactly as the emulator's output does,
and the emulator's output for lab-mini's spine2 is the sample. The lab's tools are stood in for by
real captured output (FRR 8.4 ``show ip bgp summary json``, lldpd 1.0.16 ``lldpcli -f json``,
``ip -j link``), so the conversion from them is what is tested."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from ntc_templates.parse import parse_output

from tests.support.eos_cli_helpers import FIXTURES, Cli, RecordingContext, rendered
from xoff.lab.emulators.eos import Emulator

TOOLS = FIXTURES / "tools"
UPDATE = False  # set True once to rewrite the pinned (reconstructed) samples from the emulator


def _tool(name: str) -> Any:
    return json.loads((TOOLS / name).read_text(encoding="utf-8"))


def _ip_link() -> str:
    """The captured ``ip -j link show``, with every port of spine2 present and up (Ethernet3/1 and 4/1 are shut)."""
    links = _tool("ip_-j_link_show.json")
    eth = next(d for d in links if d["ifname"] == "Ethernet1_1")
    for name in ("Ethernet2_1", "Ethernet3_1", "Ethernet4_1", "Management1"):
        links.append(copy.deepcopy(eth) | {"ifname": name})
    for d in links:
        if d["ifname"] in {"Ethernet3_1", "Ethernet4_1"}:
            d["flags"] = ["BROADCAST", "MULTICAST"]
    return json.dumps(links)


def _frr() -> str:
    """The captured FRR summary, with spine2's second session (leaf2) added."""
    data = _tool("frr-8.4_show_ip_bgp_summary.json")
    peers = data["ipv4Unicast"]["peers"]
    peers["198.18.0.3"] |= {"msgRcvd": 38, "msgSent": 41, "pfxRcd": 3, "peerUptimeMsec": 109000}
    peers["198.18.0.7"] = peers["198.18.0.3"] | {
        "remoteAs": 65102,
        "msgRcvd": 37,
        "desc": "leaf2:Ethernet40",
        "peerUptimeMsec": 108000,
    }
    return json.dumps(data)


def _lldp() -> str:
    """The captured lldpcli neighbours (one, as an object) made two (lldpcli then gives a list)."""
    data = _tool("lldpcli-1.0.16_show_neighbors.json")
    one = data["lldp"]["interface"]["Ethernet1_1"]
    one["port"]["ttl"] = "120"
    two = copy.deepcopy(one)
    two["chassis"] = {"leaf2": one["chassis"]["leaf1"]}
    data["lldp"]["interface"] = [{"Ethernet1_1": one}, {"Ethernet2_1": two}]
    return json.dumps(data)


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    root = tmp_path_factory.mktemp("eos-formats")
    (root / "lldpd").mkdir()
    (root / "lldpd" / "lldpd.sock").touch()
    ctx = RecordingContext(
        device="spine2",
        state_dir=root / "state",
        netns="xl-test-spine2",
        frr_vty_dir=root / "frr",
        answers={"ip -j link show": _ip_link(), "show ip bgp summary json": _frr(), "lldpcli": _lldp()},
    )
    c = Cli(Emulator(ctx))
    (root / "state" / "files" / "mnt" / "flash" / "x.cfg").write_text(rendered("lab-mini", "spine2"), encoding="utf-8")
    c.quiet("enable", "configure replace flash:x.cfg")
    return c


def _fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _pinned(cli: Cli, command: str, name: str) -> None:
    out = cli.run(command)
    if UPDATE:
        (FIXTURES / name).write_text(out, encoding="utf-8")
    assert out == _fixture(name)


TEXTFSM = [
    "show version",
    "show interfaces status",
    "show ip interface brief",
    "show lldp neighbors",
    "show ip bgp summary",
]


@pytest.mark.parametrize("command", TEXTFSM)
def test_ntc_templates_read_the_emulator_like_the_samples(cli: Cli, command: str) -> None:
    sample = parse_output(platform="arista_eos", command=command, data=_fixture(command.replace(" ", "_") + ".txt"))
    ours = parse_output(platform="arista_eos", command=command, data=cli.run(command))
    assert sample and ours
    assert ours[0].keys() == sample[0].keys()
    if command != "show version":
        assert ours == sample


@pytest.mark.parametrize("command", ["show interfaces status", "show ip interface brief", "show ip bgp summary"])
def test_tables_are_the_samples(cli: Cli, command: str) -> None:
    assert cli.run(command) == _fixture(command.replace(" ", "_") + ".txt")


def test_lldp_table_is_the_sample(cli: Cli) -> None:
    ours, sample = cli.run("show lldp neighbors").splitlines(), _fixture("show_lldp_neighbors.txt").splitlines()
    assert ours[1:] == sample[1:]  # the first line is the age of the table


def test_version_is_ceos_shaped(cli: Cli) -> None:
    ours, sample = cli.run("show version").splitlines(), _fixture("show_version.txt").splitlines()
    assert [ln.split(":")[0] for ln in ours] == [ln.split(":")[0] for ln in sample]
    assert ours[0] == "Arista cEOSLab" and "Software image version: 4.32.2F" in ours


def _keys(value: Any) -> Any:
    """The shape of a JSON document: keys, recursively; name-keyed maps (ports, peers) by one entry."""
    if isinstance(value, dict):
        names = all(k[0].isupper() or k[0].isdigit() for k in value) and len(value) > 0
        if names and all(isinstance(v, dict) for v in value.values()):
            return {"<name>": _keys(next(iter(value.values())))}
        return {k: _keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_keys(value[0])] if value else []
    return type(value).__name__ if value is not None else None


JSONS = [
    "show version",
    "show hostname",
    "show interfaces status",
    "show ip interface brief",
    "show lldp neighbors",
    "show ip bgp summary",
]


@pytest.mark.parametrize("command", JSONS)
def test_json_has_the_samples_shape(cli: Cli, command: str) -> None:
    ours = json.loads(cli.run(command + " | json"))
    sample = json.loads(_fixture(command.replace(" ", "_") + ".json"))
    assert _keys(ours) == _keys(sample)


def test_json_values_come_from_the_tools(cli: Cli) -> None:
    bgp = json.loads(cli.run("show ip bgp summary | json"))["vrfs"]["default"]
    assert bgp["peers"]["198.18.0.3"]["peerState"] == "Established"
    assert bgp["peers"]["198.18.0.3"]["prefixReceived"] == 3
    lldp = json.loads(cli.run("show lldp neighbors | json"))["lldpNeighbors"]
    assert [(n["port"], n["neighborDevice"], n["neighborPort"]) for n in lldp] == [
        ("Ethernet1/1", "leaf1", "Ethernet40"),
        ("Ethernet2/1", "leaf2", "Ethernet40"),
    ]
    status = json.loads(cli.run("show interfaces status | json"))["interfaceStatuses"]
    assert {n: s["linkStatus"] for n, s in status.items()} == {
        "Ethernet1/1": "connected",
        "Ethernet2/1": "connected",
        "Ethernet3/1": "disabled",
        "Ethernet4/1": "disabled",
        "Management1": "connected",
    }


def test_pfc_and_qos_maps_are_pinned(cli: Cli) -> None:
    """Layouts reconstructed, not captured (fixtures README): pinned so a parser written against them
    and the emulator cannot drift apart unnoticed."""
    _pinned(cli, "show priority-flow-control", "show_priority-flow-control.txt")
    _pinned(cli, "show priority-flow-control | json", "show_priority-flow-control.json")
    _pinned(cli, "show qos maps", "show_qos_maps.txt")
    _pinned(cli, "show qos maps | json", "show_qos_maps.json")
    maps = json.loads(cli.run("show qos maps | json"))
    assert maps["dscpToTcMap"]["26"] == 3 and maps["dscpToTcMap"]["48"] == 6 and maps["dscpToTcMap"]["24"] == 0
    pfc = json.loads(cli.run("show priority-flow-control | json"))
    assert pfc["interfaceStatuses"]["Ethernet1/1"]["priorities"] == [3]
    assert pfc["watchdog"] == {
        "timeout": 0.2,
        "recoveryTime": 0.4,
        "pollingInterval": 0.2,
        "action": "drop",
        "overrideActionDrop": False,
    }


def test_session_transcript_is_pinned(tmp_path: Path) -> None:
    """A whole CLI session, prompts and errors included (fixtures/eos-cli/transcript_session.txt)."""
    from tests.support.eos_cli_helpers import FakeClock, make_cli

    c = make_cli(tmp_path / "state", clock=FakeClock())
    for line in [
        "show running-config",
        "enable",
        "configure terminal",
        "interface Ethernet1/1",
        "description leaf1:Ethernet40",
        "mtu 9100",
        "mtu 91000",
        "tx-queue 3",
        "random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100",
        "random-detect ecn minimum-threshold 150000",
        "router bgp 65100",
        "neighbor 198.18.0.3 remote-as 65101",
        "e",
        "end",
        "configure session xoff-push",
        "interface Ethernet1/1",
        "mtu 9000",
        "show session-config diffs",
        "commit timer 00:05:00",
        "configure session xoff-push commit",
        "show configuration sessions",
        "write memory",
    ]:
        c.run(line)
    text = "".join(c.transcript) + c.prompt + "\n"
    if UPDATE:
        (FIXTURES / "transcript_session.txt").write_text(text, encoding="utf-8")
    assert text == _fixture("transcript_session.txt")


def test_apply_commands_were_recorded(cli: Cli) -> None:
    ctx = cli.emu.ctx
    assert isinstance(ctx, RecordingContext)
    typed = [line for batch in ctx.ip_batches() for line in batch]
    assert "link set dev Ethernet1_1 mtu 9100" in typed
    assert "address replace 198.18.255.2/32 dev lo" in typed
