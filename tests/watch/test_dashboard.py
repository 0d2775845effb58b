"""The Grafana dashboard: fresh, type-checked against Grafana's published types, and its PromQL parsed by promtool.

Always run: ``tsc`` against Grafana's TypeScript types from npm (``@grafana/schema``: the dashboard and the panel
options; ``@grafana/grafana-foundation-sdk``: the Prometheus query), which ``make grafana-types`` installs into the
venv (``tests/support/grafana_tsc.py``; missing, the test fails and says how to install them), and the Python SDK's
model round trip. An optional extra, skipped without its files: Grafana's dashboard JSON schema as the
grafana-foundation-sdk repository publishes it (``jsonschema/*.jsonschema.json``, generated from Grafana's CUE kinds),
which no package on PyPI, Debian or npm ships, read from ``$XOFF_GRAFANA_SCHEMA_DIR`` or ``../shared/schemas/grafana``.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard
from jsonschema import Draft7Validator

from tests.support.grafana_tsc import ENV as TYPES_ENV
from tests.support.grafana_tsc import tsc_errors, types_dir
from xoff.watch.dashboard import dashboard, queries, render
from xoff.watch.exporter import META
from xoff.watch.metrics import METRICS

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "xoff.json"
SCHEMA_ENV = "XOFF_GRAFANA_SCHEMA_DIR"
SCHEMA_DIRS = tuple(
    dict.fromkeys((ROOT.parent / "shared" / "schemas" / "grafana", Path("/work/shared/schemas/grafana")))
)
PANEL_KINDS = ("timeseries", "stat", "table")


def schema_dir() -> Path:
    env = os.environ.get(SCHEMA_ENV)
    candidates = (Path(env),) if env else SCHEMA_DIRS
    for candidate in candidates:
        if (candidate / "dashboard.jsonschema.json").is_file():
            return candidate
    pytest.skip(
        f"Grafana's dashboard JSON schema not found (looked in {', '.join(map(str, candidates))}): set {SCHEMA_ENV} to "
        "a copy of grafana-foundation-sdk's jsonschema/ directory"
    )


def schema_errors(doc: dict[str, Any], where: Path) -> list[str]:
    def load(name: str) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((where / f"{name}.jsonschema.json").read_text(encoding="utf-8"))
        return loaded

    found = [
        f"dashboard {list(e.absolute_path)}: {e.message}" for e in Draft7Validator(load("dashboard")).iter_errors(doc)
    ]
    query = Draft7Validator(load("prometheus"))
    for kind in PANEL_KINDS:
        options = Draft7Validator({**load(kind), "$ref": "#/definitions/Options"})
        for panel in (p for p in doc["panels"] if p["type"] == kind):
            found += [f"{panel['title']} options: {e.message}" for e in options.iter_errors(panel["options"])]
    for panel in doc["panels"]:
        for target in panel.get("targets", ()):
            found += [f"{panel['title']} {target['refId']}: {e.message}" for e in query.iter_errors(target)]
    return found


def test_the_dashboard_file_is_fresh() -> None:
    assert DASHBOARD.read_text(encoding="utf-8") == render(), (
        "run: python -m xoff.watch.dashboard -o deploy/grafana/xoff.json"
    )


def grafana_types() -> Path:
    where = types_dir()
    if where is None:
        pytest.fail(f"Grafana's TypeScript types not installed: run `make grafana-types` (or set {TYPES_ENV})")
    return where


def test_grafanas_typescript_types_accept_the_dashboard(tmp_path: Path) -> None:
    assert tsc_errors(json.loads(DASHBOARD.read_text(encoding="utf-8")), grafana_types(), tmp_path) == []


def test_the_type_check_is_not_vacuous(tmp_path: Path) -> None:
    """Each kind of mistake Grafana's types catch, one per part of the dashboard, is reported where it is."""
    broken = copy.deepcopy(dashboard())
    broken["graphTooltip"] = 7  # not a DashboardCursorSync
    broken["templating"]["list"][1]["refreshh"] = 1  # a variable's unknown key
    row = next(p for p in broken["panels"] if p["type"] == "row")
    del row["collapsed"]  # required of a row
    stat = next(p for p in broken["panels"] if p["type"] == "stat")
    stat["options"]["colorMode"] = "rainbow"  # outside the stat panel's BigValueColorMode
    series = next(p for p in broken["panels"] if p["type"] == "timeseries")
    series["targets"][0]["expresion"] = "typo"  # not a field of the Prometheus query
    series["options"]["legend"]["placement"] = 3  # a string enumeration given a number
    errors = "\n".join(tsc_errors(broken, grafana_types(), tmp_path))
    for needle in ("'7'", "refreshh", "'collapsed' is missing", '"rainbow"', "expresion", "placement"):
        assert needle in errors, (needle, errors)


