"""Audit over time against the lab (issue 16 item 2): one lab-mini lab, pushed once, with a drift the team inherited
(gpu1's eth1 MTU lowered); collect snapshot A; seed a new fault (leaf2 maps the RoCE DSCP off its lossless class,
``xoff lab fault``); collect snapshot B. ``xoff diff A B`` names the changed value and its device, and says the two
collects were of the same intent by the same xoff; ``xoff validate --baseline A`` (on snapshot B, and live on the lab)
reports only the new fault, counting the inherited one as still present.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff import api
from xoff.cli import app
from xoff.intent.fingerprint import intent_sha256

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"au{os.getpid()}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_lab(INTENT, LAB, prefix="xoff-audit-labs-"):
        summary = api.push(INTENT, api.PushOptions(lab=LAB, backup_dir=tmp_path_factory.mktemp("backups"))).summary
        assert summary.exit_status == 0, [r for r in summary.results if r.error][:3]
        yield LAB


def _xoff(*args: str) -> tuple[int, str]:
    out = CliRunner().invoke(app, list(args))
    return out.exit_code, out.output


def _settled_collect(path: Path) -> dict[str, Any]:
    """``xoff collect --lab`` until every device is read and every BGP session is Established (it settles after push)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        code, output = _xoff("collect", str(INTENT), "--lab", LAB, "-o", str(path), "-q")
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        states = {s["state"] for v in data.get("bgp_sessions", {}).values() for s in v}
        if (code == 0 and states == {"Established"}) or time.monotonic() > deadline:
            assert code == 0 and states == {"Established"}, (output, states)
            return data
        time.sleep(1)


def _fault(*args: str) -> None:
    code, output = _xoff("lab", "fault", *args, "--lab", LAB)
    assert code == 0, output


def _failing(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(r["check"], r["device"]) for r in doc["results"] if r["status"] == "failure"}


def test_diff_and_baseline_see_only_the_new_fault(lab: str, tmp_path: Path) -> None:
    _fault("host-mtu-low", "gpu1", "eth1")  # the drift the team inherited
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    first = _settled_collect(a)
    assert first["intent_sha256"] == intent_sha256(INTENT) and first["xoff_version"]
    _fault("dscp-map-one-hop", "leaf2")
    _settled_collect(b)

    code, output = _xoff("diff", str(a), str(b), "--format", "json")
    assert code == 1, output
    doc = json.loads(output)
    assert doc["headline"] == []  # the same intent, the same xoff
    values = [c for c in doc["changes"] if c["section"] == "values"]
    assert {c["device"] for c in values} == {"leaf2"}, values
    assert any(c["subject"].startswith("qos.dscp_to_tc.") and c["what"] == "changed" for c in values), values
    code, text = _xoff("diff", str(a), str(b))
    assert code == 1 and "leaf2: qos.dscp_to_tc." in text

    code, output = _xoff("validate", str(INTENT), "--snapshot", str(a), "--catalog", "audit", "--format", "json")
    assert code == 1 and ("lossless.host_mtu", "gpu1") in _failing(json.loads(output))  # the inherited drift
    for mode in (["--snapshot", str(b)], ["--lab", LAB]):
        code, output = _xoff("validate", str(INTENT), *mode, "--catalog", "audit", "--baseline", str(a), "-f", "json")
        assert code == 1, output[-2000:]
        report = json.loads(output)
        failing = _failing(report)
        assert {d for _, d in failing} == {"leaf2"} and ("lossless.qos_mapping", "leaf2") in failing, (mode, failing)
        baseline = report["baseline"]
        assert baseline["still_present"] >= 1 and baseline["resolved"] == [] and baseline["new"] >= 1, baseline
