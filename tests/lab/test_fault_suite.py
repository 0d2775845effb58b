"""The fault-injection suite (issue 7's proof): lab-mini pushed to intent validates clean (zero failures);
then every fault class of ``xoff.lab.faults.FAULTS`` is seeded into the running lab the way the mistake
happens, ``xoff validate --lab`` (live: collect + the audit catalog) must fail exactly the fault's check
(plus the checks the registry says rightly fail with it, ``also``) with a finding naming the device, and
the port and priority where they apply, and nothing else may fail; then the fault is undone by its own
undo, and the last test validates clean again (so every undo restored the lab).

Speed: one lab, pushed once. Faults are seeded in rounds: the faults of a round touch disjoint devices
(the device and the link's far end), so every finding of a round is attributed to exactly one fault by
its device, and each fault is judged alone (its devices' failing checks must be exactly its expected
set). That is one live validation per round instead of one per fault.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff import api
from xoff.lab.faults import FAULTS, Fault, Lab
from xoff.lab.faults.cli import fault_command
from xoff.lab.faults.record import WATCH
from xoff.report.machine import json_report

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"fs{os.getpid()}"


def _devices(f: Fault) -> set[str]:
    return {f.target.device, *f.peers}


def rounds(faults: list[Fault]) -> list[list[Fault]]:
    """Greedy: each fault into the first round whose faults touch none of its devices."""
    out: list[tuple[set[str], list[Fault]]] = []
    for f in faults:
        slot = next((r for r in out if not r[0] & _devices(f)), None)
        if slot is None:
            slot = (set(), [])
            out.append(slot)
        slot[0].update(_devices(f))
        slot[1].append(f)
    return [r[1] for r in out]


# the InfiniBand ones: test_fault_suite_ib.py; the ones only xoff watch judges (check watch.*): test_watch_faults.py
ROUNDS = rounds([f for f in FAULTS.values() if f.lab == "lab-mini" and not f.check.startswith(WATCH)])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with running_lab(INTENT, LAB, prefix="xoff-faults-labs-"):
        backups = tmp_path_factory.mktemp("backups")
        summary = api.push(INTENT, api.PushOptions(lab=LAB, backup_dir=backups)).summary
        assert summary.exit_status == 0, [r for r in summary.results if r.error][:3]
        yield Lab(LAB)


def validate() -> tuple[int, dict[str, Any]]:
    """``xoff validate lab-mini --lab LAB --catalog audit -f json`` (live), through ``xoff.api``: the exit
    status the command would give (0 clean, 1 findings) and its JSON report."""
    result = api.validate(INTENT, api.ValidateOptions(lab=LAB, catalog="audit"))
    assert not result.not_collected, result.validation.snapshot.errors if result.validation.snapshot else None
    return int(result.blocking), json.loads(json_report(result.validation))


def failing(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc["results"] if r["status"] not in ("success", "skipped")]


def test_clean_lab_after_push_has_zero_failures(lab: Lab) -> None:
    status, doc = validate()
    assert status == 0 and failing(doc) == [], failing(doc)[:5]
    assert doc["summary"]["failure"] == 0 and doc["summary"]["error"] == 0
    assert doc["summary"]["success"] >= 20  # everything that applies to lab-mini ran (the IB checks skip)
    # deadlock.cbd judged the FIBs the switches really installed (SONiC, EOS, Cumulus), not the model
    (cbd,) = [r for r in doc["results"] if r["check"] == "deadlock.cbd"]
    assert cbd["status"] == "success", cbd
    assert cbd["message"].startswith("baseline: forwarding from the collected FIBs of 5 switches"), cbd


def _judge(f: Fault, rows: list[dict[str, Any]]) -> list[str]:
    """What is wrong with fault ``f``'s findings (empty: caught exactly as the registry says)."""
    problems = []
    mine = [r for r in rows if r["device"] in _devices(f)]
    got = {r["check"] for r in mine}
    want = {f.check, *f.also}
    if got != want:
        problems.append(f"{f.name}: failing checks {sorted(got)}, expected exactly {sorted(want)}")
    t = f.target
    primary = [r for r in mine if r["check"] == f.check and r["device"] == t.device]
    named = [
        r
        for r in primary
        if ("port" not in f.names or r["port"] == t.port) and ("priority" not in f.names or r["priority"] == t.priority)
    ]
    if not named:
        shown = [(r["device"], r["port"], r["priority"], r["message"]) for r in primary] or "no finding"
        problems.append(f"{f.name}: no {f.check} finding naming {t} ({' '.join(f.names)}): {shown}")
    for text in f.mentions:  # e.g. which branch of the check caught it
        if not any(text in r["message"] for r in primary):
            problems.append(f"{f.name}: no {f.check} finding mentions {text!r}")
    if f.warning:
        severities = {r["severity"] for r in mine if r["check"] == f.check}
        if severities != {"warning"}:
            problems.append(f"{f.name}: {f.check} should fail as a warning, got {severities}")
    return problems


