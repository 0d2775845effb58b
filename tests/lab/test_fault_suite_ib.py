"""The InfiniBand half of the fault-injection suite (issue 7's proof): the ib-ring lab (ibsim carrying the
intent's fabric, the real OpenSM routing it, the real infiniband-diags reading it back), pushed to intent,
validates with zero failures; then every InfiniBand fault class of ``xoff.lab.faults.FAULTS`` is seeded on
the SM host the way it happens (OpenSM's files and a SIGHUP or restart, ``ibportstate``), and ``xoff
validate --lab`` (live: collect, then the audit catalog) must fail exactly the fault's check (and the
checks the registry says rightly fail with it) and nothing else, with a finding naming the device, the
port where it applies, and the SL/VL or the credit loop; the last test validates clean again.

The clean lab is what a real rollout leaves: ``lab up`` gives each host's HCA its IPoIB netdev (``ib0``,
an ifb stand-in with the intent's MTU, read by the real ``ip -j``), and ``xoff push`` installs the hosts'
NCCL environment. Faults are seeded in rounds of faults whose checks are disjoint (one live validation per
round), so every failing check of a round belongs to exactly one fault.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.support.corpus import corpus_shape, covers, jsonable, shape
from tests.support.labs import labs_root, torn_down
from tests.support.paths import ROOT
from xoff.cli.push import push_command
from xoff.cli.validate import validate_command
from xoff.desired.build import build_fabric_state
from xoff.intent import load_intent
from xoff.lab import names, netns
from xoff.lab.faults import FAULTS, Fault, Lab
from xoff.lab.lab import up
from xoff.platforms.infiniband import host as ib_host

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "ib-ring"
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
HOSTS = {"gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01"}


def validate() -> tuple[int, dict[str, Any]]:
    """``xoff validate ib-ring --lab LAB --catalog audit -f json`` (live), in-process. Exit 4 (a command not
    collected) is a result too: a fault that leaves one unread lists ``collect.complete`` among its checks."""
    app = typer.Typer()
    app.command()(validate_command)
    result = CliRunner().invoke(app, [str(INTENT), "--lab", LAB, "--catalog", "audit", "-f", "json"])
    assert result.exit_code in (0, 1, 4), result.stdout[-3000:]
    doc: dict[str, Any] = json.loads(result.stdout[result.stdout.index("{") :])
    return result.exit_code, doc


def failing(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc["results"] if r["status"] not in ("success", "skipped")]


def _push(backups: Path) -> dict[str, Any]:
    """``xoff push ib-ring --lab LAB -f json`` (the hosts: ib-ring's switches are OpenSM's), in-process."""
    app = typer.Typer()
    app.command()(push_command)
    result = CliRunner().invoke(app, [str(INTENT), "--lab", LAB, "-f", "json", "--backup-dir", str(backups)])
    assert result.exit_code == 0, result.stdout[-2000:]
    summary: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return summary


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with labs_root("xoff-ibfaults-"), torn_down(LAB):
        report = up(INTENT, LAB, remap_addresses=True)
        assert report.created["IPoIB stand-ins"] == len(HOSTS)  # one HCA per host: ib0
        summary = _push(tmp_path_factory.mktemp("backups"))
        assert summary["event"] == "summary" and summary["failed"] == 0, summary
        assert {r["device"] for r in summary["results"]} == HOSTS, summary
        yield Lab(LAB)


def test_every_ib_fault_class_is_in_a_round() -> None:
    assert sorted(f.name for r in ROUNDS for f in r) == sorted(f.name for f in IB_FAULTS)
    assert {f.check for f in IB_FAULTS} == {
        "infiniband.routing_deadlock_free",
        "infiniband.sl_vl_weight",
        "infiniband.partitions",
        "infiniband.link_width_speed",
        "infiniband.lft_routes",
        "infiniband.host_ports",
    }


def test_clean_ib_lab_after_push_has_zero_failures(lab: Lab) -> None:
    status, doc = validate()
    assert status == 0 and failing(doc) == [], [(r["check"], r["device"], r["message"]) for r in failing(doc)][:5]
    assert doc["summary"]["failure"] == doc["summary"]["error"] == doc["summary"]["unset"] == 0, doc["summary"]
    statuses = {r["check"]: r["status"] for r in doc["results"]}  # one row per check when nothing fails
    ib = {c: s for c, s in statuses.items() if c.startswith("infiniband.")}
    assert ib == dict.fromkeys(sorted({f.check for f in IB_FAULTS}), "success"), ib
    # the hosts were read and equal the intent: their ib0 (MTU 4092, IPoIB datagram mode) and pushed NCCL environment included
    assert statuses["drift.state"] == "success", statuses
    assert any("IPoIB" in note and "ifb stand-ins" in note for note in doc["notes"]), doc["notes"]
    partitions = next(r for r in doc["results"] if r["check"] == "infiniband.partitions")
    assert "saquery PKeyTableRecord" in partitions["message"], partitions  # the SA's tables, switch ports judged
    assert "switch ports judged" in partitions["message"], partitions
    # every host's ibstat and sminfo read over its own sshd (the real infiniband-diags against ibsim)
    host_ports = next(r for r in doc["results"] if r["check"] == "infiniband.host_ports")
    assert host_ports["message"] == f"{len(HOSTS)} host HCA port(s) judged", host_ports
    skipped = [r for r in doc["results"] if r["status"] == "skipped"]
    assert all(r["message"].strip() for r in skipped), [r["check"] for r in skipped if not r["message"].strip()]


def test_host_ibstat_and_sminfo_over_ssh_have_the_corpus_shape(lab: Lab) -> None:
    """Each host's ibstat and sminfo, read over its sshd (the real infiniband-diags against ibsim), parse and
    have no key or type the real-format corpus lacks (tests/fixtures/real/infiniband/)."""
    for host in sorted(HOSTS):
        text = lab.run(host, "ibstat")
        got = shape(jsonable({"ports": ib_host.ibstat(text), "unmodelled": ib_host.ibstat_unmodelled(text)}))
        assert covers(corpus_shape("infiniband", ib_host.IBSTAT.slug), got) == [], host
        sm = shape(jsonable(ib_host.sminfo(lab.run(host, "sminfo"))))
        assert covers(corpus_shape("infiniband", ib_host.SMINFO.slug), sm) == [], host


def test_ib0_stand_in_is_what_ip_shows(lab: Lab) -> None:
    """The hosts' IPoIB netdev is a real link in their namespace (the collector reads it with ``ip -j``)."""
    for host in sorted(HOSTS):
        shown = json.loads(netns.ip(["-j", "-d", "link", "show", "ib0"], netns=names.namespace(LAB, host)).stdout)
        assert [(i["ifname"], i["mtu"], "UP" in i["flags"], i["linkinfo"]["info_kind"]) for i in shown] == [
            ("ib0", 4092, True, "ifb")
        ], (host, shown)


