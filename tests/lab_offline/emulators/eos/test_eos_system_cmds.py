"""Commands xoff never renders but EOS takes, typed as people type them (abbreviated, in any order of
sections), and what ``show running-config`` then prints: EOS's canonical lines in EOS's order (real
captures: tests/lab_offline/emulators/eos/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import Cli, make_cli

ACCEPTED = [
    # (lines typed in configuration mode, the section show running-config prints)
    (["ntp server vrf MGMT 198.18.0.123 iburst"], "ntp server vrf MGMT 198.18.0.123 iburst\n"),
    (["ntp serv 198.18.0.1 prefer", "ntp server 198.18.0.2"], "ntp server 198.18.0.1 prefer\nntp server 198.18.0.2\n"),
    (["logg host 198.18.0.50", "logging vrf MGMT source-interface Ma1"], "logging host 198.18.0.50\n"),
    (["spanning-tree mode none"], "spanning-tree mode none\n"),
    (["sp mode rapid-pvst", "no spanning-tree mode"], "spanning-tree mode mstp\n"),
    (["service routing protocols model ribd"], "service routing protocols model ribd\n"),
    (
        ["username ops privilege 15 role network-admin nopassword"],
        "username ops privilege 15 role network-admin nopassword\n",
    ),
    (["ip name-server vrf MGMT 198.18.0.53", "dns domain example.net"], "ip name-server vrf MGMT 198.18.0.53\n"),
    (["management api http-commands", "no shutdown"], "management api http-commands\n   no shutdown\n"),
    (["management api gnmi", "transport grpc default"], "management api gnmi\n   transport grpc default\n"),
    (["management api netconf", "transport ssh default"], "management api netconf\n   transport ssh default\n"),
    (["clock timezone UTC"], "clock timezone UTC\n"),
    (["int et1/1", "load-interval 5", "switchport mode trunk"], "   load-interval 5\n   switchport mode trunk\n"),
    (["int et1/1", "error-correction encoding reed-solomon"], "   error-correction encoding reed-solomon\n"),
    (["int et1/1", "no lldp transmit", "no lldp receive"], "   no lldp transmit\n   no lldp receive\n"),
    (
        ["int ma1", "vrf MGMT", "ip address 192.0.2.5/24"],
        "interface Management1\n   vrf MGMT\n   ip address 192.0.2.5/24\n",
    ),
]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    c = make_cli(tmp_path / "state")
    c.quiet("enable")
    return c


@pytest.mark.parametrize(("lines", "shown"), ACCEPTED, ids=[a[0][-1] for a in ACCEPTED])
def test_accepted_and_shown_the_eos_way(cli: Cli, lines: list[str], shown: str) -> None:
    cli.quiet("configure", *lines, "end")
    assert shown in cli.run("show running-config")


def test_a_secret_is_kept_hashed_never_in_clear(cli: Cli) -> None:
    cli.quiet("configure", "username ops secret Sup3rS3cret", "aaa root secret An0therOne", "end")
    shown = cli.run("show running-config")
    assert "Sup3rS3cret" not in shown and "An0therOne" not in shown
    assert "username ops secret sha512 $6$" in shown and "aaa root secret sha512 $6$" in shown
    assert "no aaa root" not in shown


def test_eos_order_of_sections(cli: Cli) -> None:
    """The order of a real running-config, whatever the order they were typed in."""
    cli.quiet(
        "configure",
        "management api http-commands",
        "no shutdown",
        "exit",
        "ntp server 198.18.0.1",
        "logging host 198.18.0.50",
        "ip routing",
        "username ops nopassword",
        "end",
    )
    heads = [ln for ln in cli.run("show running-config").splitlines() if ln and not ln.startswith((" ", "!"))]
    expected = [
        "no aaa root",
        "username admin privilege 15 role network-admin nopassword",
        "username ops nopassword",
        "transceiver qsfp default-mode 4x10G",
        "service routing protocols model multi-agent",
        "hostname spine2",
        "ntp server 198.18.0.1",
        "logging host 198.18.0.50",
        "spanning-tree mode mstp",
        "system l1",
        "management api http-commands",
        "interface Management1",
        "ip routing",
        "end",
    ]
    assert heads == expected


PROMPTS = [
    (["management api http-commands"], "spine2(config-mgmt-api-http-cmds)#"),
    (["management api gnmi"], "spine2(config-mgmt-api-gnmi)#"),
    (["system l1"], "spine2(config-system-l1)#"),
    (["vrf instance MGMT"], "spine2(config-vrf-MGMT)#"),
    (["management api http-commands", "vrf MGMT"], "spine2(config-mgmt-api-http-cmds-vrf-MGMT)#"),
]


@pytest.mark.parametrize(("lines", "prompt"), PROMPTS, ids=[p[1] for p in PROMPTS])
def test_block_prompts(cli: Cli, lines: list[str], prompt: str) -> None:
    cli.quiet("configure", *lines)
    assert cli.prompt == prompt
    cli.quiet("hostname spine2")  # a global line from inside a block goes to the global mode, as in EOS
    assert cli.prompt == "spine2(config)#"


REFUSED = [
    ("s mode none", "% Ambiguous command"),  # service, spanning-tree
    ("spanning-tree mode pvst", "% Invalid input"),
    ("ntp server", "% Incomplete command"),
    ("username ops privilege 16 nopassword", "% Invalid input"),
    ("transceiver qsfp default-mode 2x50G", "% Invalid input"),
    ("management api", "% Incomplete command"),
    ("management api http-commands extra", "% Invalid input"),
    ("ip route vrf MGMT 0.0.0.0/0", "% Incomplete command"),
    ("interface Ethernet1/1 speed forced 100g", "% Invalid input"),
]


@pytest.mark.parametrize(("line", "answer"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_the_eos_way(cli: Cli, line: str, answer: str) -> None:
    cli.quiet("configure")
    before = cli.run("show running-config")
    assert cli.run(line) == answer + "\n"
    assert cli.run("show running-config") == before
