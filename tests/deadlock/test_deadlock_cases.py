"""Hand-checked snapshot cases: tests/fixtures/deadlock/*.yaml, each with an ``expect:`` block.

Every case runs without ranks (peel + Tarjan) and, when the file gives ``ranks:`` (a test-only
top-level key the loader ignores), with them (certificate first). Answers are compared as sets;
every witness is checked against edges computed independently by ``cbd_reference``, and every
edge's justifying destination against rule 3.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from cbd_reference import Reference

from tests.support.paths import ROOT
from xoff.deadlock.analysis import Result, analyse
from xoff.deadlock.model import Snapshot
from xoff.deadlock.snapshot_file import load_snapshot

FIXTURES = ROOT / "tests" / "fixtures" / "deadlock"
CASES = sorted(FIXTURES.glob("*.yaml"))
SPEC_KEYS = {"deadlock_risk", "risky_priorities", "nodes_on_cycles", "example_cycle", "pfc_mismatches"}
EXTRA_KEYS = {"cycles", "certified", "counts", "timings"}


def _raw(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _variants(path: Path) -> list[tuple[str, Snapshot]]:
    snap = load_snapshot(path)
    ranks = _raw(path).get("ranks")
    out = [("no ranks", snap)]
    if ranks:
        out.append(("ranks", dataclasses.replace(snap, ranks=ranks)))
    return out


def assert_valid_witnesses(result: Result, ref: Reference) -> None:
    for cycle in result.cycles:
        ref.check_cycle(cycle.nodes)
        nodes = cycle.nodes
        for step, nxt in zip(cycle.steps, nodes[1:] + nodes[:1], strict=True):
            assert ref.justifies(step.dest, ((step.link, step.prio), nxt)), (step, nxt)


def test_every_case_has_a_description_and_an_expectation() -> None:
    assert len(CASES) >= 10
    for path in CASES:
        raw = _raw(path)
        assert raw["name"] == path.stem
        assert len(raw["description"]) > 80, f"{path.name}: say why the answer is what it is"
        assert {"deadlock_risk", "risky_priorities", "nodes_on_cycles", "pfc_mismatches"} <= set(raw["expect"])


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    expect = _raw(path)["expect"]
    for label, snap in _variants(path):
        result = analyse(snap)
        doc = result.to_json()
        assert set(doc) == SPEC_KEYS | EXTRA_KEYS
        assert doc["deadlock_risk"] is expect["deadlock_risk"], label
        assert set(doc["risky_priorities"]) == set(expect["risky_priorities"]), label
        assert {tuple(n) for n in doc["nodes_on_cycles"]} == {tuple(n) for n in expect["nodes_on_cycles"]}, label
        want_mismatch = {(m["link"], tuple(m["priorities"])) for m in expect["pfc_mismatches"]}
        assert {(m["link"], tuple(m["priorities"])) for m in doc["pfc_mismatches"]} == want_mismatch, label
        assert (doc["example_cycle"] == []) is (not expect["deadlock_risk"])
        if "sccs" in expect:
            assert len(doc["cycles"]) == expect["sccs"]
        # the hand answer agrees with the reference, and the witnesses are real cycles
        ref = Reference(snap)
        assert ref.on_cycles() == {tuple(n) for n in expect["nodes_on_cycles"]}
        assert_valid_witnesses(result, ref)
        json.dumps(doc)  # serialisable as is
        if label == "ranks":
            assert doc["certified"] is expect["certified"]
            assert {(t.switch, t.in_port, t.out_port) for t in result.bounces} == {
                tuple(t) for t in expect["bounce_turns"]
            }
            for cycle in result.cycles:
                assert all(s.kind in ("up-up", "up-down", "down-down", "bounce") for s in cycle.steps)
        else:
            assert doc["certified"] is False
            assert all(s.kind == "unknown" for c in result.cycles for s in c.steps)


def test_certificate_skips_the_graph_and_agrees_with_the_full_analysis() -> None:
    path = FIXTURES / "leaf_spine_clean.yaml"
    snap = dataclasses.replace(load_snapshot(path), ranks=_raw(path)["ranks"])
    certified = analyse(snap)
    full = analyse(snap, use_certificate=False)
    assert certified.certified and not full.certified
    assert certified.counts["edges"] == -1 and full.counts["edges"] > 0
    assert certified.deadlock_risk is full.deadlock_risk is False


def test_bounce_kinds_on_the_double_failure_witness() -> None:
    path = FIXTURES / "double_failure_bounces.yaml"
    snap = dataclasses.replace(load_snapshot(path), ranks=_raw(path)["ranks"])
    result = analyse(snap)
    for cycle in result.cycles:
        kinds = [s.kind for s in cycle.steps]
        assert sorted(kinds) == ["bounce", "bounce", "up-down", "up-down"]
        assert {s.switch for s in cycle.bounces} == {"L1", "L2"}


def test_u_turn_is_marked_on_the_witness() -> None:
    path = FIXTURES / "u_turn.yaml"
    snap = dataclasses.replace(load_snapshot(path), ranks=_raw(path)["ranks"])
    steps = {s.switch: s for s in analyse(snap).cycles[0].steps}
    assert steps["L1"].kind == "bounce" and steps["S1"].kind == "up-down"
    assert all(s.in_port == s.out_port and s.to_json()["because"]["u_turn"] for s in steps.values())


def test_rewrite_shown_on_the_witness() -> None:
    result = analyse(load_snapshot(FIXTURES / "ring_cycle_two_priorities.yaml"))
    rewrites = sorted(tuple(s.to_json()["because"]["rewrite"]) for s in result.cycles[0].steps if s.next_prio != s.prio)
    assert rewrites == [(3, 4), (4, 3)]


def test_json_snapshot_gives_the_same_answer(tmp_path: Path) -> None:
    src = FIXTURES / "double_failure_bounces.yaml"
    target = tmp_path / "double.json"
    target.write_text(json.dumps(_raw(src), indent="\t"), encoding="utf-8")
    from_json = analyse(load_snapshot(target)).to_json()
    from_yaml = analyse(load_snapshot(src)).to_json()
    for key in SPEC_KEYS:
        assert from_json[key] == from_yaml[key]
