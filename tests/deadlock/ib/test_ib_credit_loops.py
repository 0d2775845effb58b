"""The InfiniBand credit-loop analysis on dumps captured from ibsim + real OpenSM (tests/fixtures/deadlock/ib/):
a fat tree under ftree and a 5-switch ring under updn have none; the ring under minhop has exactly the
two rings (clockwise and anticlockwise) on each of the two VL groups, with witnesses that are real
cycles of the programmed routes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.cli.deadlock_ib import make_app
from xoff.contracts.infiniband import IbObservation, Sl2Vl
from xoff.deadlock.cycles import find_cycles
from xoff.deadlock.ib.credit import IbAnalysisError, analyse_ib
from xoff.platforms.infiniband.observe import observation_from_dump

DUMPS = ROOT / "tests" / "fixtures" / "deadlock" / "ib"


def obs(name: str) -> IbObservation:
    return observation_from_dump(DUMPS / name)


@pytest.mark.parametrize(("dump", "engine"), [("fattree_ftree", "ftree"), ("ring_updn", "updn")])
def test_deadlock_free_engines_have_no_credit_loop(dump: str, engine: str) -> None:
    result = analyse_ib(obs(dump))
    assert result.routing_engine == engine
    assert not result.credit_loop and result.cycles == [] and result.nodes_on_cycles == 0
    assert result.edges > 0 and result.destinations == 6 and result.unrouted == []


def test_minhop_on_the_ring_closes_both_rings_on_both_vls() -> None:
    o = obs("ring_minhop")
    result = analyse_ib(o)
    assert result.credit_loop and result.routing_engine == "minhop"
    assert result.sls == [[0, *range(2, 16)], [1]]  # SL1 -> VL1, every other SL -> VL0 (ib-ring's qos)
    assert sorted((c.scc_size, c.vls) for c in result.cycles) == [(5, (0,)), (5, (0,)), (5, (1,)), (5, (1,))]
    names = {n.description: g for g, n in o.nodes.items()}
    lid_of = {n.description: n.ports[1].lid for n in o.nodes.values() if n.kind == "ca"}
    for cycle in result.cycles:
        steps = cycle.steps
        assert sorted(cycle.switches) == ["ibsw1", "ibsw2", "ibsw3", "ibsw4", "ibsw5"]
        for step, nxt in zip(steps, steps[1:] + steps[:1], strict=True):
            far = step.link.split(" -> ")[1]  # each link ends where the turn happens ...
            assert far == f"{step.switch}:{step.in_port}"
            assert nxt.link.startswith(
                f"{step.switch}:{step.out_port} ->"
            )  # ... and the next one leaves by its out port
            assert o.lfts[names[step.switch]][step.dest_lid] == step.out_port  # the LFT makes the turn
            assert step.dest_lid == lid_of[step.dest]
            assert step.sl == (1 if cycle.vls == (1,) else 0) and step.vl == step.next_vl == cycle.vls[0]


def test_sl_restriction_and_a_dropped_sl() -> None:
    o = obs("ring_minhop")
    only_vl0 = analyse_ib(o, sls=[0])
    assert only_vl0.sls == [[0]] and len(only_vl0.cycles) == 2
    # ibsw1 sends SL0 from port 5 to port 6 on VL15 (management only): that turn is dropped, one ring breaks
    guid = next(g for g, n in o.nodes.items() if n.description == "ibsw1")
    tables = [
        t.model_copy(update={"vls": [15, *t.vls[1:]]}) if (t.in_port, t.out_port) == (5, 6) else t
        for t in o.sl2vl[guid]
    ]
    broken = analyse_ib(o.model_copy(update={"sl2vl": {**o.sl2vl, guid: tables}}), sls=[0])
    assert len(broken.cycles) == 1
    assert all((s.switch, s.in_port, s.out_port) != ("ibsw1", 5, 6) for s in broken.cycles[0].steps)


def test_a_vl_change_on_one_turn_is_a_dateline_for_that_ring() -> None:
    # ibsw3 moves SL0 from VL0 to VL1 on its 5 -> 6 turn (from ibsw4 towards ibsw2). Only traffic for
    # gpu2 makes that turn, and it leaves the ring at ibsw2: VL1 there waits on nothing. The ring that
    # runs the other way is untouched. (A per-link union of VLs would still see the broken ring.)
    o = obs("ring_minhop")
    guid = next(g for g, n in o.nodes.items() if n.description == "ibsw3")
    tables = [
        t.model_copy(update={"vls": [1, *t.vls[1:]]}) if (t.in_port, t.out_port) == (5, 6) else t for t in o.sl2vl[guid]
    ]
    result = analyse_ib(o.model_copy(update={"sl2vl": {**o.sl2vl, guid: tables}}), sls=[0])
    assert [c.vls for c in result.cycles] == [(0,)]
    assert all((s.switch, s.in_port, s.out_port) != ("ibsw3", 5, 6) for s in result.cycles[0].steps)


def test_missing_switch_table_is_an_error_not_a_guess() -> None:
    o = obs("ring_updn")
    guid = next(g for g, n in o.nodes.items() if n.description == "ibsw2")
    with pytest.raises(IbAnalysisError, match="ibsw2: no SL2VL table"):
        analyse_ib(o.model_copy(update={"sl2vl": {**o.sl2vl, guid: [Sl2Vl(in_port=0, out_port=0, vls=[0] * 16)]}}))


def test_observation_json_round_trip() -> None:
    o = obs("fattree_ftree")
    assert IbObservation.model_validate_json(o.model_dump_json()) == o


def test_find_cycles_generic_entry_point() -> None:
    succ = [[1], [2], [0], [4], [3], [0]]  # a 3-cycle, a 2-cycle, and a node leading into the first
    found = find_cycles(succ)
    assert [comp for comp, _ in found] == [[0, 1, 2], [3, 4]]
    for _, path in found:
        assert all(path[(i + 1) % len(path)] in succ[v] for i, v in enumerate(path))
    assert find_cycles([[1], [2], []]) == []


def test_cli_on_dumps_and_exit_codes(tmp_path: Path) -> None:
    app = make_app()
    runner = CliRunner()
    clean = runner.invoke(app, ["--ib-dump", str(DUMPS / "ring_updn"), "--fail-on-risk"])
    assert clean.exit_code == 0 and "no credit loop" in clean.output
    loop = runner.invoke(app, ["--ib-dump", str(DUMPS / "ring_minhop"), "--format", "json", "--fail-on-risk"])
    assert loop.exit_code == 1
    data = json.loads(loop.output)
    assert data["credit_loop"] and len(data["cycles"]) == 4 and data["routing_engine"] == "minhop"
    assert set(data["cycles"][0]["witness"][0]["because"]) >= {"dest_lid", "dest", "sl", "turn"}
    broken = tmp_path / "dump"
    shutil.copytree(DUMPS / "ring_minhop", broken)
    path = broken / "sl2vl" / "2_5.txt"
    path.write_text(path.read_text(encoding="utf-8").replace("| 0| 1|", "| 0| x|", 1), encoding="utf-8")
    bad = runner.invoke(app, ["--ib-dump", str(broken)])
    assert bad.exit_code == 2 and "sl2vl/2_5.txt" in bad.output and "Traceback" not in bad.output
    both = runner.invoke(app, ["--ib-dump", str(broken), "--ib-lab", "x"])
    assert both.exit_code == 2
