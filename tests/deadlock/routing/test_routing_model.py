"""Routing model from intent: forwarding snapshots of lab-mini and roce-pod, RFC 7938 loop prevention,
shortest-path valleys, static routes, and incremental repair against a full recompute."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
from deadlock_fabrics import clos3_intent, hand_built, leaf_spine_intent, load_state

from tests.support.paths import ROOT
from xoff.deadlock.analysis import analyse
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.model import Snapshot
from xoff.deadlock.repair import apply_delta, repair
from xoff.deadlock.routing import route_all, route_class
from xoff.deadlock.statics import StaticRoute
from xoff.deadlock.validate import check_snapshot
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="module")
def roce_pod() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "roce-pod"))


def _ports_to(snap: Snapshot, switch: str, peer: str) -> set[str]:
    """Ports of ``switch`` whose link goes to ``peer`` (up links only)."""
    out = set()
    for link in snap.links:
        if link.up and link.a == switch and link.b == peer:
            out.add(link.a_port)
        elif link.up and link.b == switch and link.a == peer:
            out.add(link.b_port)
    return out


def _peers(snap: Snapshot, switch: str, ports: tuple[str, ...]) -> set[str]:
    out = set()
    for link in snap.links:
        if link.a == switch and link.a_port in ports:
            out.add(link.b)
        elif link.b == switch and link.b_port in ports:
            out.add(link.a)
    return out


def test_lab_mini_snapshot_is_sound_and_up_down(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, state = lab_mini_state
    snap = snapshot_from_fabric(state)
    assert check_snapshot(snap) == []
    assert snap.switches == ("spine1", "spine2", "leaf1", "leaf2")  # sleaf1 is on the storage network
    # every compute RDMA NIC is its own endpoint (two rails per host)
    assert snap.hosts == tuple(f"gpu{h}:eth{n}" for h in range(1, 5) for n in range(2))
    assert snap.ranks == {"spine1": 2, "spine2": 2, "leaf1": 1, "leaf2": 1}
    assert snap.lossless_default == frozenset({3}) and dict(snap.lossless) == {}
    assert "spine1:Ethernet0--leaf1:Ethernet32" in {x.id for x in snap.links}
    # gpu1:eth1 hangs off leaf2: leaf1 uses both spines, each spine its link to leaf2, leaf2 the host port
    fwd = snap.forwarding["gpu1:eth1"]
    assert _peers(snap, "leaf1", fwd["leaf1"]) == {"spine1", "spine2"}
    assert _peers(snap, "spine1", fwd["spine1"]) == _peers(snap, "spine2", fwd["spine2"]) == {"leaf2"}
    assert fwd["leaf2"] == ("Ethernet0",)
    result = analyse(snap)
    assert result.certified and not result.deadlock_risk and not result.pfc_mismatches


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_roce_pod_compute_ecmp_over_all_spines_and_parallel_links(roce_pod: FabricState, routing: str) -> None:
    snap = snapshot_from_fabric(roce_pod, routing=routing)  # type: ignore[arg-type]
    assert check_snapshot(snap) == []
    assert len(snap.switches) == 16 and len(snap.hosts) == 256  # 32 hosts x 8 rails
    fwd = snap.forwarding["gpu01:rail0"]  # behind leaf0
    for leaf in (f"leaf{i}" for i in range(1, 8)):
        # all 32 uplinks: 8 spines x 4 parallel links
        assert len(fwd[leaf]) == 32 and _peers(snap, leaf, fwd[leaf]) == {f"spine{i}" for i in range(1, 9)}
    for spine in (f"spine{i}" for i in range(1, 9)):
        assert set(fwd[spine]) == _ports_to(snap, spine, "leaf0") and len(fwd[spine]) == 4
    assert set(fwd) == set(snap.switches)
    result = analyse(snap)
    assert result.certified and not result.deadlock_risk


def test_roce_pod_storage_network(roce_pod: FabricState) -> None:
    snap = snapshot_from_fabric(roce_pod, network="storage")
    assert check_snapshot(snap) == []
    assert set(snap.switches) == {"sleaf1", "sleaf2", "sleaf3", "sleaf4", "sspine1", "sspine2"}
    assert len(snap.hosts) == 32 * 2 + 8 * 2
    assert snap.lossless_default == frozenset({4})
    fwd = snap.forwarding["fs01:stor0"]  # behind sleaf3
    assert _peers(snap, "sleaf1", fwd["sleaf1"]) == {"sspine1", "sspine2"} and len(fwd["sleaf1"]) == 8
    assert analyse(snap).certified


def test_unknown_names_are_value_errors(roce_pod: FabricState, tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"no network 'fabric' in fabric roce-pod \(allowed: RoCE networks: compute, storage\)"
    ):
        snapshot_from_fabric(roce_pod, network="fabric")
    with pytest.raises(ValueError, match="failed link 'x--y' is not a link of network compute"):
        snapshot_from_fabric(roce_pod, failed=frozenset({"x--y"}))
    with pytest.raises(ValueError, match="routing 'ospf' is not known"):
        snapshot_from_fabric(roce_pod, routing="ospf")  # type: ignore[arg-type]
    ib = build_fabric_state(load_intent(INVENTORY / "ib-pod"))
    with pytest.raises(ValueError, match="infiniband network 'compute'"):
        snapshot_from_fabric(ib)
    assert check_snapshot(snapshot_from_fabric(ib, network="storage")) == []


def test_failed_host_link_removes_the_endpoint(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    _, state = lab_mini_state
    snap = snapshot_from_fabric(state, failed=frozenset({"leaf1:Ethernet0--gpu1:eth0"}))
    assert "gpu1:eth0" not in snap.hosts and "gpu1:eth0" not in snap.forwarding
    assert check_snapshot(snap) == []


def test_rfc7938_withdraws_where_shortest_path_bounces(tmp_path: Path) -> None:
    """2 spines x 4 leaves, spine1-leaf1 failed: eBGP with one spine ASN withdraws leaf1's routes at
    spine1 (every path back holds ASN 65100), shortest path sends them down to the other leaves and
    up again through spine2 (a valley, i.e. a bounce at each of leaf2..leaf4)."""
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    failed = frozenset({"spine1:Ethernet0--leaf1:Ethernet128"})
    bgp = snapshot_from_fabric(state, failed=failed)
    assert "spine1" not in bgp.forwarding["gpu1:eth0"]
    assert analyse(bgp).certified
    igp = snapshot_from_fabric(state, routing="igp", failed=failed)
    hops = igp.forwarding["gpu1:eth0"]["spine1"]
    assert _peers(igp, "spine1", hops) == {"leaf2", "leaf3", "leaf4"}
    result = analyse(igp)
    assert not result.certified and not result.deadlock_risk  # bounces, but a single failure closes no cycle
    assert {(b.switch, b.dest) for b in result.bounces} == {(f"leaf{i}", "gpu1:eth0") for i in (2, 3, 4)}


def test_bgp_multipath_over_different_as_paths() -> None:
    """Spines with their own ASNs (not RFC 7938): equal-length paths through different ASNs are all
    used (multipath-relax), and after a failure the valley path is accepted (no spine ASN repeats)."""
    switches = {f"l{i}": ("leaf", 65001 + i) for i in range(3)} | {f"s{i}": ("spine", 65100 + i) for i in range(2)}
    links = [(f"l{i}", f"s{j}") for i in range(3) for j in range(2)]
    state = hand_built(switches, links, ["l0", "l1", "l2"])
    snap = snapshot_from_fabric(state)
    assert snap.forwarding["h_l0:eth0"]["l1"] == ("to_s0", "to_s1")
    failed = snapshot_from_fabric(state, failed=frozenset({"l0:to_s0--s0:to_l0"}))
    assert failed.forwarding["h_l0:eth0"]["s0"] == ("to_l1", "to_l2")  # s0 -> l1 -> s1 -> l0


def test_static_routes_win_and_can_close_a_cycle(tmp_path: Path) -> None:
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    snap0 = snapshot_from_fabric(state)

    def port(a: str, b: str) -> str:
        (p,) = _ports_to(snap0, a, b)
        return p

    statics = [
        StaticRoute("spine1", "leaf1", (port("spine1", "leaf2"),)),
        StaticRoute("leaf2", "leaf1", (port("leaf2", "spine2"),)),
        StaticRoute("spine2", "leaf3", (port("spine2", "leaf4"),)),
        StaticRoute("leaf4", "leaf3", (port("leaf4", "spine1"),)),
    ]
    one = snapshot_from_fabric(state, static_routes=statics[:2])
    assert one.forwarding["gpu1:eth0"]["spine1"] == (port("spine1", "leaf2"),)
    assert not analyse(one).deadlock_risk  # one bounce alone closes nothing
    both = analyse(snapshot_from_fabric(state, static_routes=statics))
    assert both.deadlock_risk and both.risky_priorities == (3,)
    assert {s.switch for s in both.cycles[0].bounces} == {"leaf2", "leaf4"}
    # a static route whose port is down is inactive: the dynamic route takes over
    down = snapshot_from_fabric(
        state,
        static_routes=statics[:1],
        failed=frozenset({f"spine1:{port('spine1', 'leaf2')}--leaf2:{port('leaf2', 'spine1')}"}),
    )
    assert down.forwarding["gpu1:eth0"]["spine1"] == (port("spine1", "leaf1"),)
    with pytest.raises(ValueError, match=r"static route: switch 'leaf9' is not a switch of network compute"):
        snapshot_from_fabric(state, static_routes=[StaticRoute("leaf9", "leaf1", ("x",))])


def _mesh3(unique_asns: bool) -> FabricState:
    """3 pods x (3 ToR + 3 agg), every agg to each of 3 super-spines (deadlock.md §3.4, "full mesh")."""
    switches: dict[str, tuple[str, int]] = {}
    links = []
    for p in range(3):
        for t in range(3):
            switches[f"p{p}t{t}"] = ("leaf", 4200000001 + 3 * p + t)
        for a in range(3):
            switches[f"p{p}a{a}"] = ("spine", 65100 + (3 * p + a if unique_asns else p))
            links.extend((f"p{p}t{t}", f"p{p}a{a}") for t in range(3))
    for s in range(3):
        switches[f"s{s}"] = ("super-spine", 65000 + (s if unique_asns else 0))
        links.extend((f"p{p}a{a}", f"s{s}") for p in range(3) for a in range(3))
    return hand_built(switches, links, [f"p{p}t{t}" for p in range(3) for t in range(3)])


def _fabrics(tmp_path: Path) -> dict[str, FabricState]:
    ring = hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)}, [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)], ["r0", "r2"]
    )
    return {
        "leaf-spine 2x4": load_state(tmp_path, leaf_spine_intent(4, 2)),
        "clos3 planes": load_state(tmp_path, clos3_intent(3, 2, 2, 4)),
        "mesh, unique ASNs": _mesh3(True),
        "ring": ring,
    }


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_incremental_repair_equals_full_recompute(tmp_path: Path, routing: str) -> None:
    """Every single failure and every pair, every destination class: repairing the baseline
    link by link gives exactly what routing from scratch gives."""
    checked = 0
    for name, state in _fabrics(tmp_path).items():
        fab = fabric_of(state)
        base = route_all(fab, routing, fab.down)  # type: ignore[arg-type]
        links = [li for li in range(len(fab.link_ids)) if li not in fab.down]
        for combo in [(li,) for li in links] + list(combinations(links, 2)):
            for c in fab.classes:
                delta: dict[int, tuple[int, tuple[int, ...], frozenset[frozenset[int]] | None] | None] = {}
                dead = set(fab.down)
                for li in combo:
                    dead.add(li)
                    repair(fab, routing, c, base[c], delta, dead, li)  # type: ignore[arg-type]
                want = route_class(fab, c, routing, dead)  # type: ignore[arg-type]
                assert apply_delta(base[c], delta) == want, (name, [fab.link_ids[li] for li in combo], fab.switches[c])
                checked += 1
    assert checked > 10_000
