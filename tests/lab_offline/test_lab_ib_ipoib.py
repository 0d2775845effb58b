"""The lab's IPoIB stand-ins (pure: the plan, its ``ip`` lines, and the host collector reading them).

A host's InfiniBand HCA has an IPoIB netdev (``ib0``) on a real host; the lab makes an ``ifb`` link of that
name with the intent's MTU, admin state and addresses, and the host collector reads it from ``ip -j`` like
any netdev, so drift compares it (the lab test of it is test_fault_suite_ib.py).
"""

from __future__ import annotations

import json
from ipaddress import IPv4Address, IPv4Network

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.remap import Management
from xoff.lab.topology import device_commands, plan
from xoff.platforms.linux.collect import ADDRS, LAB_ONLY_IPOIB, LINKS, Collector
from xoff.validate.drift import device_drift

MGMT = Management(IPv4Network("198.19.250.0/24"), IPv4Address("198.19.250.1"))


@pytest.fixture(scope="module")
def ring() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / "ib-ring"))


def test_every_ib_host_gets_its_hca_netdev_as_a_stand_in(ring: FabricState) -> None:
    p = plan("t", ring, MGMT)
    stand_ins = {
        n: {k: (s.ifname, s.mtu, s.addresses, s.up) for k, s in dp.ipoib.items()} for n, dp in p.devices.items()
    }
    hosts = {"gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01"}
    assert {n for n, s in stand_ins.items() if s} == hosts  # not the InfiniBand switches
    assert all(stand_ins[h] == {"ib0": ("ib0", 4092, (), True)} for h in hosts)
    assert all(not dp.ports for dp in p.devices.values())  # IB cables stay ibsim's: no veths


def test_stand_in_ip_lines_make_an_ifb_link_with_the_intent_settings(ring: FabricState) -> None:
    gpu1 = plan("t", ring, MGMT).devices["gpu1"]
    lines = device_commands(gpu1, fresh=True, mgmt=True, ports=[], ipoib=list(gpu1.ipoib.values()))
    assert lines[-2:] == ["link add ib0 type ifb", "link set ib0 mtu 4092 up"]
    # reconciling a lab whose namespace exists: only the missing stand-ins are made
    assert device_commands(gpu1, fresh=False, mgmt=False, ports=[], ipoib=[]) == []


def test_stand_in_carries_intent_addresses_and_refuses_a_name_clash(ring: FabricState) -> None:
    data = ring.model_dump()
    ib0 = data["devices"]["gpu2"]["interfaces"]["ib0"]
    ib0["addresses"], ib0["mtu"] = ["198.18.200.2/24"], 2044
    changed = FabricState.model_validate(data)
    gpu2 = plan("t", changed, MGMT).devices["gpu2"]
    lines = device_commands(gpu2, fresh=False, mgmt=False, ports=[], ipoib=list(gpu2.ipoib.values()))
    assert lines == ["link add ib0 type ifb", "link set ib0 mtu 2044 up", "addr add 198.18.200.2/24 dev ib0"]
    interfaces = data["devices"]["gpu2"]["interfaces"]
    interfaces["ib/0"], interfaces["ib:0"] = ib0 | {"name": "ib/0"}, ib0 | {"name": "ib:0"}  # both Linux ib_0
    with pytest.raises(ValueError, match="both become Linux 'ib_0'"):
        plan("t", FabricState.model_validate(data), MGMT)


# `ip -j link show` / `ip -j -4 addr show` of a lab host with its stand-in (as iproute2 6.1 prints them)
_LO = {"ifindex": 1, "ifname": "lo", "flags": ["LOOPBACK", "UP", "LOWER_UP"], "mtu": 65536, "link_type": "loopback"}
_ENO1 = {"ifindex": 2, "ifname": "eno1", "link": None, "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]}
_ENO1 |= {"mtu": 1500, "qdisc": "noqueue", "operstate": "UP", "link_type": "ether"}
_IB0 = {"ifindex": 3, "ifname": "ib0", "flags": ["BROADCAST", "NOARP", "UP", "LOWER_UP"], "mtu": 4092}
_IB0 |= {"qdisc": "pfifo_fast", "operstate": "UNKNOWN", "txqlen": 32, "link_type": "ether"}
_ADDR = [
    {"ifindex": 2, "ifname": "eno1", "addr_info": [{"family": "inet", "local": "198.19.250.101", "prefixlen": 24}]}
]


def _observe(desired: FabricState, device: str, links: list[dict[str, object]]) -> tuple[list[str], list[str]]:
    """(drift paths, lab_only notes) of ``device`` whose ``ip -j link`` shows ``links``."""
    want = desired.devices[device]
    obs = Collector().parse({LINKS.text: json.dumps(links), ADDRS.text: json.dumps(_ADDR)}, want)
    assert obs.device is not None and not obs.errors, obs.errors
    diffs = device_drift(want.model_dump(mode="json"), obs.device.model_dump(mode="json"), obs.fields)
    return sorted(d.path for d in diffs), obs.lab_only


def test_host_collector_reads_the_ipoib_netdev(ring: FabricState) -> None:
    paths, notes = _observe(ring, "gpu1", [_LO, _ENO1, _IB0])
    assert paths == [] and LAB_ONLY_IPOIB in notes
    assert _observe(ring, "gpu1", [_LO, _ENO1, _IB0 | {"mtu": 2044}])[0] == ["host.nics.ib0.mtu", "interfaces.ib0.mtu"]
    down = _IB0 | {"flags": ["BROADCAST", "NOARP"]}
    assert _observe(ring, "gpu1", [_LO, _ENO1, down])[0] == ["interfaces.ib0.admin_up"]
    assert _observe(ring, "gpu1", [_LO, _ENO1])[0] == ["interfaces.ib0"]  # no IPoIB netdev: drift names it
