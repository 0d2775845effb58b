"""The lab's wiring plan (pure) and the ip commands it becomes: names, MTUs, addresses, factory state."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState, Interface
from xoff.intent import load_intent
from xoff.lab import names
from xoff.lab.remap import Management
from xoff.lab.state import LabState, LinkRecord, load, save, write_atomic
from xoff.lab.topology import controller_address, device_commands, plan, root_commands

INVENTORY = ROOT / "inventory"
MGMT = Management(IPv4Network("198.19.252.0/24"), IPv4Address("198.19.252.1"))


@pytest.fixture(scope="module")
def mini() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "lab-mini"))


@pytest.fixture(scope="module")
def ib_pod() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "ib-pod"))


def test_every_device_gets_a_namespace_and_a_management_port(mini: FabricState) -> None:
    p = plan("t", mini, MGMT)
    assert set(p.devices) == set(mini.devices)
    assert p.controller_address == "198.19.252.1/24"
    assert p.devices["spine2"].mgmt_port == "Management1" and p.devices["gpu1"].mgmt_port == "eno1"
    assert p.devices["leaf1"].netns == "xl-t-leaf1" and p.devices["leaf1"].mgmt_address == "198.19.252.21/24"
    assert len({d.root_veth for d in p.devices.values()}) == len(p.devices)


def test_one_veth_per_cable_with_intent_names(mini: FabricState) -> None:
    p = plan("t", mini, MGMT)
    assert len(p.links) == len(mini.links) == 16
    ends = {(e.device, e.port, e.ifname) for lk in p.links for e in (lk.a, lk.b)}
    assert ("spine2", "Ethernet1/1", "Ethernet1_1") in ends
    assert ("gpu1", "eth2", "eth2") in ends and ("sleaf1", "swp1", "swp1") in ends


def test_switches_are_provisioned_and_hosts_are_factory_fresh(mini: FabricState) -> None:
    p = plan("t", mini, MGMT)
    leaf1 = p.devices["leaf1"]
    assert leaf1.forwarding and leaf1.loopbacks == ("198.18.255.3/32",)
    e32 = leaf1.ports["Ethernet32"]
    assert (e32.mtu, e32.addresses, e32.up) == (9100, ("198.18.0.1/31",), True)
    assert "Ethernet48" not in leaf1.ports  # not cabled: no netdev
    gpu1 = p.devices["gpu1"]
    assert not gpu1.forwarding and gpu1.loopbacks == ()
    assert all(port.mtu is None and port.addresses == () and port.up for port in gpu1.ports.values())
    lines = device_commands(gpu1, fresh=True, mgmt=True, ports=list(gpu1.ports.values()))
    assert "addr add 198.19.252.101/24 dev eno1" in lines
    assert not [line for line in lines if "dev eth" in line and "addr" in line]


def test_ip_commands(mini: FabricState) -> None:
    p = plan("t", mini, MGMT)
    root = root_commands(p, ["leaf1"], False, ["leaf1"], p.links[:1])
    assert root[0] == "netns add xl-t-leaf1"
    assert f"link add {p.bridge} type bridge" in root and f"addr add 198.19.252.1/24 dev {p.bridge}" in root
    assert f"link add {p.devices['leaf1'].root_veth} type veth peer name eth0 netns xl-t-leaf1" in root
    first = p.links[0]
    assert root[-1] == (
        f"link add {first.a.ifname} netns xl-t-{first.a.device} type veth peer name {first.b.ifname} netns xl-t-{first.b.device}"
    )
    spine2 = p.devices["spine2"]
    lines = device_commands(spine2, fresh=True, mgmt=False, ports=[spine2.ports["Ethernet1/1"]])
    assert lines == [
        "link set lo up",
        "addr add 198.18.255.2/32 dev lo",
        "link set Ethernet1_1 mtu 9100 up",
        "addr add 198.18.0.2/31 dev Ethernet1_1",
    ]


def test_infiniband_cables_are_not_veths(ib_pod: FabricState) -> None:
    p = plan("t", ib_pod, Management(IPv4Network("198.19.254.0/24"), IPv4Address("198.19.254.1")))
    assert all(lk.network == "storage" for lk in p.links)
    assert len(p.links) == sum(lk.network == "storage" for lk in ib_pod.links)
    assert p.devices["ibleaf1"].ports == {} and p.devices["ibleaf1"].kind == "ib_switch"
    assert set(p.devices["gpu01"].ports) == {"stor0", "stor1"}


def test_controller_address_without_gateway() -> None:
    taken = {IPv4Address("198.19.252.254")}
    assert str(controller_address(Management(IPv4Network("198.19.252.0/24")), taken)) == "198.19.252.253/24"
    with pytest.raises(ValueError, match="also a device's address"):
        controller_address(MGMT, {IPv4Address("198.19.252.1")})


def test_management_address_outside_the_prefix_is_refused(mini: FabricState) -> None:
    with pytest.raises(ValueError, match=r"outside 198\.18\.9\.0/24"):
        plan("t", mini, Management(IPv4Network("198.18.9.0/24")))


def test_linux_name_clash_is_refused(mini: FabricState) -> None:
    spine2 = mini.devices["spine2"]
    clash = Interface(name="Ethernet1_1", kind="ethernet", mtu=9100)
    devices = dict(mini.devices)
    devices["spine2"] = spine2.model_copy(update={"interfaces": {**spine2.interfaces, "Ethernet1_1": clash}})
    link = mini.links[0]
    extra = link.model_copy(update={"a": link.a.model_copy(update={"device": "spine2", "port": "Ethernet1_1"})})
    extra = extra.model_copy(update={"b": extra.b.model_copy(update={"device": "gpu1", "port": "eth0"})})
    fabric = mini.model_copy(update={"devices": devices, "links": [*mini.links, extra]})
    with pytest.raises(ValueError, match="both become Linux 'Ethernet1_1'"):
        plan("t", fabric, MGMT)


def test_state_round_trip_and_atomic_write(tmp_path: Path) -> None:
    state = LabState(
        name="t",
        fabric="f",
        intent="/i",
        intent_digest="d",
        lab_dir=str(tmp_path),
        bridge=names.bridge("t"),
        controller_address="198.19.252.1/24",
        mgmt_prefix="198.19.252.0/24",
        links=[
            LinkRecord(
                a_device="a", a_port="E1/1", a_ifname="E1_1", b_device="b", b_port="e0", b_ifname="e0", network="n"
            )
        ],
    )
    save(state)
    assert load(tmp_path) == state
    assert state.ifname_to_port("a") == {"E1_1": "E1/1"}
    assert [p.name for p in tmp_path.iterdir()] == ["lab.json"]  # no temporary file left behind
    assert load(tmp_path / "nothing") is None
    write_atomic(tmp_path / "lab.json", '{"version": 99}')
    with pytest.raises(ValueError, match="version 99"):
        load(tmp_path)
