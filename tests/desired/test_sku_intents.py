"""Intents that name catalogue SKUs pass ``xoff check`` (issue 15, "Done when").

``skus/th5-spines.yaml``: Tomahawk 5 spines (Arista 7060X6-64PE-B-O128) at 100 m and 300 m. SONiC's table for that
SKU has no 100 m or 300 m row (5, 30, 40, 60, 150, 500 m), nor has ACS-SN5600's a 100 m row (5, 40, 300 m): the
intent asks for the nearest longer cable's row (``cable_rounding: up``), and the plan names the row per profile.

One intent per covered SKU family (ASIC): the shipped SKU of that ASIC whose table is richest, on every switch,
at a speed and cable its table has; the check passes and every profile's source is that SKU's table.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.buffers import catalogue as cat
from xoff.intent.types import SPEEDS_MBPS, speed_label

FABRIC_SPEEDS = frozenset(s for s in SPEEDS_MBPS if s >= 10000)  # the 100M/1G rows are management ports

TH5 = ROOT / "tests" / "fixtures" / "intent" / "skus" / "th5-spines.yaml"
MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
SHIPPED = ROOT / "src" / "xoff" / "data" / "skus"
ROW_TH5 = "Arista-7060X6-64PE-B-O128/pg_profile_lookup.ini row 400000 {row}m (nearest longer cable for {cable} m"


def _xoff(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "400"}
    env.pop(cat.SKU_DIR_ENV, None)
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, env=env, check=False)


def test_th5_spines_at_100_and_300_m_pass_check() -> None:
    r = _xoff("check", str(TH5))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "lossless.headroom" in r.stdout and "intent OK" in r.stdout


@pytest.mark.parametrize(
    ("device", "rows"),
    [
        ("spine1", [ROW_TH5.format(row=150, cable=100)]),
        ("spine2", [ROW_TH5.format(row=500, cable=300)]),
        (
            "leaf1",
            [
                "ACS-SN5600/pg_profile_lookup.ini row 400000 300m (nearest longer cable for 100 m",
                "ACS-SN5600/pg_profile_lookup.ini row 400000 300m",
                "ACS-SN5600/pg_profile_lookup.ini row 400000 5m",
            ],
        ),
    ],
)
def test_plan_text_shows_the_row_per_port(device: str, rows: list[str]) -> None:
    r = _xoff("plan", str(TH5), "--device", device, "--format", "text")
    assert r.returncode == 0, r.stderr
    # the table wraps long cells: drop the rules and blanks, and the cells read on
    flat = "".join(c for c in r.stdout if not c.isspace() and c not in "│┃")
    for row in rows:
        assert row.replace(" ", "") in flat, r.stdout[-3000:]


def _families() -> list[cat.Sku]:
    """Per ASIC, the shipped SKU with the most table rows at speeds an intent can name."""
    best: dict[str, cat.Sku] = {}
    for sku in cat.load_catalogue([SHIPPED]).values():
        rows = [r for r in (sku.lookup.rows if sku.lookup else []) if r.speed in FABRIC_SPEEDS]
        have = best.get(sku.asic)
        count = len([r for r in (have.lookup.rows if have and have.lookup else []) if r.speed in FABRIC_SPEEDS])
        if rows and len(rows) > count:
            best[sku.asic] = sku
    return [best[a] for a in sorted(best)]


def _intent(sku: cat.Sku, tmp_path: Path) -> Path:
    assert sku.lookup is not None
    row = next(r for r in sku.lookup.rows if r.speed in FABRIC_SPEEDS)
    speed = speed_label(row.speed)
    text = MINIMAL.read_text(encoding="utf-8")
    text = text.replace("    asic: spectrum4\n    hwsku: ACS-SN5600\n", f"    sku: {sku.hwsku}\n")
    text = text.replace("speed: 400G", f"speed: {speed}")
    text = text.replace(
        "    pfc_watchdog: {poll_interval_ms: 200, detection_ms: 400, restoration_ms: 800}\n",
        "    pfc_watchdog: {poll_interval_ms: 200, detection_ms: 400, restoration_ms: 800}\n"
        f"    cable_lengths: {{host_leaf: {row.cable_m}, leaf_spine: {row.cable_m}}}\n",
    )
    path = tmp_path / f"{sku.asic}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("sku", _families(), ids=lambda s: f"{s.asic}-{s.hwsku}")
def test_one_intent_per_sku_family_passes_check(sku: cat.Sku, tmp_path: Path) -> None:
    report = api.check(_intent(sku, tmp_path))
    assert not report.failed, [str(f) for r in report.results if r.blocking for f in r.findings][:5]
    headroom = next(r for r in report.results if r.id == "lossless.headroom")
    assert headroom.status.value == "success", headroom
    for dev in report.loaded.state.devices.values():
        if dev.kind == "switch":
            assert dev.buffers is not None and dev.buffers.sku == sku.hwsku
            for profile in dev.buffers.profiles.values():
                assert f"/{sku.hwsku}/" in profile.source or sku.lookup.file in profile.source, profile.source  # type: ignore[union-attr]


def test_every_sku_family_is_covered() -> None:
    asics = {s.asic for s in cat.load_catalogue([SHIPPED]).values() if s.lookup and s.lookup.rows}
    assert {s.asic for s in _families()} == asics
