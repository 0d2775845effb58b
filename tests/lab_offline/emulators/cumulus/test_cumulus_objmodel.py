"""The NVUE emulator is an independent oracle: it imports nothing of xoff's platforms, intent model, renderer
or push strategy, and ``nv set`` follows NVUE's documented object model (objmodel.py), accepting commands
xoff never writes and refusing bad paths and values."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cumulus_emu import run, session

from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "xoff" / "lab" / "emulators" / "cumulus"
FORBIDDEN = ("xoff.platforms", "xoff.desired", "xoff.render", "xoff.push")


@pytest.mark.parametrize("module", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_imports_nothing_of_what_it_judges(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert [n for n in names if n.startswith(FORBIDDEN)] == []


@pytest.mark.parametrize(
    "line",
    [
        "nv set system timezone Etc/UTC",
        "nv set service ntp mgmt server pool.example.net iburst on",
        "nv set service dns mgmt server 198.18.200.1",
        "nv set service syslog mgmt server 198.18.200.10 port 514",
        "nv set interface swp1 description uplink",
        "nv set interface swp1 link fec rs",
        "nv set interface swp1 link auto-negotiate off",
        "nv set interface bond1 bond member swp7",
        "nv set interface swp2 qos mapping profile storage",
        "nv set interface swp2 qos egress-scheduler profile default-global",
        "nv set qos roce mode lossless",
        "nv set qos congestion-control default-global traffic-class 3 red enable",
        "nv set qos traffic-pool roce-lossless switch-priority 3",
        "nv set vrf default router bgp neighbor swp51 remote-as external",
        "nv set vrf default router bgp address-family ipv4-unicast redistribute connected enable on",
    ],
)
def test_accepts_documented_commands_xoff_never_writes(tmp_path: Path, line: str) -> None:
    emu = session(tmp_path)
    reply = run(emu, line)
    assert (reply.status, reply.output) == (0, "")
    assert run(emu, "nv config diff -o commands").output.splitlines()[-1] == line


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("nv set qos roce mode fast", "Error: Invalid value fast for 'mode': expected one of lossless, lossy\n"),
        ("nv set interface swp1 link fec maybe", "Error: Invalid value maybe for 'fec'"),
        ("nv set service ntp mgmt srv x", "Error: Invalid Command: set service ntp mgmt srv\n"),
        ("nv set qos traffic-pool my-pool memory-percent 10", "Error: Invalid Command: set qos traffic-pool my-pool\n"),
    ],
)
def test_refuses_what_the_object_model_does_not_have(tmp_path: Path, line: str, message: str) -> None:
    emu = session(tmp_path)
    reply = run(emu, line)
    assert reply.status == 1 and reply.output.startswith(message), reply.output
    assert run(emu, "nv config diff").output == ""