@pytest.mark.parametrize("faults", ROUNDS, ids=[f"round{i}" for i in range(len(ROUNDS))])
def test_each_fault_is_caught_by_its_check_alone(lab: Lab, faults: list[Fault]) -> None:
    seeded: list[Fault] = []
    try:
        for f in faults:
            f.seed(lab, f.target)
            seeded.append(f)
        _, doc = validate()
    finally:
        for f in reversed(seeded):
            f.undo(lab, f.target)
    rows = failing(doc)
    owned = set().union(*(_devices(f) for f in faults))
    stray = [(r["check"], r["device"], r["message"]) for r in rows if r["device"] not in owned]
    problems = [f"findings no seeded fault explains: {stray[:5]}"] if stray else []
    for f in faults:
        problems += _judge(f, rows)
    assert not problems, "\n".join(problems)


def test_lab_fault_cli_lists_and_seeds(lab: Lab) -> None:
    app = typer.Typer()
    app.command()(fault_command)
    listed = CliRunner().invoke(app, ["--list"])
    assert listed.exit_code == 0 and all(f"{name} " in listed.stdout for name in FAULTS)
    wrong = CliRunner().invoke(app, ["host-mtu-low", "leaf1", "Ethernet0", "--name", LAB])
    assert wrong.exit_code == 2 and "seeded on linux devices; leaf1 is sonic" in wrong.stderr
    seeded = CliRunner().invoke(app, ["host-mtu-low", "gpu2", "eth0", "--lab", LAB])  # --lab: --name's alias
    undo = ["host-mtu-low", "gpu2", "eth0", "--name", LAB, "--undo"]
    try:
        assert seeded.exit_code == 0, seeded.stdout + seeded.stderr
        assert "caught by lossless.host_mtu" in seeded.stdout
        pasted = shlex.split(seeded.stdout.rsplit("undo: ", 1)[1])  # the undo line, as a user pastes it
        assert pasted[:3] == ["xoff", "lab", "fault"]
        undo = pasted[3:]
        _, doc = validate()
        assert {(r["check"], r["device"], r["port"]) for r in failing(doc) if r["check"] != "drift.state"} == {
            ("lossless.host_mtu", "gpu2", "eth0")
        }
    finally:
        undone = CliRunner().invoke(app, undo)
    assert undo == ["host-mtu-low", "gpu2", "eth0", "--undo", "--name", LAB]
    assert undone.exit_code == 0, undone.stdout + undone.stderr


def test_every_undo_restored_the_lab(lab: Lab) -> None:
    """Last: after every fault and its undo, the lab validates clean again."""
    deadline = time.monotonic() + SETTLE_S  # LLDP and BGP settle within a few seconds of an undo
    while True:
        status, doc = validate()
        if status == 0 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert status == 0 and failing(doc) == [], failing(doc)[:5]
