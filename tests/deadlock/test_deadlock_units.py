"""Pieces of the analysis on their own: cycle detection, deep graphs, ranks, model checks, text."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT
from xoff.deadlock.analysis import analyse
from xoff.deadlock.cycles import peel, strong_components, witness
from xoff.deadlock.model import Link, Rewrite, Snapshot
from xoff.deadlock.render import render_text
from xoff.deadlock.snapshot_file import load_snapshot
from xoff.deadlock.validate import check_snapshot

FIXTURES = ROOT / "tests" / "fixtures" / "deadlock"


def test_peel_keeps_exactly_what_can_lie_between_cycles() -> None:
    # 0 -> 1 -> 2 -> 1 (cycle 1-2), 2 -> 3 -> 4 -> 3 (cycle 3-4), 5 -> 0, 4 -> 6
    succ = [[1], [2], [1, 3], [4], [3, 6], [0], []]
    assert peel(succ) == [False, True, True, True, True, False, False]
    alive = peel(succ)
    assert strong_components(succ, alive) == [[1, 2], [3, 4]]


def test_tarjan_agrees_without_peeling_and_merges_overlapping_cycles() -> None:
    succ = [[1], [2, 0], [3], [1], [0]]  # 0-1, 1-2-3 share node 1; 4 only feeds in
    assert strong_components(succ, [True] * 5) == [[0, 1, 2, 3]]
    cyc = witness(succ, [0, 1, 2, 3])
    assert cyc == [0, 1]


def test_witness_is_a_shortest_cycle_through_the_first_node() -> None:
    succ = [[1, 4], [2], [3], [0], [0]]  # 0-1-2-3-0 and 0-4-0
    assert witness(succ, [0, 1, 2, 3, 4]) == [0, 4]


def _loop_ring(n: int) -> Snapshot:
    """n switches in a ring and one host whose traffic goes round forever (a forwarding loop)."""
    sw = [f"R{i}" for i in range(n)]
    links = [Link(f"r{i}", sw[i], "cw", sw[(i + 1) % n], "ccw") for i in range(n)]
    links.append(Link("h", "H", "nic", "R0", "host"))
    return Snapshot(
        name="loop",
        description="",
        switches=tuple(sw),
        hosts=("H",),
        links=tuple(links),
        lossless_default=frozenset({3}),
        lossless={},
        rewrites=(),
        forwarding={"H": dict.fromkeys(sw, ("cw",))},
    )


def test_deep_cycle_needs_no_recursion() -> None:
    n = 3 * sys.getrecursionlimit()
    result = analyse(_loop_ring(n))
    assert result.deadlock_risk and len(result.nodes_on_cycles) == n
    assert len(result.cycles) == 1 and len(result.cycles[0].steps) == n
    # the same ring with ranks by position: one bounce where the ring wraps around
    ranked = dataclasses.replace(_loop_ring(50), ranks={f"R{i}": i for i in range(50)})
    result = analyse(ranked)
    assert not result.certified
    assert [(t.switch, t.in_port, t.out_port) for t in result.bounces] == [("R0", "ccw", "cw")]
    assert [s.switch for s in result.cycles[0].bounces] == ["R0"]


def test_incomplete_ranks_mean_no_certificate_and_unknown_kinds() -> None:
    ring = dataclasses.replace(_loop_ring(4), ranks={"R0": 1, "R1": 2})
    result = analyse(ring)
    assert not result.ranked and not result.certified and result.counts["bounce_turns"] == -1
    assert {s.kind for s in result.cycles[0].steps} == {"unknown"}


def test_check_snapshot_catches_what_code_built_snapshots_get_wrong() -> None:
    bad = dataclasses.replace(
        _loop_ring(3),
        lossless_default=frozenset({3, 8}),
        rewrites=(Rewrite("R9", None, None, 3, 4), Rewrite("R1", frozenset({"nope"}), None, 3, -1)),
        forwarding={"H": {"R0": ("cw",), "R1": ("host",)}, "R2": {}},
    )
    found = {(p.path, p.message) for p in check_snapshot(bad)}
    assert found == {
        (("lossless_default",), "8 is out of range (allowed: 0..7)"),
        (("priority_rewrite", 0, "switch"), "'R9' is not a switch (allowed: a name from devices.switches)"),
        (("priority_rewrite", 1, "in_port"), "'R1' has no port 'nope' on any link (allowed: ccw, cw or '*')"),
        (("priority_rewrite", 1, "to"), "-1 is out of range (allowed: 0..7)"),
        (("forwarding", "H", "R1", 0), "'host' is not a port of any link (allowed: up ports of 'R1': ccw, cw)"),
        (("forwarding", "R2"), "'R2' is a switch (allowed: a name from devices.hosts)"),
    }
    assert check_snapshot(_loop_ring(3)) == []


def test_text_report_names_witness_destinations_and_bounces() -> None:
    path = FIXTURES / "double_failure_bounces.yaml"
    snap = dataclasses.replace(load_snapshot(path), ranks={"S1": 2, "S2": 2, "L1": 1, "L2": 1, "L3": 1, "L4": 1})
    text = render_text(analyse(snap))
    assert text.splitlines()[0] == "double_failure_bounces: DEADLOCK RISK: cyclic buffer dependency"
    assert "up*/down* certificate fails: 4 down-to-up turn(s) carry lossless traffic" in text
    assert "S1:to_L1->L1:to_S1  prio 3  waits at L1: to_S1 -> to_S2  for H3  [bounce]" in text
    assert "down-to-up turns (bounces) on this cycle: L1: to_S1 -> to_S2 (for H3); L2: to_S2 -> to_S1 (for H4)" in text
    clean = render_text(analyse(load_snapshot(FIXTURES / "leaf_spine_clean.yaml")))
    assert "no deadlock risk" in clean and "PFC mismatches: none" in clean


def test_scale_bench_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    cmd = [
        sys.executable,
        str(ROOT / "bench" / "deadlock_scale.py"),
        "--pods",
        "2",
        "3",
        "--runs",
        "1",
        "--record",
        str(out),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    report = out.read_text(encoding="utf-8")
    assert "| **3 pods: 400 switches, 3072 fabric links, 96 hosts" in report
    assert "bounce: risk, 2 nodes on cycles" in report and "clean (certificate): no risk, certified" in report
