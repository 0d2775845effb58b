"""Accepted interface changes reach a real veth in a network namespace the test creates.

Lab-safe addresses only (198.18.0.0/15); the namespace (and with it the veth pair) is deleted
in the fixture's teardown.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.sonic_emu import put, run
from tests.support.waiting import SETTLE_S
from xoff.lab.emulators.sonic import Emulator

pytestmark = pytest.mark.lab

Session = Callable[..., Emulator]


def ip(*args: str) -> str:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True, timeout=30).stdout


@pytest.fixture
def netns() -> Iterator[str]:
    if os.geteuid() != 0:
        pytest.fail("this lab test needs root to create a network namespace (ip netns add)")
    name = f"xl-test{uuid.uuid4().hex[:6]}-leaf1"
    try:
        ip("netns", "add", name)
        ip("-n", name, "link", "add", "Ethernet48", "type", "veth", "peer", "name", "peer0")
        ip("-n", name, "link", "set", "dev", "peer0", "up")
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False, timeout=30)


def link(netns: str, name: str) -> dict[str, Any]:
    data: list[dict[str, Any]] = json.loads(ip("-n", netns, "-j", "addr", "show", "dev", name))
    return data[0]


def test_interface_changes_apply_to_the_real_veth(session: Session, netns: str) -> None:
    emulator = session(netns=netns)
    assert "UP" not in link(netns, "Ethernet48")["flags"]
    assert run(emulator, "sudo config interface startup Ethernet48").status == 0
    assert "UP" in link(netns, "Ethernet48")["flags"]
    assert run(emulator, "sudo config interface mtu Ethernet48 4200").status == 0
    assert link(netns, "Ethernet48")["mtu"] == 4200
    assert run(emulator, "sudo config interface ip add Ethernet48 198.18.200.0/31").status == 0
    addresses = [(a["local"], a["prefixlen"]) for a in link(netns, "Ethernet48")["addr_info"] if a["family"] == "inet"]
    assert addresses == [("198.18.200.0", 31)]
    status = run(emulator, "show interfaces status Ethernet48").output.splitlines()[2].split()
    assert (status[0], status[7], status[8]) == ("Ethernet48", "up", "up")  # oper read from the namespace

    put(emulator, "mtu.json", [{"op": "replace", "path": "/PORT/Ethernet48/mtu", "value": "9000"}])
    assert run(emulator, "sudo config apply-patch mtu.json").status == 0
    assert link(netns, "Ethernet48")["mtu"] == 9000
    put(emulator, "bad.json", [{"op": "replace", "path": "/PORT/Ethernet48/mtu", "value": "99999"}])
    assert run(emulator, "sudo config apply-patch bad.json").status == 2
    assert link(netns, "Ethernet48")["mtu"] == 9000  # refused: the namespace is untouched

    assert run(emulator, "sudo config interface ip remove Ethernet48 198.18.200.0/31").status == 0
    assert not [a for a in link(netns, "Ethernet48")["addr_info"] if a["family"] == "inet"]
    assert run(emulator, "sudo config interface shutdown Ethernet48").status == 0
    assert "UP" not in link(netns, "Ethernet48")["flags"]
    status = run(emulator, "show interfaces status Ethernet48").output.splitlines()[2].split()
    assert (status[7], status[8]) == ("down", "down")


def test_rollback_restores_the_namespace_too(session: Session, netns: str) -> None:
    emulator = session(netns=netns)
    assert run(emulator, "sudo config checkpoint factory").status == 0
    put(
        emulator,
        "up.json",
        [
            {"op": "replace", "path": "/PORT/Ethernet48/admin_status", "value": "up"},
            {"op": "add", "path": "/INTERFACE", "value": {"Ethernet48": {}, "Ethernet48|198.18.200.2/31": {}}},
        ],
    )
    assert run(emulator, "sudo config apply-patch up.json").status == 0
    assert "UP" in link(netns, "Ethernet48")["flags"]
    assert run(emulator, "sudo config rollback factory").status == 0
    assert "UP" not in link(netns, "Ethernet48")["flags"]
    assert not [a for a in link(netns, "Ethernet48")["addr_info"] if a["family"] == "inet"]


@pytest.fixture
def frr(netns: str) -> Iterator[Path]:
    """Real zebra + bgpd in the test namespace, with their own sockets; ended by PID. The
    directory is outside pytest's tmp_path, which user frr (the daemons drop to it) cannot enter."""
    vty = Path(tempfile.mkdtemp(prefix="xl-test-frr-"))
    vty.chmod(0o755)
    (vty / "frr.conf").write_text("frr defaults datacenter\nrouter bgp 65101\n bgp router-id 198.18.255.3\n")
    shutil.chown(vty, "frr", "frr")
    common = ["-d", "-f", str(vty / "frr.conf"), "-z", str(vty / "zserv.api"), "--vty_socket", str(vty)]
    try:
        for daemon in ("zebra", "bgpd"):
            subprocess.run(
                ["ip", "netns", "exec", netns, f"/usr/lib/frr/{daemon}", *common, "-i", str(vty / f"{daemon}.pid")],
                check=True,
                capture_output=True,
                timeout=30,
            )
        deadline = time.monotonic() + SETTLE_S
        while not (vty / "bgpd.vty").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        yield vty
    finally:
        for daemon in ("bgpd", "zebra"):
            pid_file = vty / f"{daemon}.pid"
            if pid_file.exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
        shutil.rmtree(vty, ignore_errors=True)


def test_bgp_neighbor_changes_reach_frr(session: Session, netns: str, frr: Path) -> None:
    emulator = session(netns=netns, frr_vty_dir=frr)
    empty = run(emulator, "show ip bgp summary")
    assert empty.status == 0 and "local AS number 65101" in empty.output
    assert empty.output.endswith("Total number of neighbors 0\n")
    put(
        emulator,
        "nbr.json",
        [
            {"op": "add", "path": "/DEVICE_METADATA/localhost/bgp_asn", "value": "65101"},
            {"op": "add", "path": "/BGP_NEIGHBOR", "value": {"198.18.0.1": {"asn": "65001", "name": "spine1"}}},
        ],
    )
    assert run(emulator, "sudo config apply-patch nbr.json").status == 0
    summary = run(emulator, "show ip bgp summary").output
    row = next(line for line in summary.splitlines() if line.startswith("198.18.0.1"))
    assert row.split()[2] == "65001" and row.split()[-1] == "spine1"
    assert (
        "neighbor 198.18.0.1 remote-as 65001"
        in json.loads(run(emulator, "show runningconfiguration all").output)["bgpraw"]
    )
    put(emulator, "del.json", [{"op": "remove", "path": "/BGP_NEIGHBOR"}])
    assert run(emulator, "sudo config apply-patch del.json").status == 0
    assert run(emulator, "show ip bgp summary").output.endswith("Total number of neighbors 0\n")