def test_valid_against_grafanas_schema() -> None:
    assert schema_errors(json.loads(DASHBOARD.read_text(encoding="utf-8")), schema_dir()) == []


def test_the_schema_check_is_not_vacuous() -> None:
    where = schema_dir()
    broken = copy.deepcopy(dashboard())
    broken["panels"][1]["options"]["colorMode"] = "rainbow"  # a stat panel
    del broken["templating"]
    broken["panels"][2]["targets"][0]["expresion"] = "typo"
    errors = schema_errors(broken, where)
    assert any("templating" in e for e in errors)
    assert any("rainbow" in e for e in errors)
    assert any("expresion" in e for e in errors)


def test_the_three_views_and_unique_ids() -> None:
    doc = dashboard()
    rows = [p["title"] for p in doc["panels"] if p["type"] == "row"]
    assert rows == ["Fabric overview", "Per-hop lossless map", "Port drill-down: $device $port"]
    ids = [p["id"] for p in doc["panels"]]
    assert len(ids) == len(set(ids))
    assert all(p["gridPos"]["x"] + p["gridPos"]["w"] <= 24 for p in doc["panels"])


def test_every_query_names_known_metrics() -> None:
    known = set(METRICS) | set(META) | {"ALERTS"}
    for expr in queries(dashboard()):
        names = set(re.findall(r"\b(xoff_[a-z_]+|ALERTS)\b", expr))
        assert names, expr
        assert names <= known, (expr, names - known)


def test_promtool_parses_every_query(tmp_path: Path) -> None:
    """Each query, with Grafana's variables set as Grafana would, is a valid PromQL expression (a recording rule)."""
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool not found: install Debian package prometheus (make system-deps)")
    rules = [
        {"record": f"xoff:dashboard_query_{i}", "expr": grafana_expanded(q)}
        for i, q in enumerate(queries(dashboard()))
        if not q.startswith("label_values(")
    ]
    path = tmp_path / "queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}), encoding="utf-8")
    result = subprocess.run(
        [tool, "check", "rules", str(path)], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


def grafana_expanded(expr: str) -> str:
    return expr.replace("$__rate_interval", "1m").replace("$device", "leaf1").replace("$port", ".*")


def _dropped(given: Any, kept: Any, path: str = "") -> list[str]:
    """Where ``kept`` (the dashboard after Grafana's models read it) lost or changed something of ``given``."""
    if isinstance(given, dict):
        if not isinstance(kept, dict):
            return [f"{path}: read as {type(kept).__name__}"]
        out = [f"{path}.{k}: not a field of Grafana's model" for k in given if k not in kept]
        return out + [e for k in given if k in kept for e in _dropped(given[k], kept[k], f"{path}.{k}")]
    if isinstance(given, list):
        if not isinstance(kept, list) or len(given) != len(kept):
            return [f"{path}: list read differently"]
        return [e for i, (a, b) in enumerate(zip(given, kept, strict=True)) for e in _dropped(a, b, f"{path}[{i}]")]
    return [] if given == kept else [f"{path}: {given!r} read as {kept!r}"]


def test_grafanas_own_models_read_every_field() -> None:
    """Grafana's dashboard models (grafana-foundation-sdk, generated from Grafana's schema, installed from PyPI with
    the dev extras) read the dashboard and write it back with nothing lost or changed: every key is a field Grafana
    knows, every value of the type it expects. This one needs no schema files, so it always runs."""
    given = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    kept = json.loads(json.dumps(Dashboard.from_json(given), cls=JSONEncoder))
    assert _dropped(given, kept) == []
    broken = copy.deepcopy(given)
    broken["templating"]["list"][0]["definitionz"] = "x"  # the comparison sees an unknown key
    assert _dropped(broken, json.loads(json.dumps(Dashboard.from_json(broken), cls=JSONEncoder)))
