"""The InfiniBand half of the fault-injection suite (issue 7's proof): the ib-ring lab (ibsim carrying the
intent's fabric, the real OpenSM routing it, the real infiniband-diags reading it back) validates with
every InfiniBand check passing; then every InfiniBand fault class of ``xoff.lab.seed.FAULTS`` is seeded
on the SM host the way it happens (OpenSM's files and a SIGHUP or restart, ``ibportstate``), and
``xoff validate --lab`` (live: collect, then the audit catalog) must fail exactly the fault's check (and
the checks the registry says rightly fail with it), with a finding naming the device, the port where it
applies, and the SL/VL or the credit loop; the last test validates clean again.

The lab's hosts have no IPoIB netdev and are not pushed, so drift.state fails on them on the clean lab
too: the judge compares each round against the clean lab's failures and requires that nothing else
fails. Faults are seeded in rounds of faults whose checks are disjoint (one live validation per round).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from xoff.lab import names, netns
from xoff.lab.lab import LabError, up
from xoff.lab.seed import FAULTS, Fault, Lab
from xoff.lab.teardown import down
from xoff.validate.cli import validate_command

pytestmark = pytest.mark.lab
INTENT = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "intents" / "ib-ring"
LAB = f"fi{os.getpid()}"
IB_FAULTS = [f for f in FAULTS.values() if f.lab == "ib-ring"]


def _checks(f: Fault) -> set[str]:
    return {f.check, *f.also}


def rounds(faults: list[Fault]) -> list[list[Fault]]:
    """Greedy: each fault into the first round whose faults fail none of its checks."""
    out: list[tuple[set[str], list[Fault]]] = []
    for f in faults:
        slot = next((r for r in out if not r[0] & _checks(f)), None)
        if slot is None:
            slot = (set(), [])
            out.append(slot)
        slot[0].update(_checks(f))
        slot[1].append(f)
    return [r[1] for r in out]


ROUNDS = rounds(IB_FAULTS)


def validate() -> dict[str, Any]:
    """``xoff validate ib-ring --lab LAB --catalog audit -f json`` (live), in-process."""
    app = typer.Typer()
    app.command()(validate_command)
    result = CliRunner().invoke(app, [str(INTENT), "--lab", LAB, "--catalog", "audit", "-f", "json"])
    assert result.exit_code in (0, 1), result.stdout[-3000:]
    doc: dict[str, Any] = json.loads(result.stdout[result.stdout.index("{") :])
    return doc


def _key(r: dict[str, Any]) -> tuple[str, str | None, str | None, str]:
    return r["check"], r["device"], r["port"], r["message"]


def failing(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc["results"] if r["status"] not in ("success", "skipped")]


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[Lab, set[tuple[str, str | None, str | None, str]]]]:
    root = Path(tempfile.mkdtemp(prefix="xoff-ibfaults-"))
    root.chmod(0o755)
    old = os.environ.get("XOFF_LAB_DIR")
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        up(INTENT, LAB, remap_addresses=True)
        clean = validate()
        yield Lab(LAB), {_key(r) for r in failing(clean)}
    finally:
        with contextlib.suppress(LabError):
            down(LAB)
        assert netns.names(names.namespace_prefix(LAB)) == []
        shutil.rmtree(root, ignore_errors=True)
        if old is None:
            os.environ.pop("XOFF_LAB_DIR", None)
        else:
            os.environ["XOFF_LAB_DIR"] = old


def test_every_ib_fault_class_is_in_a_round() -> None:
    assert sorted(f.name for r in ROUNDS for f in r) == sorted(f.name for f in IB_FAULTS)
    assert {f.check for f in IB_FAULTS} == {
        "infiniband.routing_deadlock_free",
        "infiniband.sl_vl_weight",
        "infiniband.partitions",
        "infiniband.link_width_speed",
        "infiniband.lft_routes",
    }


def test_clean_ib_lab_passes_every_infiniband_check(lab: tuple[Lab, set[Any]]) -> None:
    _, baseline = lab
    doc = validate()
    ib = {r["check"]: r["status"] for r in doc["results"] if r["check"].startswith("infiniband.")}
    assert ib == dict.fromkeys(sorted({f.check for f in IB_FAULTS}), "success"), ib
    # what fails on the clean lab is the hosts' drift only (no IPoIB netdev, hosts not pushed)
    assert baseline and {c for c, *_ in baseline} == {"drift.state"}
    assert {d for _, d, _, _ in baseline} <= {"gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01"}


def _judge(f: Fault, rows: list[dict[str, Any]]) -> list[str]:
    """What is wrong with fault ``f``'s findings among the round's new failures (empty: caught as the registry says)."""
    mine = [r for r in rows if r["check"] in _checks(f)]
    problems = []
    t = f.target
    primary = [r for r in mine if r["check"] == f.check]
    named = [
        r
        for r in primary
        if r["device"] == t.device
        and ("port" not in f.names or r["port"] == t.port)
        and ("priority" not in f.names or r["priority"] == t.priority)
    ]
    if not named:
        shown = [(r["device"], r["port"], r["message"]) for r in primary][:5] or "no finding"
        problems.append(f"{f.name}: no {f.check} finding naming {t} ({' '.join(f.names)}): {shown}")
    for text in f.mentions:
        if not any(text in r["message"] for r in primary):
            problems.append(f"{f.name}: no {f.check} finding mentions {text!r}")
    for also in f.also:
        if not any(r["check"] == also for r in mine):
            problems.append(f"{f.name}: {also} should fail with it ({f.why_also})")
    return problems


@pytest.mark.parametrize("faults", ROUNDS, ids=["+".join(f.name for f in r) for r in ROUNDS])
def test_each_ib_fault_is_caught_by_its_check_alone(lab: tuple[Lab, set[Any]], faults: list[Fault]) -> None:
    running, baseline = lab
    seeded: list[Fault] = []
    try:
        for f in faults:
            f.seed(running, f.target)
            seeded.append(f)
        doc = validate()
    finally:
        for f in reversed(seeded):
            f.undo(running, f.target)
    rows = [r for r in failing(doc) if _key(r) not in baseline]
    expected = set().union(*(_checks(f) for f in faults))
    stray = [(r["check"], r["device"], r["message"]) for r in rows if r["check"] not in expected]
    problems = [f"findings no seeded fault explains: {stray[:5]}"] if stray else []
    for f in faults:
        problems += _judge(f, rows)
    assert not problems, "\n".join(problems)


def test_every_ib_undo_restored_the_lab(lab: tuple[Lab, set[Any]]) -> None:
    """Last: after every fault and its undo, nothing fails that did not fail on the clean lab."""
    _, baseline = lab
    doc = validate()
    assert {_key(r) for r in failing(doc)} == baseline