def test_ib0_mtu_is_read_from_the_host(lab: Lab) -> None:
    """drift.state judges the netdev the host has: an IPoIB MTU other than the intent's is a finding."""
    namespace = names.namespace(LAB, "gpu2")
    netns.ip(["link", "set", "ib0", "mtu", "2044"], netns=namespace)
    try:
        _, doc = validate()
    finally:
        netns.ip(["link", "set", "ib0", "mtu", "4092"], netns=namespace)
    assert sorted((r["check"], r["device"], r["port"], r["expected"], r["actual"]) for r in failing(doc)) == [
        ("drift.state", "gpu2", "ib0", "4092", "2044"),  # host.nics.ib0.mtu
        ("drift.state", "gpu2", "ib0", "4092", "2044"),  # interfaces.ib0.mtu
    ]


def _judge(f: Fault, rows: list[dict[str, Any]]) -> list[str]:
    """What is wrong with fault ``f``'s findings among the round's failures (empty: caught as the registry says)."""
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
def test_each_ib_fault_is_caught_by_its_check_alone(lab: Lab, faults: list[Fault]) -> None:
    seeded: list[Fault] = []
    try:
        for f in faults:
            f.seed(lab, f.target)
            seeded.append(f)
        status, doc = validate()
    finally:
        for f in reversed(seeded):
            f.undo(lab, f.target)
    rows = failing(doc)
    expected = set().union(*(_checks(f) for f in faults))  # disjoint per fault: each check is one fault's
    stray = [(r["check"], r["device"], r["message"]) for r in rows if r["check"] not in expected]
    problems = [f"findings no seeded fault explains: {stray[:5]}"] if stray else []
    missing = expected - {r["check"] for r in rows}
    problems += [f"checks that should fail and did not: {sorted(missing)}"] if missing else []
    for f in faults:
        problems += _judge(f, rows)
    # a command left unread (collect.complete among the checks) exits 4, findings alone exit 1
    assert status == (4 if "collect.complete" in expected else 1) and not problems, "\n".join(problems)


def test_partition_drop_is_read_from_the_sa_on_the_host_and_its_switch_port(lab: Lab) -> None:
    """The host dropped from its partition: its HCA port and the switch port facing it (which OpenSM
    programs to enforce the host's partitions) both lack the PKey in the SA's PKeyTableRecords."""
    fault = FAULTS["ib-partition-drop"]
    t = fault.target
    switch_end = next(
        far
        for lk in build_fabric_state(load_intent(INTENT)).links
        for near, far in ((lk.a, lk.b), (lk.b, lk.a))
        if (near.device, near.port) == (t.device, t.port)
    )
    fault.seed(lab, t)
    try:
        _, doc = validate()
    finally:
        fault.undo(lab, t)
    rows = [(r["check"], r["device"], r["port"], r["expected"], r["actual"]) for r in failing(doc)]
    assert sorted(rows) == sorted(
        [
            ("infiniband.partitions", switch_end.device, switch_end.port, "0x0001", "absent"),
            ("infiniband.partitions", t.device, t.port, "0x8001", "absent"),
        ]
    )


def test_every_ib_undo_restored_the_lab(lab: Lab) -> None:
    """Last: after every fault and its undo, the lab validates clean again."""
    status, doc = validate()
    assert status == 0 and failing(doc) == [], [(r["check"], r["device"], r["message"]) for r in failing(doc)][:5]
