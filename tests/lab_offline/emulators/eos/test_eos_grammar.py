"""The EOS emulator's grammar: it takes every line xoff renders, gives a replaced configuration back
the way EOS prints it, and refuses everything else the way EOS does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import CASES, Cli, as_eos_shows, make_cli, rendered
from xoff.lab.emulators.eos.grammar import Command, ParseError, Tokens, match


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    c = make_cli(tmp_path / "state")
    c.quiet("enable")
    return c


def _statements(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("!") and ln.strip() != "end"]


@pytest.mark.parametrize(("fabric", "device"), CASES)
def test_every_rendered_line_is_accepted_as_typed(tmp_path: Path, fabric: str, device: str) -> None:
    """Typed one by one into ``configure``, indentation and all, every line of xoff's running-config
    is taken silently, and the device ends up with that configuration."""
    text = rendered(fabric, device)
    c = make_cli(tmp_path / "state", device=device)
    c.quiet("enable", "configure")
    c.quiet(*_statements(text))
    c.quiet("end")
    assert c.run("show running-config") == as_eos_shows(text, device)


@pytest.mark.parametrize(("fabric", "device"), CASES)
def test_configure_replace_gives_the_file_back(tmp_path: Path, fabric: str, device: str) -> None:
    text = rendered(fabric, device)
    c = make_cli(tmp_path / "state", device="factory-name")
    flash = tmp_path / "state" / "files" / "mnt" / "flash"
    (flash / "xoff.cfg").write_text(text, encoding="utf-8")
    c.quiet("enable", "configure replace flash:xoff.cfg")
    shown = c.run("show running-config")
    assert shown == as_eos_shows(text, device)
    assert c.prompt == f"{device}#"
    c.quiet("configure replace flash:/xoff.cfg")  # the same file again: nothing changes
    assert c.run("show running-config") == shown
    assert (tmp_path / "state" / "running-config").read_text(encoding="utf-8") == shown


def test_configure_replace_is_all_or_nothing(cli: Cli, tmp_path: Path) -> None:
    text = rendered("lab-mini", "spine2")
    before = cli.run("show running-config")
    bad = text.replace("   mtu 9100\n", "   mtu 99999\n", 1).replace("ip routing\n", "ip routingg\n")
    (tmp_path / "state" / "files" / "mnt" / "flash" / "bad.cfg").write_text(bad, encoding="utf-8")
    out = cli.run("configure replace flash:bad.cfg")
    lines = bad.splitlines()
    mtu_line = lines.index("   mtu 99999") + 1
    routing_line = lines.index("ip routingg") + 1
    assert out == (
        f">    mtu 99999% Invalid input (at token 1: '99999') at line {mtu_line}\n"
        f"> ip routingg% Invalid input (at token 1: 'routingg') at line {routing_line}\n"
    )
    assert cli.run("show running-config") == before
    assert cli.run("configure replace flash:missing.cfg") == (
        "% Error copying flash:missing.cfg to running-config (No such file or directory)\n"
    )
    assert cli.run("configure replace flash:../../../running-config").startswith("% Error copying")


REFUSED = [
    # (lines to get there, line, EOS's answer)
    ([], "foo bar", "% Invalid input"),
    ([], "interface", "% Incomplete command"),
    ([], "e", "% Ambiguous command"),
    ([], "mtu 9100", "% Invalid input"),
    ([], "hostname", "% Incomplete command"),
    ([], "ip routing now", "% Invalid input"),
    ([], "qos map dscp 64 to traffic-class 3", "% Invalid input"),
    ([], "qos map dscp 26 to traffic-class 8", "% Invalid input"),
    ([], "qos map dscp 26 to", "% Incomplete command"),
    ([], "priority-flow-control pause watchdog default timeout 0.123", "% Invalid input"),
    ([], "priority-flow-control pause watchdog action shutdown", "% Invalid input"),
    ([], "interface Ethernet0/1", "% Invalid input"),
    ([], "interface Tunnel1", "% Invalid input"),
    ([], "router ospf 1", "% Invalid input"),
    (["interface Ethernet1/1"], "mtu 70000", "% Invalid input"),
    (["interface Ethernet1/1"], "speed 400g-16", "% Invalid input"),
    (["interface Ethernet1/1"], "ip address 300.1.1.1/31", "% Invalid input"),
    (["interface Ethernet1/1"], "ip address 198.18.0.2", "% Invalid input"),
    (["interface Ethernet1/1"], "ip address 198.18.0.2/32", "% Prefix length must be less than 32"),
    (
        ["interface Ethernet1/1"],
        "ip address 198.18.0.4/31 secondary",
        "% Primary address must be configured before secondary",
    ),
    (
        ["interface Ethernet1/1"],
        "priority-flow-control priority 3 lossless",
        "% Invalid input",
    ),
    (["interface Ethernet1/1"], "priority-flow-control priority 8 no-drop", "% Invalid input"),
    (["interface Ethernet1/1"], "qos trust ip-precedence", "% Invalid input"),
    (["interface Ethernet1/1"], "tx-queue 8", "% Invalid input"),
    (["interface Ethernet1/1"], "switchport mode hybrid", "% Invalid input"),
    (["interface Ethernet1/1"], "no shutdown now", "% Invalid input"),
    (["interface Ethernet1/1", "tx-queue 3"], "bandwidth percent 101", "% Invalid input"),
    (["interface Ethernet1/1", "tx-queue 3"], "random-detect ecn minimum-threshold 1 bytes", "% Incomplete command"),
    (
        ["interface Ethernet1/1", "tx-queue 3"],
        "random-detect ecn minimum-threshold 2 mbytes maximum-threshold 1 mbytes",
        "% Minimum threshold cannot be greater than the maximum threshold",
    ),
    (
        ["interface Ethernet1/1", "tx-queue 3"],
        "random-detect ecn minimum-threshold 1 bits maximum-threshold 2 bits",
        "% Invalid input",
    ),
    (["interface Loopback0"], "mtu 9000", "% Invalid input"),
    (["interface Loopback0"], "priority-flow-control on", "% Invalid input"),
    (["interface Management1"], "tx-queue 3", "% Invalid input"),
    (["router bgp 65100"], "neighbor 198.18.0.3 remote-as", "% Incomplete command"),
    (["router bgp 65100"], "neighbor 198.18.0.3 password secret", "% Invalid input"),
    (
        ["router bgp 65100"],
        "neighbor 198.18.0.9 description x",
        "% Neighbor 198.18.0.9 does not exist; configure its remote-as first",
    ),
    (["router bgp 65100"], "maximum-paths 64 ecmp 32", "% ecmp value must be greater than or equal to maximum-paths"),
    (["router bgp 65100"], "network 198.18.255.2/32", "% Invalid input"),
    (
        ["router bgp 65100", "address-family ipv4"],
        "network 198.18.255.2",
        "% Invalid input",
    ),
    (["router bgp 65100", "exit"], "router bgp 65001", "% BGP is already running with AS number 65100"),
]


@pytest.mark.parametrize(("setup", "line", "answer"), REFUSED, ids=[r[1] for r in REFUSED])
def test_refused_the_eos_way(cli: Cli, setup: list[str], line: str, answer: str) -> None:
    cli.quiet("configure", *setup)
    prompt, before = cli.prompt, cli.run("show running-config")
    assert cli.run(line) == answer + "\n"
    assert cli.prompt == prompt, "a refused line does not change the mode"
    assert cli.run("show running-config") == before, "a refused line changes nothing"


def test_exec_levels(tmp_path: Path) -> None:
    c = make_cli(tmp_path / "state")
    assert c.prompt == "spine2>"
    assert c.run("show running-config") == "% Invalid input (privileged mode required)\n"
    assert c.run("configure terminal") == "% Invalid input (privileged mode required)\n"
    assert c.run("show foo") == "% Invalid input\n"
    assert c.run("show") == "% Incomplete command\n"
    assert c.run("terminal length 0") == "Pagination disabled.\n"
    assert c.run("terminal width 511") == "Width set to 511 columns.\n"
    c.quiet("enable")
    assert c.prompt == "spine2#"
    c.quiet("disable")
    assert c.prompt == "spine2>"
    assert c.emu.step("exit").close


def test_modes_prompts_and_abbreviations(cli: Cli) -> None:
    """EOS's prompt for each mode; a line that belongs to a parent mode moves there; keywords abbreviate."""
    steps = [
        ("conf t", "spine2(config)#"),
        ("int et1/1", "spine2(config-if-Et1/1)#"),
        ("tx-queue 3", "spine2(config-if-Et1/1-txq-3)#"),
        ("bandwidth percent 50", "spine2(config-if-Et1/1-txq-3)#"),
        ("interface Ethernet 2/1", "spine2(config-if-Et2/1)#"),
        ("desc leaf2:Ethernet40", "spine2(config-if-Et2/1)#"),
        ("int lo0", "spine2(config-if-Lo0)#"),
        ("interface management1", "spine2(config-if-Ma1)#"),
        ("router bgp 65100", "spine2(config-router-bgp)#"),
        ("address-family ipv4", "spine2(config-router-bgp-af)#"),
        ("exit", "spine2(config-router-bgp)#"),
        ("exit", "spine2(config)#"),
        ("hostname leaf9", "leaf9(config)#"),
        ("exit", "leaf9#"),
        ("configure session xoff-push-1", "leaf9(config-s-xoff-p)#"),
        ("interface Ethernet1/1", "leaf9(config-s-xoff-p-if-Et1/1)#"),
        ("end", "leaf9#"),
    ]
    for line, prompt in steps:
        cli.quiet(line)
        assert cli.prompt == prompt, line
    assert "   bandwidth percent 50" not in cli.run("show running-config | section Ethernet1/1")
    assert cli.run("sh run | i desc") == "   description leaf2:Ethernet40\n"


