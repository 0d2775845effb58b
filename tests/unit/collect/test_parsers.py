"""Collector parsers on real-format fixtures (tests/fixtures/parse/<platform>/<command>/), their
strictness (bad output is a parse error naming the command), and the offline round trips:
parse(emulator output after loading the rendered config) == desired on the fields each platform reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from collect_drift import differing_fields

from xoff.collect.protocol import Command, collector_for, read
from xoff.collect.snapshot import CollectError
from xoff.collect.textfsm import TextParseError, parse_text
from xoff.desired.models import FabricState
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.sonic import Emulator as SonicEmulator
from xoff.platforms.eos.collect import parse_bgp, parse_lldp
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary, parse_router_bgp
from xoff.platforms.host import collect as host
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors
from xoff.platforms.sonic import collect as sonic
from xoff.platforms.sonic.config_db import build_config_db
from xoff.render import render_fabric

ROOT = Path(__file__).resolve().parents[3]
FIX = ROOT / "tests" / "fixtures" / "parse"
sys.path.insert(0, str(ROOT / "tests" / "unit" / "lab" / "eos"))


def raw(platform: str, command: str, case: str) -> str:
    return (FIX / platform / command / f"{case}.raw").read_text(encoding="utf-8")


# --- SONiC counters (TextFSM) ----------------------------------------------------------------------


def test_sonic_counters() -> None:
    outputs = {
        sonic.PFC_COUNTERS.text: raw("sonic", "show_pfc_counters", "lab-mini-leaf1"),
        sonic.QUEUE_COUNTERS.text: raw("sonic", "show_queue_counters", "lab-mini-leaf1"),
    }
    counters = sonic.Collector._counters(outputs)
    assert counters["Ethernet0"].pfc.rx_pause[3] == 1234  # "1,234" in pfcstat's comma format
    assert set(counters["Ethernet0"].queues) == set(range(8))  # unicast queues only
    assert counters["Ethernet8"].pfc.tx_pause == dict.fromkeys(range(8), 0)


def test_textfsm_rejects_an_unknown_line() -> None:
    text = raw("sonic", "show_pfc_counters", "lab-mini-leaf1") + "Ethernet0 surprise\n"
    with pytest.raises(TextParseError, match="unexpected line"):
        parse_text(sonic.TEXTFSM, "sonic", "show pfc counters", text)


# --- hosts ------------------------------------------------------------------------------------------


def test_mlnx_qos() -> None:
    got = host._mlnx_qos(raw("linux", "mlnx_qos", "pfc-priority-3"))
    assert got["trust"] == "dscp" and got["pfc"] == [0, 0, 0, 1, 0, 0, 0, 0]
    assert len(got["dscp_to_priority"]) == 64 and got["dscp_to_priority"][26] == 3 and got["dscp_to_priority"][40] == 5
    factory = host._mlnx_qos(raw("linux", "mlnx_qos", "factory"))
    assert factory["trust"] == "pcp" and factory["dscp_to_priority"] == {}


def test_nvidia_smi_topo() -> None:
    paths = host._gpu_nic_paths(raw("linux", "nvidia-smi_topo_-m", "lab-mini-gpu1"))
    assert {(p.gpu, p.nic): p.relation for p in paths} == {
        (0, "mlx5_0"): "PIX",
        (0, "mlx5_1"): "SYS",
        (0, "mlx5_2"): "NODE",
        (1, "mlx5_0"): "SYS",
        (1, "mlx5_1"): "PIX",
        (1, "mlx5_2"): "SYS",
    }
    big = host._gpu_nic_paths(raw("linux", "nvidia-smi_topo_-m", "roce-pod-gpu01"))
    assert len({p.gpu for p in big}) == 8 and len({p.nic for p in big}) == 10


def test_lspci_acs_and_lsmod() -> None:
    text = raw("linux", "lspci_-vvv", "lab-mini-gpu1")
    assert host._acs_enabled(text) == []
    switched_on = text.replace("ACSCtl:\tSrcValid- ", "ACSCtl:\tSrcValid+ ", 1)
    assert host._acs_enabled(switched_on) == ["10:01.0"]
    with pytest.raises(TextParseError, match="ACSCtl"):
        host._acs_enabled(text.replace("ACSCtl:\tSrcValid- TransBlk-", "ACSCtl:\tSrcValid? TransBlk-", 1))
    assert "nvidia_peermem" in host._modules(raw("linux", "lsmod", "lab-mini-gpu1"))
    with pytest.raises(ValueError, match="header"):
        host._modules("nvidia_peermem 16384 0\n")


# --- lldpd, FRR, EOS JSON ---------------------------------------------------------------------------


def test_lldpd_json() -> None:
    (one,) = parse_neighbors(raw("lldpd", "lldpcli_-f_json_show_neighbors", "one-neighbour"))
    assert (one.port, one.neighbor, one.neighbor_port) == ("Ethernet1_1", "leaf1", "Ethernet40")
    assert parse_neighbors('{"lldp": {}}') == []
    with pytest.raises(LldpParseError):
        parse_neighbors("lldpcli: unable to connect")


def test_frr_json_and_running_config(lab_mini_state: Any) -> None:
    (session,) = parse_bgp_summary(raw("frr", "show_bgp_summary_json", "frr-8.4-one-peer"))
    assert (session.address, session.remote_asn, session.state, session.prefixes_received) == (
        "198.18.0.3",
        65101,
        "Established",
        1,
    )
    assert parse_bgp_summary("{}") == []
    with pytest.raises(FrrParseError):
        parse_bgp_summary('{"ipv4Unicast": {"peers": {"1.2.3.4": {"state": "Idle"}}}}')
    state: FabricState = lab_mini_state[1]
    frr = {f.device: f.content for f in render_fabric(state, devices=["leaf1"]) if f.name == "frr.conf"}["leaf1"]
    bgp = parse_router_bgp(frr)
    leaf1 = state.devices["leaf1"].bgp
    assert bgp is not None and leaf1 is not None
    assert (bgp["asn"], bgp["router_id"], bgp["max_paths"], bgp["networks"]) == (
        leaf1.asn,
        leaf1.router_id,
        leaf1.max_paths,
        leaf1.networks,
    )


def test_eos_json() -> None:
    assert [
        (n.port, n.neighbor, n.neighbor_port) for n in parse_lldp(raw("eos", "show_lldp_neighbors_json", "spine2"))
    ] == [
        ("Ethernet1/1", "leaf1", "Ethernet40"),
        ("Ethernet2/1", "leaf2", "Ethernet40"),
    ]
    (peer,) = parse_bgp(raw("eos", "show_ip_bgp_summary_json", "spine2"))
    assert (peer.address, peer.remote_asn, peer.state) == ("198.18.0.3", 65101, "Established")


# --- strictness through the collector: a parse error names the command -------------------------------


@pytest.mark.parametrize(
    ("platform", "device", "command"),
    [
        ("sonic", "leaf1", sonic.RUNNING.text),
        ("sonic", "leaf1", sonic.LLDP.text),
        ("eos", "spine2", "show ip bgp summary | json"),
        ("linux", "gpu1", "mlnx_qos -i eth0"),
    ],
)
def test_garbage_is_a_parse_error(platform: str, device: str, command: str, lab_mini_state: Any) -> None:
    desired = lab_mini_state[1].devices[device]
    obs = collector_for(platform).parse({command: "% something else entirely\n"}, desired)
    assert [(e.kind, e.command) for e in obs.errors] == [("parse", command)]


def test_read_parses_or_records_a_parse_error_naming_the_command() -> None:
    errors: list[CollectError] = []
    lsmod = Command("lsmod")
    assert read({"lsmod": "42"}, lsmod, int, "h1", errors) == 42
    assert read({}, lsmod, int, "h1", errors) is None  # did not run: the engine recorded why
    assert errors == []
    assert read({"lsmod": "x"}, lsmod, int, "h1", errors) is None
    assert errors == [
        CollectError(device="h1", command="lsmod", kind="parse", message="invalid literal for int() with base 10: 'x'")
    ]
    key_error = read(
        {"lsmod": "{}"}, lsmod, lambda t: json.loads(t)["k"], "h1", errors, catch=(KeyError,), describe=repr
    )
    assert key_error is None
    assert errors[-1].message == "KeyError('k')"
    with pytest.raises(KeyError):  # only what ``catch`` names is a parse error
        read({"lsmod": "{}"}, lsmod, lambda t: json.loads(t)["k"], "h1", errors)


def test_command_slug() -> None:
    assert Command("vtysh -c 'show bgp summary json'").slug == "vtysh_-c_show_bgp_summary_json"


# --- offline round trips through the emulators --------------------------------------------------------


def test_sonic_round_trip(tmp_path: Path, lab_mini_state: Any) -> None:
    state: FabricState = lab_mini_state[1]
    fabric_file = tmp_path / "fabric.json"
    fabric_file.write_text(state.model_dump_json(), encoding="utf-8")
    ctx = EmulatorContext(device="leaf1", state_dir=tmp_path / "leaf1" / "state", netns=None, fabric_state=fabric_file)

    def run(line: str) -> str:
        emulator = SonicEmulator(ctx)
        emulator.exec_mode = True
        return emulator.execute(line).output

    patch = SonicEmulator(ctx).store.host_path("/home/admin/c.json")
    patch.parent.mkdir(parents=True, exist_ok=True)
    patch.write_text(json.dumps(build_config_db(state.devices["leaf1"], state)), encoding="utf-8")
    assert "Config replaced successfully." in run("sudo config replace /home/admin/c.json")
    dump = json.loads(run(sonic.RUNNING.text))
    assert dump["bgpraw"] == ""  # no FRR without a namespace: put the rendered frr.conf where FRR's would be
    files = {f.name: f.content for f in render_fabric(state, devices=["leaf1"])}
    dump["bgpraw"] = files["frr.conf"]
    outputs = {sonic.RUNNING.text: json.dumps(dump), sonic.PFC_COUNTERS.text: run(sonic.PFC_COUNTERS.text)}
    obs = sonic.Collector().parse(outputs, state.devices["leaf1"])
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(state.devices["leaf1"], obs.device, obs.fields) == []
    assert {"qos.dscp_to_tc", "buffers.pools", "bgp.networks", "interfaces.*.pfc_priorities"} <= set(obs.fields)
    # a changed value is seen, by path
    dump["PORT"]["Ethernet8"]["mtu"] = "1500"
    drifted = sonic.Collector().parse({sonic.RUNNING.text: json.dumps(dump)}, state.devices["leaf1"])
    assert drifted.device is not None
    assert differing_fields(state.devices["leaf1"], drifted.device, drifted.fields) == [
        "interfaces.Ethernet8.mtu: desired 9100 observed 1500"
    ]


def test_eos_round_trip(tmp_path: Path, lab_mini_state: Any) -> None:
    from eos_cli_helpers import make_cli, rendered

    from xoff.platforms.eos.collect import RUNNING, Collector

    state: FabricState = lab_mini_state[1]
    cli = make_cli(tmp_path / "state")
    flash = tmp_path / "state" / "files" / "mnt" / "flash"
    flash.mkdir(parents=True, exist_ok=True)
    (flash / "x.cfg").write_text(rendered("lab-mini", "spine2"), encoding="utf-8")
    cli.quiet("enable", "configure replace flash:x.cfg")
    obs = Collector().parse({RUNNING.text: cli.run("show running-config")}, state.devices["spine2"])
    assert obs.errors == [] and obs.device is not None
    assert differing_fields(state.devices["spine2"], obs.device, obs.fields) == []
    assert {"qos.dscp_to_tc", "qos.ecn", "pfc_watchdog", "bgp.neighbors"} <= set(obs.fields)
    cli.quiet("configure", "interface Ethernet1/1", "mtu 1500", "end")
    drifted = Collector().parse({RUNNING.text: cli.run("show running-config")}, state.devices["spine2"])
    assert drifted.device is not None
    assert "interfaces.Ethernet1/1.mtu: desired 9100 observed 1500" in differing_fields(
        state.devices["spine2"], drifted.device, drifted.fields
    )
