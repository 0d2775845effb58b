"""Snapshots carry the intent they were collected under (``xoff.intent.fingerprint``) and the xoff that read them, set
by collect; an old snapshot without them still loads ("not recorded"); every report format says what the judged
snapshot was collected under, the HTML report in its header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.report.test_html_audit import parse
from tests.support.paths import INVENTORY
from xoff import __version__, api
from xoff.intent import load_intent
from xoff.intent.fingerprint import document_sha256, intent_sha256
from xoff.report.html import html_report
from xoff.report.machine import json_report, junit_report
from xoff.report.meta import intent_hash
from xoff.report.people import markdown_report
from xoff.validate.run import read_snapshot

LAB_MINI = INVENTORY / "lab-mini"


def test_fingerprint_is_the_reports_intent_hash_and_tells_intents_apart() -> None:
    intent = load_intent(LAB_MINI)
    digest = intent_sha256(LAB_MINI)
    assert digest == document_sha256(intent) == intent_hash(intent) and digest.startswith("sha256:")
    assert intent_sha256(INVENTORY / "roce-pod") != digest


def test_collect_stamps_the_snapshot(tmp_path: Path) -> None:
    (tmp_path / "captures").mkdir()
    out = tmp_path / "snap.json"
    api.collect(LAB_MINI, api.CollectOptions(from_captures=tmp_path / "captures", output=out))
    snap = read_snapshot(out)
    assert snap.intent_sha256 == intent_sha256(LAB_MINI) and snap.xoff_version == __version__


@pytest.fixture(scope="module")
def old_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot written before the fields existed (keys absent)."""
    folder = tmp_path_factory.mktemp("old")
    (folder / "captures").mkdir()
    new = folder / "new.json"
    api.collect(LAB_MINI, api.CollectOptions(from_captures=folder / "captures", output=new))
    data: dict[str, Any] = json.loads(new.read_text(encoding="utf-8"))
    del data["intent_sha256"], data["xoff_version"]
    old = folder / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    return old


def _header(page: str) -> dict[str, str]:
    rows = parse(page).one("table", id="meta").all("tr")
    out = {}
    for tr in rows:
        cells = [c for c in tr.children if c.tag in ("th", "td")]
        out.update({th.content: td.content for th, td in zip(cells[::2], cells[1::2], strict=True)})
    return out


def test_old_snapshot_loads_and_reports_say_not_recorded(old_file: Path) -> None:
    snap = read_snapshot(old_file)
    assert snap.intent_sha256 is None and snap.xoff_version is None
    validation = api.validate(LAB_MINI, api.ValidateOptions(snapshot=old_file)).validation
    header = _header(html_report(validation))
    assert header["collected under"] == "intent not recorded" and header["by xoff"] == "not recorded"
    doc = json.loads(json_report(validation))
    assert doc["snapshot_intent_hash"] is None and doc["snapshot_xoff_version"] is None
    assert "under intent not recorded, xoff not recorded" in markdown_report(validation)


def test_reports_say_whether_the_snapshot_is_of_the_intent_judged(old_file: Path, tmp_path: Path) -> None:
    data = json.loads(old_file.read_text(encoding="utf-8"))
    same = tmp_path / "same.json"
    same.write_text(json.dumps({**data, "intent_sha256": intent_sha256(LAB_MINI), "xoff_version": "0.0.9"}))
    validation = api.validate(LAB_MINI, api.ValidateOptions(snapshot=same)).validation
    header = _header(html_report(validation))
    assert header["collected under"] == f"intent {intent_sha256(LAB_MINI)} (the intent judged)"
    assert header["by xoff"] == "0.0.9"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**data, "intent_sha256": "sha256:" + "0" * 64, "xoff_version": "0.0.9"}))
    validation = api.validate(LAB_MINI, api.ValidateOptions(snapshot=other)).validation
    assert "(not the intent judged)" in _header(html_report(validation))["collected under"]
    assert '<property name="snapshot_intent_hash" value="sha256:000' in junit_report(validation)
    assert json.loads(json_report(validation))["snapshot_xoff_version"] == "0.0.9"
