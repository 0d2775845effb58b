"""``xoff validate --baseline SNAP``: only findings new since the accepted baseline are reported (keyed by check id,
device and subject, not message text); the baseline's findings that are gone are listed as resolved, those still
present counted; the exit status judges only the new ones; every report format says so.

Baseline and current snapshots are ``validate.mirror`` copies of lab-mini's desired state with a drift edited in."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.paths import INVENTORY
from xoff import api
from xoff.audit.baseline import key
from xoff.cli import app
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import Finding, Status

LAB_MINI = INVENTORY / "lab-mini"
Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def clean() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(mirror_snapshot(build_fabric_state(load_intent(LAB_MINI))).model_dump_json())
    return data


def _dscp(d: dict[str, Any]) -> None:  # the known drift the team inherited
    d["observed"]["devices"]["leaf1"]["qos"]["dscp_to_tc"]["26"] = 0


def _mtu(d: dict[str, Any]) -> None:  # the new one
    d["observed"]["devices"]["spine1"]["interfaces"]["Ethernet0"]["mtu"] = 1500


def _write(tmp_path: Path, name: str, clean: dict[str, Any], *edits: Edit) -> Path:
    data = json.loads(json.dumps(clean))
    for edit in edits:
        edit(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _drift(result: api.ValidateResult) -> list[str]:
    (drift,) = [r for r in result.validation.results if r.id == "drift.state"]
    return [f.object for f in drift.findings]


def test_only_new_findings_are_reported(clean: dict[str, Any], tmp_path: Path) -> None:
    base = _write(tmp_path, "base", clean, _dscp)
    now = _write(tmp_path, "now", clean, _dscp, _mtu)
    plain = api.validate(LAB_MINI, api.ValidateOptions(snapshot=now, catalog="audit"))
    assert {o.split(".")[0] for o in _drift(plain)} >= {"qos", "interfaces"}
    result = api.validate(LAB_MINI, api.ValidateOptions(snapshot=now, catalog="audit", baseline=base))
    assert all(o.startswith("interfaces.Ethernet0") for o in _drift(result)) and _drift(result)
    outcome = result.validation.baseline
    assert outcome is not None and outcome.resolved == [] and outcome.still_present >= 1 and outcome.new >= 1
    assert result.blocking


def test_accepted_only_passes_and_resolved_are_listed(clean: dict[str, Any], tmp_path: Path) -> None:
    base = _write(tmp_path, "base", clean, _dscp)
    same = api.validate(LAB_MINI, api.ValidateOptions(snapshot=base, catalog="audit", baseline=base))
    (drift,) = [r for r in same.validation.results if r.id == "drift.state"]
    assert drift.status is Status.SUCCESS and "still present" in (drift.message or "")
    assert not same.blocking
    fixed = _write(tmp_path, "fixed", clean)
    result = api.validate(LAB_MINI, api.ValidateOptions(snapshot=fixed, catalog="audit", baseline=base))
    outcome = result.validation.baseline
    assert outcome is not None and outcome.new == 0 and outcome.still_present == 0
    assert {r.device for r in outcome.resolved} == {"leaf1"}  # the DSCP drift, and the checks that see it too
    assert "drift.state" in {r.check for r in outcome.resolved} and not result.blocking


def test_key_is_not_the_message() -> None:
    a = Finding("leaf1", "Ethernet0 PG 3", "headroom too small", "1000", "900", "Ethernet0", 3)
    b = Finding("leaf1", "Ethernet0 PG 3", "headroom too small by 200 bytes", "1100", "900", "Ethernet0", 3)
    assert (
        key("buffers.headroom", a)
        == key("buffers.headroom", b)
        == ("buffers.headroom", "leaf1", "Ethernet0 PG 3 priority 3")
    )
    assert key("buffers.headroom", a) != key("buffers.headroom", Finding("leaf2", "Ethernet0 PG 3", "x"))


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "markdown", "html"])
def test_every_format_says_the_baseline(clean: dict[str, Any], tmp_path: Path, fmt: str) -> None:
    base = _write(tmp_path, "base", clean, _dscp)
    now = _write(tmp_path, "now", clean, _mtu)  # the old drift fixed, a new one
    args = ["validate", str(LAB_MINI), "--snapshot", str(now), "--catalog", "audit", "--baseline", str(base)]
    out = CliRunner().invoke(app, [*args, "--format", fmt])
    assert out.exit_code == 1, out.output
    text = out.output
    if fmt == "json":
        doc = json.loads(text)["baseline"]
        assert doc["snapshot"] == str(base) and doc["resolved"] and doc["new"] >= 1
    elif fmt == "junit":
        assert '<property name="baseline_resolved" value="' in text
    else:
        assert f"baseline {base}" in text and "resolved: drift.state: leaf1: qos.dscp_to_tc" in text


def test_baseline_needs_observed_state(clean: dict[str, Any], tmp_path: Path) -> None:
    base = _write(tmp_path, "base", clean)
    out = CliRunner().invoke(app, ["validate", str(LAB_MINI), "--offline", "--baseline", str(base)])
    assert out.exit_code == 2 and "--baseline compares observed state" in out.output
    other = _write(tmp_path, "other", {**clean, "fabric": "elsewhere"})
    out = CliRunner().invoke(app, ["validate", str(LAB_MINI), "--snapshot", str(base), "--baseline", str(other)])
    assert out.exit_code == 2 and f"{other}:1:1: fabric: snapshot of fabric 'elsewhere'" in out.output


def _leaf1_unread(d: dict[str, Any]) -> None:  # leaf1 unreachable at the second collect
    del d["observed"]["devices"]["leaf1"]
    d["observed_fields"].pop("leaf1", None)
    d["errors"].append({"device": "leaf1", "command": None, "kind": "unreachable", "message": "timed out"})


def test_a_finding_of_a_device_not_read_now_is_not_resolved(clean: dict[str, Any], tmp_path: Path) -> None:
    base = _write(tmp_path, "base", clean, _dscp)
    unread = _write(tmp_path, "unread", clean, _leaf1_unread)
    result = api.validate(LAB_MINI, api.ValidateOptions(snapshot=unread, catalog="audit", baseline=base))
    outcome = result.validation.baseline
    assert outcome is not None and outcome.resolved == [] and outcome.not_judged >= 1
    assert any("not judged now" in line for line in outcome.lines(None))