def test_show_running_config_filters(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "state" / "files" / "mnt" / "flash" / "x.cfg").write_text(
        rendered("lab-mini", "spine2"), encoding="utf-8"
    )
    cli.quiet("configure replace flash:x.cfg")
    bgp = cli.run("show running-config | section router bgp")
    assert bgp.splitlines()[0] == "router bgp 65100"
    assert "   neighbor 198.18.0.3 remote-as 65101" in bgp.splitlines()
    assert "interface" not in bgp
    one = cli.run("show running-config | section Loopback0")
    assert one == "interface Loopback0\n   ip address 198.18.255.2/32\n"
    nested = cli.run("show running-config | section network")
    assert nested == (  # "network-admin" is a match too, as on a real switch
        "username admin privilege 15 role network-admin nopassword\n"
        "router bgp 65100\n   address-family ipv4\n      network 198.18.255.2/32\n"
    )
    assert cli.run("show running-config | include ^hostname") == "hostname spine2\n"
    assert cli.run("show running-config | exclude .").strip() == ""
    assert cli.run("show running-config | begin ^router").splitlines()[0] == "router bgp 65100"
    assert cli.run("show running-config | include [") == "% Invalid regular expression: [\n"
    assert cli.run("show running-config | include") == "% Incomplete command\n"
    tree = json.loads(cli.run("show running-config | json"))
    assert tree["cmds"]["hostname spine2"] is None
    eth = tree["cmds"]["interface Ethernet1/1"]["cmds"]
    assert eth["mtu 9100"] is None
    assert eth["tx-queue 6"]["cmds"] == {"priority strict": None}
    assert tree["cmds"]["router bgp 65100"]["cmds"]["address-family ipv4"]["cmds"] == {"network 198.18.255.2/32": None}
    assert tree["header"][0] == "! Command: show running-config"
    assert cli.run("show startup-config") == "% Error: startup-config does not exist\n"
    assert cli.run("write memory") == "Copy completed successfully.\n"
    assert cli.run("show startup-config | json") == "% This is an unconverted command\n"


