"""Failure sweeps: single failures are safe on Clos fabrics; the double-failure counts of deadlock.md
§3.4 are reproduced exactly, by the filtered incremental search and by brute force alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from deadlock_fabrics import clos3_intent, hand_built, leaf_spine_intent, load_state

from tests.support.paths import ROOT
from xoff.deadlock.failures import brute_force, sweep
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.statics import StaticRoute
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="module")
def roce_pod() -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / "roce-pod"))


def _mesh3() -> FabricState:
    """3 pods x (3 ToR + 3 agg), every agg to each of 3 super-spines, RFC 7938 ASNs per tier / pod."""
    switches: dict[str, tuple[str, int]] = {}
    links = []
    for p in range(3):
        for t in range(3):
            switches[f"p{p}t{t}"] = ("leaf", 4200000001 + 3 * p + t)
        for a in range(3):
            switches[f"p{p}a{a}"] = ("spine", 65100 + p)
            links.extend((f"p{p}t{t}", f"p{p}a{a}") for t in range(3))
    for s in range(3):
        switches[f"s{s}"] = ("super-spine", 65000)
        links.extend((f"p{p}a{a}", f"s{s}") for p in range(3) for a in range(3))
    return hand_built(switches, links, [f"p{p}t{t}" for p in range(3) for t in range(3)])


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_inventories_survive_every_single_failure(lab_mini_state, roce_pod: FabricState, routing: str) -> None:  # type: ignore[no-untyped-def]
    for state, network, links in (
        (lab_mini_state[1], "compute", 4),
        (roce_pod, "compute", 256),
        (roce_pod, "storage", 32),
    ):
        report = sweep(state, routing=routing, max_failures=1, network=network)  # type: ignore[arg-type]
        assert report.baseline.certified and not report.deadlock_risk
        assert report.resilient_to == 1 and report.fabric_links == links
        assert report.levels[1].scenarios == links and report.levels[1].risky == 0
        assert report.levels[1].analysed == 0  # never needed the full analysis
        assert brute_force(state, routing=routing, failures=1, network=network) == []  # type: ignore[arg-type]


def test_roce_pod_parallel_links_make_no_failure_critical(roce_pod: FabricState) -> None:
    """4 links per leaf-spine pair: every failure only shrinks an ECMP set, nothing is re-routed."""
    report = sweep(roce_pod, max_failures=1)
    assert report.levels[1].rerouted == 0 and report.levels[1].with_bounces == 0
    text = report.to_text()
    assert "up*/down* certificate holds" in text
    assert text.endswith("verdict: no deadlock risk with up to 1 failed link(s) (largest k checked without risk: 1)")


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_clos3_single_failures_are_safe(tmp_path: Path, routing: str) -> None:
    state = load_state(tmp_path, clos3_intent(2, 3, 3, 6))  # 2 pods x (3 leaves + 3 spines), 3 planes of 2
    report = sweep(state, routing=routing, max_failures=1)  # type: ignore[arg-type]
    assert report.fabric_links == 2 * 3 * 3 + 6 * 2
    assert not report.deadlock_risk and report.resilient_to == 1
    if routing == "igp":
        assert report.levels[1].with_bounces > 0  # shortest path bounces, but one failure closes no cycle
    else:
        assert report.levels[1].with_bounces == 0  # RFC 7938: withdrawals, never valleys
    assert brute_force(state, routing=routing, failures=1) == []  # type: ignore[arg-type]


# deadlock.md §3.4: double failures with a CBD under shortest-path ECMP
TABLE = [
    ("2x4 leaf-spine (2 spines, 4 leaves)", lambda tmp: load_state(tmp, leaf_spine_intent(4, 2)), 8, 12, 28),
    ("4x6 leaf-spine (4 spines, 6 leaves)", lambda tmp: load_state(tmp, leaf_spine_intent(6, 4)), 24, 180, 276),
    (
        "3-tier planes (3 pods x (2 ToR + 2 agg), 2 planes of 2)",
        lambda tmp: load_state(tmp, clos3_intent(3, 2, 2, 4)),
        24,
        30,
        276,
    ),
    ("3-tier full mesh (3 pods x (3 ToR + 3 agg), 3 spines)", lambda _: _mesh3(), 54, 297, 1431),
]


@pytest.mark.parametrize(("name", "make", "links", "risky", "pairs"), TABLE, ids=[t[0] for t in TABLE])
def test_double_failure_counts_of_the_table(
    tmp_path: Path, name: str, make, links: int, risky: int, pairs: int
) -> None:  # type: ignore[no-untyped-def]
    state = make(tmp_path)
    igp = sweep(state, routing="igp", max_failures=2)
    assert igp.fabric_links == links and igp.levels[2].scenarios == pairs
    assert igp.levels[1].risky == 0 and igp.levels[2].risky == risky
    assert igp.resilient_to == 1
    brute = brute_force(state, routing="igp", failures=2)
    assert len(brute) == risky
    assert sorted(s.failed for s in igp.risky) == sorted(brute)
    for scenario in igp.risky:  # every reported scenario has a witness with a bounce the failures added
        assert scenario.result.cycles and scenario.result.cycles[0].bounces and scenario.bounces
    # the RFC 7938 ASN plan on the same fabric: no failure pair creates a valley, so no risk at all
    bgp = sweep(state, routing="bgp", max_failures=2)
    assert not bgp.deadlock_risk and bgp.resilient_to == 2 and bgp.levels[2].checked == 0
    assert brute_force(state, routing="bgp", failures=2) == []


def test_2x4_double_failure_report(tmp_path: Path) -> None:
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    report = sweep(state, routing="igp", max_failures=2)
    doc = report.to_json()
    assert doc["deadlock_risk"] is True and doc["resilient_to"] == 1
    assert doc["levels"]["2"]["risky"] == 12
    # the 2-tier opposite-direction filter: pairs on one spine are never searched
    assert doc["levels"]["2"]["checked"] == 16 and "opposite spine directions" in doc["pair_filter"]
    first = doc["risky_scenarios"][0]
    assert len(first["failed_links"]) == 2 and first["risky_priorities"] == [3]
    spines = {link.split(":")[0] for link in first["failed_links"]}
    assert spines == {"spine1", "spine2"}  # one failure under each spine, on different leaves
    assert len(first["example_cycle"]) >= 4 and first["witness"][0]["because"]["kind"] in ("bounce", "up-down")
    assert {t["switch"] for t in first["new_bounce_turns"]} <= {f"leaf{i}" for i in range(1, 5)}
    text = report.to_text()
    assert "RISK after failure of " in text and "down-to-up turns the failure adds" in text
    assert text.endswith("verdict: DEADLOCK RISK after 2 failed link(s) (largest k checked without risk: 1)")


def test_unique_spine_asns_let_bgp_bounce(tmp_path: Path) -> None:
    """Without the shared spine ASN, eBGP accepts valley paths after failures: the same 12 pairs as shortest path."""
    switches = {f"l{i}": ("leaf", 65001 + i) for i in range(4)} | {f"s{i}": ("spine", 65100 + i) for i in range(2)}
    state = hand_built(switches, [(f"l{i}", f"s{j}") for i in range(4) for j in range(2)], [f"l{i}" for i in range(4)])
    report = sweep(state, routing="bgp", max_failures=2)
    assert report.levels[2].risky == 12 and len(brute_force(state, routing="bgp", failures=2)) == 12


def test_ring_is_risky_at_baseline_and_a_cut_breaks_it() -> None:
    ring = hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)},
        [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)],
        [f"r{i}" for i in range(5)],
    )
    report = sweep(ring, max_failures=2)
    assert report.baseline.deadlock_risk and report.resilient_to is None
    assert report.levels[1].analysed == 5 and report.levels[1].risky == 0  # every cut turns the ring into a line
    assert 2 not in report.levels  # pairs are not searched on a risky baseline
    assert report.to_text().endswith("verdict: DEADLOCK RISK in the baseline itself")


def test_lossy_links_break_the_ring() -> None:
    ring = hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)},
        [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)],
        [f"r{i}" for i in range(5)],
        lossy_links=frozenset({("r0", "r1")}),
    )
    assert not sweep(ring, max_failures=1).deadlock_risk


def test_static_bounce_plus_one_failure_loops(tmp_path: Path) -> None:
    """A static route spine1 -> leaf2 for leaf1's hosts, pinned on leaf2 to spine2: fine until
    leaf2-spine2 fails; then leaf2 sends leaf1's traffic back to spine1: a forwarding loop."""
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    fab = fabric_of(state)
    ends = {(a, b): (ap, bp) for a, ap, b, bp in fab.link_ends}
    s1_l2, s2_l2 = ends[("spine1", "leaf2")], ends[("spine2", "leaf2")]
    statics = [StaticRoute("spine1", "leaf1", (s1_l2[0],)), StaticRoute("leaf2", "leaf1", (s2_l2[1],))]
    report = sweep(state, max_failures=2, static_routes=statics)
    assert not report.baseline.deadlock_risk and not report.baseline.certified
    assert [s.failed for s in report.risky if len(s.failed) == 1] == [(f"spine2:{s2_l2[0]}--leaf2:{s2_l2[1]}",)]
    loop = report.risky[0].result.cycles[0].steps
    assert len(loop) == 2 and all(s.in_port == s.out_port for s in loop)  # U-turns both ways
    assert report.resilient_to == 0 and "no pair filter applies" in report.pair_filter
    single = set(brute_force(state, failures=1, static_routes=statics))
    assert {s.failed for s in report.risky if len(s.failed) == 1} == single
    dominated = {f for (f,) in single}
    pairs = {p for p in brute_force(state, failures=2, static_routes=statics) if not set(p) & dominated}
    assert {s.failed for s in report.risky if len(s.failed) == 2} == pairs


def test_bad_arguments(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"max_failures 3 is not supported \(allowed: 0, 1, 2\)"):
        sweep(lab_mini_state[1], max_failures=3)
    report = sweep(lab_mini_state[1], max_failures=0)
    assert list(report.levels) == [0] and report.resilient_to == 0
