"""Tenants across the spines in the lab, with the real FRR: two SONiC leaves and one SONiC spine, four hosts
in two tenants (blue: gpu1-2, red: gpu3-4; each host has a NIC on each leaf). Every tenant VRF is a netns
VRF of FRR (``xoff.lab.tenant_vrfs``) with its L3 VNI; the leaves exchange type-5 routes through the spine.
Shown by the routing tables: a blue host link of leaf1 is in Vrf-blue's table on leaf2 (FRR's RIB and the
kernel table of the VRF), as a BGP route over the blue VNI's VXLAN device, and in no table of Vrf-red,
and the reverse; the underlay's default table carries neither tenant's links. The data plane carries it too
(this machine has no ``ping``: an ICMP echo from a raw socket): from leaf1's blue VRF, leaf2's blue port
answers over the VXLAN tunnel, while leaf2's red port is unreachable (no route in the blue table); host to host,
gpu1 (blue) reaches gpu2's NIC on the other leaf and not gpu3's (red). A second ``lab up`` keeps it all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.desired.models import FabricState
from xoff.lab import daemons, names, netns, tenant_vrfs
from xoff.lab.lab import resolve, up
from xoff.lab.state import FABRIC_FILE, LabState

pytestmark = pytest.mark.lab
LAB = f"ev{os.getpid()}"
INTENT_DIR: list[Path] = []  # the module lab's intent copy
TENANTS = (
    "tenants:\n  - {name: blue, hosts: ['gpu{1..2}']}\n  - {name: red, hosts: ['gpu{3..4}'], share_lossless: true}\n"
)


def small_fabric(target: Path) -> Path:
    """lab-mini cut to the compute network's leaf1, leaf2 and spine1 (SONiC) and the four GPU hosts."""
    shutil.copytree(ROOT / "inventory" / "lab-mini", target)
    devices = target / "devices.yaml"
    kept = []
    skip = False
    for line in devices.read_text(encoding="utf-8").splitlines():
        if line.startswith(("  - {name: spine2", "  - {name: sleaf1")) or "network: storage" in line:
            skip = not line.rstrip().endswith("}") or line.count("{") > line.count("}")
            continue
        if skip:
            skip = not line.rstrip().endswith("}")
            continue
        kept.append(line)
    devices.write_text("\n".join(kept) + "\n", encoding="utf-8")
    cabling = target / "cabling.yaml"
    cabling.write_text(
        "cabling:\n"
        '  - {kind: leaf_spine, leaves: "leaf{1..2}", spines: spine1}\n'
        '  - {kind: rail_optimized, hosts: "gpu{1..4}", leaves: [leaf1, leaf2]}\n',
        encoding="utf-8",
    )
    (target / "tenants.yaml").write_text(TENANTS, encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[LabState, FabricState]]:
    with running_lab(lambda root: small_fabric(root / "intent"), LAB, prefix="xoff-evpn-labs-") as root:
        INTENT_DIR.append(root / "intent")
        state = resolve(LAB)
        fabric = FabricState.model_validate_json((state.dir / FABRIC_FILE).read_text(encoding="utf-8"))
        yield state, fabric


