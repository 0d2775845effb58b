"""``xoff deadlock INTENT``: text and JSON reports, exit codes, and the exported snapshot round trip."""

from __future__ import annotations

import json
from pathlib import Path

from deadlock_fabrics import leaf_spine_intent
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.cli.deadlock_intent import make_app
from xoff.deadlock.analysis import analyse
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.deadlock.snapshot_file import load_snapshot
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"
runner = CliRunner()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(make_app(), list(args))


def test_roce_pod_single_failures_text() -> None:
    res = _run(str(INVENTORY / "roce-pod"), "--failures", "1")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "roce-pod / compute: routing bgp, failures up to 1, 256 fabric links"
    assert "    up*/down* certificate holds: no turn goes from a down link to an up link" in lines
    assert lines[-1] == "verdict: no deadlock risk with up to 1 failed link(s) (largest k checked without risk: 1)"


def test_json_report_and_fail_on_risk(tmp_path: Path) -> None:
    intent = tmp_path / "ls.yaml"
    intent.write_text(leaf_spine_intent(4, 2))
    ok = _run(str(intent), "--failures", "2", "--format", "json", "--fail-on-risk")
    assert ok.exit_code == 0, ok.output
    doc = json.loads(ok.stdout)
    assert doc["deadlock_risk"] is False and doc["resilient_to"] == 2 and doc["routing"] == "bgp"
    assert doc["baseline"]["certified"] is True and doc["baseline"]["example_cycle"] == []
    risky = _run(str(intent), "--failures", "2", "--routing", "igp", "-f", "json", "--fail-on-risk")
    assert risky.exit_code == 1
    doc = json.loads(risky.stdout)
    assert doc["deadlock_risk"] is True and doc["resilient_to"] == 1 and len(doc["risky_scenarios"]) == 12
    # without --fail-on-risk the analysis ran, so exit 0
    assert _run(str(intent), "--failures", "2", "--routing", "igp").exit_code == 0


def test_bad_options_and_input_exit_2(tmp_path: Path) -> None:
    pod = str(INVENTORY / "roce-pod")
    res = _run(pod, "--routing", "ospf")
    assert res.exit_code == 2 and "--routing: 'ospf' is not known (allowed: bgp, igp)" in res.output
    res = _run(pod, "--failures", "3")
    assert res.exit_code == 2 and "--failures: 3 is not supported (allowed: 0, 1, 2)" in res.output
    res = _run(pod, "--format", "yaml")
    assert res.exit_code == 2 and "--format: 'yaml' is not known (allowed: text, json)" in res.output
    res = _run(pod, "--network", "mgmt")
    assert res.exit_code == 2 and "--network: no network 'mgmt' in fabric roce-pod" in res.output
    res = _run(str(INVENTORY / "ib-pod"))
    assert res.exit_code == 2 and "infiniband network 'compute'" in res.output
    broken = tmp_path / "bad.yaml"
    broken.write_text("fabric: {name: x}\nbogus: 1\n")
    res = _run(str(broken))
    assert res.exit_code == 2 and "bad.yaml:" in res.output


def test_export_snapshot_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "snap" / "lab-mini.yaml"
    res = _run(str(INVENTORY / "lab-mini"), "--export-snapshot", str(out))
    assert res.exit_code == 0, res.output
    assert f"wrote {out} (baseline forwarding snapshot, 8 destinations)" in res.output
    loaded = load_snapshot(out)
    direct = snapshot_from_fabric(build_fabric_state(load_intent(INVENTORY / "lab-mini")))
    assert loaded.switches == direct.switches and loaded.hosts == direct.hosts and loaded.links == direct.links
    assert {d: dict(f) for d, f in loaded.forwarding.items()} == {d: dict(f) for d, f in direct.forwarding.items()}
    assert loaded.lossless_default == frozenset({3})
    a, b = analyse(loaded), analyse(direct)
    assert not a.deadlock_risk and not b.deadlock_risk and a.counts["edges"] == a.counts["turns"]
    as_json = tmp_path / "lab-mini.json"
    assert _run(str(INVENTORY / "lab-mini"), "--export-snapshot", str(as_json)).exit_code == 0
    assert load_snapshot(as_json).forwarding == loaded.forwarding


def test_workers_give_the_report_of_one_process(tmp_path: Path) -> None:
    intent = tmp_path / "ls.yaml"
    intent.write_text(leaf_spine_intent(6, 4))
    docs = []
    for workers in ("1", "2", "0"):
        res = _run(str(intent), "--failures", "1", "--routing", "igp", "-f", "json", "--workers", workers)
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        doc.pop("seconds")
        docs.append(doc)
    assert docs[0]["levels"]["1"]["checked"] == 24 and docs[1] == docs[0] and docs[2] == docs[0]
    bad = _run(str(intent), "--failures", "1", "--workers", "-1")
    assert bad.exit_code == 2 and "--workers: -1 is negative" in bad.output
