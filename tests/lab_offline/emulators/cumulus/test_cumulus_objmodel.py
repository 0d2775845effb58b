"""The NVUE emulator is an independent oracle: it imports nothing of xoff's platforms, intent model, renderer
or push strategy, and ``nv set`` follows NVUE's documented object model (objmodel.py), accepting commands
xoff never writes and refusing bad paths and values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cumulus_emu import run, session

from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "xoff" / "lab" / "emulators" / "cumulus"
FORBIDDEN = ("xoff.platforms", "xoff.desired", "xoff.render", "xoff.push")
IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))", re.MULTILINE)


@pytest.mark.parametrize("module", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_imports_nothing_of_what_it_judges(module: Path) -> None:
    # every import statement, at any indentation (a regex: ast.parse is not thread-safe on CPython 3.11 while
    # other tests' SSH servers run threads)
    found = IMPORT.findall(module.read_text(encoding="utf-8"))
    names = [name for pair in found for name in pair if name]
    assert names and [n for n in names if n.startswith(FORBIDDEN)] == []


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


@pytest.mark.parametrize(
    ("lines", "refusal"),
    [
        (["nv set interface swp2 qos mapping profile default-global"], None),
        (["nv set qos mapping storage trust l2", "nv set interface swp2 qos mapping profile storage"], None),
        (
            ["nv set interface swp2 qos egress-scheduler profile missing"],
            "  interface swp2 qos egress-scheduler profile: profile 'missing' does not exist",
        ),
    ],
)
def test_apply_checks_the_profiles_a_port_applies(tmp_path: Path, lines: list[str], refusal: str | None) -> None:
    emu = session(tmp_path)
    for line in lines:
        assert run(emu, line).status == 0
    reply = run(emu, "nv config apply -y")
    if refusal is None:
        assert reply.status == 0 and "applied [rev_id:" in reply.output
    else:
        assert reply.status == 1 and refusal in reply.output.splitlines()