def vtysh(state: LabState, switch: str, command: str) -> object:
    run = subprocess.run(
        ["ip", "netns", "exec", names.namespace(LAB, switch), *daemons.vtysh_argv(state.dir, switch, command)],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return json.loads(run.stdout or "{}")


def bgp_routes(state: LabState, switch: str, vrf: str) -> dict[str, str]:
    """FRR's selected, installed BGP routes of a VRF: prefix -> the interface of its first next hop."""
    table = vtysh(state, switch, f"show ip route vrf {vrf} json")
    assert isinstance(table, dict)
    out: dict[str, str] = {}
    for prefix, entries in table.items():
        for e in entries:
            if e.get("protocol") == "bgp" and e.get("selected") and e.get("installed"):
                out[prefix] = e["nexthops"][0].get("interfaceName", "")
    return out


def kernel_routes(switch_netns: str, vrf: str) -> set[str]:
    ns = f"{switch_netns}{tenant_vrfs.SEP}{vrf}"
    found = json.loads(netns.ip(["-j", "-4", "route", "show", "proto", "bgp"], netns=ns).stdout or "[]")
    return {r["dst"] for r in found}


def host_links(fabric: FabricState, leaf: str, vrf: str) -> set[str]:
    return {n for v in fabric.devices[leaf].vrfs if v.name == vrf for n in v.networks}


def sessions_up(state: LabState, switch: str) -> bool:
    """Every underlay BGP session of the switch is Established."""
    summary = vtysh(state, switch, "show bgp summary json")
    assert isinstance(summary, dict)
    peers = summary.get("ipv4Unicast", {}).get("peers", {})
    return bool(peers) and all(p.get("state") == "Established" for p in peers.values())


def wait_for_routes(state: LabState, fabric: FabricState) -> dict[tuple[str, str], dict[str, str]]:
    """Every (leaf, VRF) table once it holds the other leaf's links of that VRF (or the last look). Two waits, each
    with its own bound: the underlay's sessions (on a busy machine FRR's connect retries alone can take a minute
    or more, as in every lab), then the type-5 routes over them."""
    deadline = time.monotonic() + SETTLE_S
    while not all(sessions_up(state, sw) for sw in ("leaf1", "leaf2", "spine1")) and time.monotonic() < deadline:
        time.sleep(0.5)
    pairs = [
        (leaf, other, vrf)
        for leaf, other in (("leaf1", "leaf2"), ("leaf2", "leaf1"))
        for vrf in ("Vrf-blue", "Vrf-red")
    ]
    deadline = time.monotonic() + SETTLE_S
    while True:
        seen = {(leaf, vrf): bgp_routes(state, leaf, vrf) for leaf, _, vrf in pairs}
        if all(host_links(fabric, other, vrf) <= set(seen[leaf, vrf]) for leaf, other, vrf in pairs):
            return seen
        if time.monotonic() > deadline:
            return seen
        time.sleep(0.5)


# An ICMP echo from a raw socket, bound to SRC, to DST; prints "reply" or why not (exit status 0 either way).
ECHO = """
import os, socket, struct, sys
src, dst = sys.argv[1], sys.argv[2]
def checksum(b):
    total = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    total = (total >> 16) + (total & 0xFFFF)
    return ~(total + (total >> 16)) & 0xFFFF
ident = os.getpid() & 0xFFFF
body = struct.pack("!BBHHH", 8, 0, 0, ident, 1) + b"xoff-evpn"
pkt = body[:2] + struct.pack("!H", checksum(body + b"\\0")) + body[4:]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.bind((src, 0))
s.settimeout(float(sys.argv[3]))
try:
    s.sendto(pkt, (dst, 0))
    while True:
        data, (peer, _) = s.recvfrom(2048)
        icmp = data[(data[0] & 0x0F) * 4:]
        if peer == dst and icmp[0] == 0 and struct.unpack("!H", icmp[4:6])[0] == ident:
            print("reply")
            break
except OSError as exc:
    print(type(exc).__name__, exc)
"""


def echo(ns: str, src: str, dst: str, timeout_s: float) -> str:
    run = subprocess.run(
        ["ip", "netns", "exec", ns, sys.executable, "-c", ECHO, src, dst, str(timeout_s)],
        capture_output=True, text=True, timeout=timeout_s + 30, check=True,
    )  # fmt: skip
    return run.stdout.strip()


def port_address(fabric: FabricState, leaf: str, vrf: str) -> str:
    """The leaf's own address on its first port in the VRF."""
    d = fabric.devices[leaf]
    return next(i.addresses[0].split("/")[0] for i in d.interfaces.values() if i.vrf == vrf and i.addresses)


def test_each_tenant_reaches_its_own_links_across_the_spine_and_no_other(
    lab: tuple[LabState, FabricState],
) -> None:
    state, fabric = lab
    seen = wait_for_routes(state, fabric)
    vni = {v.name: v.vni for v in fabric.devices["leaf1"].vrfs}
    assert vni == {"Vrf-blue": 50001, "Vrf-red": 50002}
    for leaf, other in (("leaf1", "leaf2"), ("leaf2", "leaf1")):
        for vrf, foreign in (("Vrf-blue", "Vrf-red"), ("Vrf-red", "Vrf-blue")):
            theirs = host_links(fabric, other, vrf)
            assert theirs and theirs <= set(seen[leaf, vrf]), (leaf, vrf, seen[leaf, vrf])
            assert {seen[leaf, vrf][p] for p in theirs} == {f"br{vni[vrf]}"}  # over the tenant's own L3 VNI
            assert not theirs & set(seen[leaf, foreign]), (leaf, foreign)  # never in the other tenant's table
            assert not theirs & host_links(fabric, leaf, foreign)
            kernel = kernel_routes(names.namespace(LAB, leaf), vrf)
            assert theirs <= kernel and not theirs & kernel_routes(names.namespace(LAB, leaf), foreign)
        underlay = vtysh(state, leaf, "show ip route json")
        assert isinstance(underlay, dict)
        tenant_links = host_links(fabric, other, "Vrf-blue") | host_links(fabric, other, "Vrf-red")
        assert not tenant_links & set(underlay)  # the default VRF carries no tenant's link


def test_the_data_plane_carries_a_tenant_to_its_own_addresses_only(lab: tuple[LabState, FabricState]) -> None:
    state, fabric = lab
    wait_for_routes(state, fabric)
    blue1 = f"{names.namespace(LAB, 'leaf1')}{tenant_vrfs.SEP}Vrf-blue"
    src = port_address(fabric, "leaf1", "Vrf-blue")
    deadline = time.monotonic() + SETTLE_S
    answer = echo(blue1, src, port_address(fabric, "leaf2", "Vrf-blue"), 2.0)
    while answer != "reply" and time.monotonic() < deadline:  # the tunnel's neighbour entries may lag the routes
        answer = echo(blue1, src, port_address(fabric, "leaf2", "Vrf-blue"), 2.0)
    assert answer == "reply"
    refused = echo(blue1, src, port_address(fabric, "leaf2", "Vrf-red"), 2.0)
    assert refused.startswith("OSError") and "unreachable" in refused, refused


def test_a_second_lab_up_keeps_the_tenant_vrfs_and_their_routes(lab: tuple[LabState, FabricState]) -> None:
    state, fabric = lab
    up(INTENT_DIR[-1], LAB, remap_addresses=True)  # completes: the tenant ports are found in their VRFs
    seen = wait_for_routes(state, fabric)
    assert host_links(fabric, "leaf2", "Vrf-blue") <= set(seen["leaf1", "Vrf-blue"])


def _address(fabric: FabricState, device: str, port: str) -> str:
    return fabric.devices[device].interfaces[port].addresses[0].split("/")[0]


def _gateway(fabric: FabricState, host: str, netdev: str) -> str:
    """The leaf's address on the host NIC's link."""
    peer = fabric.devices[host].interfaces[netdev].peer
    assert peer is not None
    return _address(fabric, peer.device, peer.port)


def test_a_host_reaches_its_own_tenant_on_the_other_leaf_and_not_the_other_tenant(
    lab: tuple[LabState, FabricState],
) -> None:
    """gpu1 (blue, eth0 on leaf1) to gpu2's eth1 (blue, on leaf2) answers over the tunnel; to gpu3's eth1 (red, on
    leaf2) it does not, although every host has the route a fabric would give it (to the far NIC through its own
    leaf, and back): only the VRFs keep the tenants apart. The hosts' NIC addresses are what a host push sets (the
    lab brings hosts up without them), set here with ip as that push would."""
    state, fabric = lab
    wait_for_routes(state, fabric)
    src = _address(fabric, "gpu1", "eth0")
    own, other = _address(fabric, "gpu2", "eth1"), _address(fabric, "gpu3", "eth1")
    routes = [
        ("gpu1", f"{own}/32", _gateway(fabric, "gpu1", "eth0")),
        ("gpu1", f"{other}/32", _gateway(fabric, "gpu1", "eth0")),
        ("gpu2", f"{src}/32", _gateway(fabric, "gpu2", "eth1")),
        ("gpu3", f"{src}/32", _gateway(fabric, "gpu3", "eth1")),
    ]
    for host, netdev in (("gpu1", "eth0"), ("gpu2", "eth1"), ("gpu3", "eth1")):  # what the host push gives them
        address = fabric.devices[host].interfaces[netdev].addresses[0]
        netns.ip(["addr", "replace", address, "dev", netdev], netns=names.namespace(LAB, host))
    for host, prefix, via in routes:
        netns.ip(["route", "replace", prefix, "via", via], netns=names.namespace(LAB, host))
    gpu1 = names.namespace(LAB, "gpu1")
    deadline = time.monotonic() + SETTLE_S
    answer = echo(gpu1, src, own, 2.0)
    while answer != "reply" and time.monotonic() < deadline:  # the tunnel's neighbour entries may lag the routes
        answer = echo(gpu1, src, own, 2.0)
    assert answer == "reply"
    assert echo(gpu1, src, other, 2.0) != "reply"
