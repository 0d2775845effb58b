"""Lab-safe addresses and --remap: every address lands in 198.18.0.0/15, consistently."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Interface, IPv4Network

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.lab.remap import REMAP_INTO, Management, addresses, remap, unsafe

INVENTORY = ROOT / "inventory"
MINI_MGMT = Management(IPv4Network("198.19.252.0/24"), IPv4Address("198.19.252.1"))


@pytest.fixture(scope="module")
def mini() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "lab-mini"))


def _unsafe_copy(fabric: FabricState) -> tuple[FabricState, Management]:
    """lab-mini with its compute /31s and loopbacks moved to 10.0.0.0/8 (as a site's real plan would be)."""
    text = fabric.model_dump_json().replace('"198.18.', '"10.1.').replace("/198.18.", "/10.1.")
    return FabricState.model_validate_json(text), Management(IPv4Network("172.16.0.0/24"), IPv4Address("172.16.0.1"))


def test_examples_are_lab_safe(mini: FabricState) -> None:
    """Every example comes up with no --remap, and all of them at once (their management prefixes, which go
    on the controller's bridges, differ)."""
    assert unsafe(mini, MINI_MGMT) == []
    prefixes = []
    for example in sorted(p.name for p in INVENTORY.iterdir() if p.is_dir()):
        loaded = load_intent(INVENTORY / example)
        mgmt = loaded.document.networks.management
        assert unsafe(build_fabric_state(loaded), Management(mgmt.prefix, mgmt.gateway)) == [], example
        prefixes.append(mgmt.prefix)
    assert len(prefixes) == 3 and not any(a.overlaps(b) for i, a in enumerate(prefixes) for b in prefixes[i + 1 :])


def test_documentation_range_is_not_lab_safe(mini: FabricState) -> None:
    """192.0.2.0/24 (RFC 5737) is where real machines put their uplink (this project's VMs do): not lab-safe."""
    assert unsafe(mini, Management(IPv4Network("192.0.2.0/24"), IPv4Address("192.0.2.1"))) == [
        "192.0.2.0/24",
        "192.0.2.1",
    ]


def test_unsafe_addresses_are_found(mini: FabricState) -> None:
    fabric, mgmt = _unsafe_copy(mini)
    bad = unsafe(fabric, mgmt)
    assert "172.16.0.0/24" in bad and "172.16.0.1" in bad
    assert "10.1.0.0/31" in bad and "10.1.255.3/32" in bad
    assert all(not b.startswith("198.19.") for b in bad)  # storage stays lab-safe
    assert len(bad) == len(set(bad))


def _all_v4(fabric: FabricState, mgmt: Management) -> list[IPv4Interface]:
    return [IPv4Interface(a) for a in addresses(fabric, mgmt) if ":" not in a]


def test_remap_moves_everything_into_the_benchmark_range(mini: FabricState) -> None:
    fabric, mgmt = _unsafe_copy(mini)
    moved = remap(fabric, mgmt)
    assert unsafe(moved.fabric, moved.management) == []
    assert all(a.network.subnet_of(REMAP_INTO) for a in _all_v4(moved.fabric, moved.management))
    # the shape is kept: as many addresses, same prefix lengths, in the same places
    before, after = _all_v4(fabric, mgmt), _all_v4(moved.fabric, moved.management)
    assert [a.network.prefixlen for a in before] == [a.network.prefixlen for a in after]
    assert len(set(before)) == len(set(after))
    assert moved.management.gateway is not None and moved.management.gateway in moved.management.prefix


def test_remap_keeps_peers_pools_and_bgp_consistent(mini: FabricState) -> None:
    fabric, mgmt = _unsafe_copy(mini)
    moved = remap(fabric, mgmt).fabric
    for link in moved.links:
        a = moved.devices[link.a.device].interfaces[link.a.port].addresses
        b = moved.devices[link.b.device].interfaces[link.b.port].addresses
        if a and b:  # the two ends of a /31 stay the two ends of one /31
            assert IPv4Interface(a[0]).network == IPv4Interface(b[0]).network
    compute = moved.networks["compute"]
    assert compute.p2p_prefix and compute.loopback_prefix
    for d in moved.devices.values():
        for iface in d.interfaces.values():
            for a in iface.addresses:
                if iface.kind == "loopback" and iface.network in (None, "compute") and d.network == "compute":
                    assert IPv4Interface(a).ip in IPv4Network(compute.loopback_prefix)
        if d.bgp is not None and d.network == "compute":
            assert IPv4Address(d.bgp.router_id) in IPv4Network(compute.loopback_prefix)
            for n in d.bgp.neighbors:  # a neighbour address is the peer's address on the shared /31
                peer = moved.devices[n.peer]
                assert any(
                    IPv4Interface(a).ip == IPv4Address(n.address) for i in peer.interfaces.values() for a in i.addresses
                )


def test_remap_is_deterministic_and_keeps_what_is_already_in_range(mini: FabricState) -> None:
    one, two = remap(mini, MINI_MGMT), remap(mini, MINI_MGMT)
    assert one.fabric == two.fabric and one.blocks == two.blocks
    kept = {str(src) for src, dst in one.blocks if src == dst}
    assert kept == {"198.18.0.0/24", "198.18.255.0/24", "198.19.0.0/24", "198.19.252.0/24", "198.19.255.0/24"}
    assert one.fabric == mini and one.management == MINI_MGMT  # lab-mini needs no remap: nothing moves


def test_remap_avoids_networks_in_use(mini: FabricState) -> None:
    busy = [IPv4Network(n) for n in ("198.19.252.0/24", "198.18.1.0/24", "198.18.2.0/23", "0.0.0.0/0")]
    moved = remap(mini, MINI_MGMT, avoid=busy)  # lab-mini's management /24 is in use (another lab-mini)
    assert moved.management.prefix != MINI_MGMT.prefix
    assert not any(moved.management.prefix.overlaps(b) for b in busy[:3])
    # a lab-safe block that is busy moves too
    moved = remap(mini, MINI_MGMT, avoid=[IPv4Network("198.18.0.0/24")])
    assert dict(moved.blocks)[IPv4Network("198.18.0.0/24")] != IPv4Network("198.18.0.0/24")


def test_remap_refuses_what_cannot_fit(mini: FabricState) -> None:
    with pytest.raises(ValueError, match=r"larger than 198\.18\.0\.0/15"):
        remap(mini, Management(IPv4Network("10.0.0.0/8")))
