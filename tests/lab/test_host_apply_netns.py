"""xoff-host-apply.sh against the REAL iproute2 and kernel, in a network namespace with veth rails named
as lab-mini gpu1's NICs: MTU, admin state, addresses, per-rail tables and rules are read and changed by
the real ``ip`` (the NIC tools stay fakes, sysfs stays under XOFF_HOST_ROOT). This proves the script's
parsing of ip's output against the tool itself, not against a fake's idea of it.

Addresses live only inside the namespace this test creates (198.18.0.0/15).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.host_sandbox import Sandbox
from tests.support.paths import ROOT
from tests.support.rail_netns import GPU1_IP_STEPS, ip, rail_namespace
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.linux.render import APPLY_SCRIPT, render

pytestmark = pytest.mark.lab

NIC_TOOLS = ("mlnx_qos", "cma_roce_mode", "cma_roce_tos", "lspci", "modprobe")  # no fake ip
IP_STEPS = GPU1_IP_STEPS


@pytest.fixture
def netns() -> Iterator[str]:
    with rail_namespace(f"xofftest-host-{os.getpid()}", ("eth0", "eth1", "eth2")) as name:
        yield name


def test_real_iproute2_converges_and_detects_drift(tmp_path: Path, netns: str) -> None:
    state = build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))
    device = state.devices["gpu1"]
    assert device.host is not None
    box = Sandbox(tmp_path / "box", device, render(device, state)[APPLY_SCRIPT], NIC_TOOLS)
    inside = ["ip", "netns", "exec", netns]

    first = box.run(prefix=inside)
    assert first.rc == 0, first
    assert first.changed[: len(IP_STEPS)] == IP_STEPS, first
    for name, nic in device.host.nics.items():
        line = ip("-n", netns, "-o", "link", "show", "dev", name)
        assert f" mtu {nic.mtu} " in line and ",UP," in line, line
        assert f"inet {nic.address} " in ip("-n", netns, "-o", "-4", "addr", "show", "dev", name)
    assert ip("-n", netns, "-4", "route", "show", "table", "100").splitlines() == [
        "198.18.0.0/24 via 198.18.0.8 dev eth0 ",
        "198.18.255.0/24 via 198.18.0.8 dev eth0 ",
    ]
    rules = ip("-n", netns, "-4", "rule", "show")
    for rule in device.host.rules:
        assert f"{rule.priority}:\tfrom {rule.source.removesuffix('/32')} lookup {rule.table}" in rules

    second = box.run(prefix=inside)
    assert (second.rc, second.stdout) == (0, "xoff-host-apply: 0 changes\n"), second

    # drift made with the real tool
    ip("-n", netns, "link", "set", "dev", "eth0", "mtu", "1500")
    ip("-n", netns, "addr", "add", "198.19.200.77/28", "dev", "eth1")
    ip("-n", netns, "route", "add", "198.19.201.0/24", "via", "198.18.0.10", "dev", "eth1", "table", "101")
    ip("-n", netns, "route", "del", "198.18.255.0/24", "table", "100")
    ip("-n", netns, "rule", "add", "from", "198.18.0.9", "table", "101", "priority", "999")
    drift = [
        "eth0 mtu 1500 -> 9000",
        "eth1 address - 198.19.200.77/28",
        "table 100 route 198.18.255.0/24 via 198.18.0.8 dev eth0",
        "table 101 route - 198.19.201.0/24",
        "rule - 999 from 198.18.0.9 lookup 101",
    ]
    check = box.run("--check", prefix=inside)
    assert (check.rc, check.would) == (1, drift), check
    fix = box.run(prefix=inside)
    assert (fix.rc, fix.changed) == (0, drift), fix
    assert box.run("--check", prefix=inside).rc == 0
    assert "198.19.200.77" not in ip("-n", netns, "-o", "-4", "addr", "show", "dev", "eth1")