def test_defaults_are_not_shown(cli: Cli) -> None:
    """What EOS leaves out of the running-config: defaults (no shutdown, MTU 1500, drop priorities)."""
    cli.quiet(
        "configure",
        "interface Ethernet1/1",
        "no shutdown",
        "mtu 1500",
        "priority-flow-control priority 3 drop",
        "priority-flow-control on",
        "end",
    )
    assert (
        cli.run("show running-config | section Ethernet1/1") == "interface Ethernet1/1\n   priority-flow-control on\n"
    )
    cli.quiet("configure", "no interface Ethernet1/1", "end")
    assert cli.run("show running-config | section Ethernet1/1") == "interface Ethernet1/1\n", "a physical port stays"
    cli.quiet("configure", "interface Loopback1", "no interface Loopback1", "end")
    assert "Loopback1" not in cli.run("show running-config")


def test_a_tables_kept_answers_are_the_walks_own() -> None:
    """``match`` keeps each table's answer per line: asked again it gives the same command, arguments a
    handler may change without changing the next answer, and the same refusal."""
    table = [
        Command("qos map dscp <values:dscp+> to traffic-class <tc:0-7>", lambda a: a),
        Command("show version", print),
    ]
    line = Tokens.split("qos map dscp 26 46 to traffic-class 3")
    first = match(table, line)
    assert first[1] == {"values": [26, 46], "tc": 3}
    first[1]["values"].append(0)
    again = match(table, line)
    assert again[0] is first[0] and again[1] == {"values": [26, 46], "tc": 3}
    for _ in range(2):
        with pytest.raises(ParseError) as err:
            match(table, Tokens.split("qos map dscp 26 to traffic-class 9"))
        assert (err.value.kind, err.value.token, err.value.word) == ("invalid", 6, "9")
    with pytest.raises(ParseError, match="Incomplete"):
        match(table, Tokens.split("show"))
