"""Shared by the host-script tests that run against real iproute2: a namespace with veth rails named
like a host's NICs, and the ``ip`` steps lab-mini gpu1's rendered script takes on a factory host.

Addresses live only inside the namespace the caller creates; ``rail_namespace`` deletes it by name.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import pytest

# What gpu1 of lab-mini changes in iproute2 on first apply, in the script's order.
GPU1_IP_STEPS = [
    "eth0 mtu 1500 -> 9000",
    "eth0 admin down -> up",
    "eth0 address + 198.18.0.9/31",
    "eth1 mtu 1500 -> 9000",
    "eth1 admin down -> up",
    "eth1 address + 198.18.0.11/31",
    "eth2 mtu 1500 -> 9000",
    "eth2 admin down -> up",
    "eth2 address + 198.19.0.1/31",
    "table 100 route 198.18.0.0/24 via 198.18.0.8 dev eth0",
    "table 100 route 198.18.255.0/24 via 198.18.0.8 dev eth0",
    "table 101 route 198.18.0.0/24 via 198.18.0.10 dev eth1",
    "table 101 route 198.18.255.0/24 via 198.18.0.10 dev eth1",
    "table 102 route 198.19.0.0/24 via 198.19.0.0 dev eth2",
    "table 102 route 198.19.255.0/24 via 198.19.0.0 dev eth2",
    "rule 1000 from 198.18.0.9/32 lookup 100",
    "rule 1001 from 198.18.0.11/32 lookup 101",
    "rule 1002 from 198.19.0.1/32 lookup 102",
]


def ip(*args: str) -> str:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True, timeout=30).stdout


@contextmanager
def rail_namespace(name: str, netdevs: Iterable[str]) -> Iterator[str]:
    """A namespace with one veth per rail (the peer up, so the rail has carrier); deleted afterwards."""
    if os.geteuid() != 0:
        pytest.fail("this lab test needs root to create a network namespace (ip netns add)")
    try:
        ip("netns", "add", name)
    except subprocess.CalledProcessError as e:
        pytest.fail(f"cannot create network namespace {name}: {e.stderr}")
    try:
        for i, dev in enumerate(netdevs):
            ip("-n", name, "link", "add", dev, "type", "veth", "peer", "name", f"peer{i}")
            ip("-n", name, "link", "set", f"peer{i}", "mtu", "9216", "up")
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False, timeout=30)
