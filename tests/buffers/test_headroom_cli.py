"""``xoff headroom --sku`` (issue 15): the SKU's table row with its threshold, pool and source, or one error line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers import catalogue as cat

FIXTURE = ROOT / "tests" / "fixtures" / "skus" / "arista" / "Arista-7060X6-64PE.yaml"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The fixture SKU under a name no shipped SKU has, in a site directory."""
    text = FIXTURE.read_text(encoding="utf-8").replace("hwsku: Arista-7060X6-64PE", "hwsku: Site-TH5")
    text = text.replace("Arista-7060X6-64PE/", "Site-TH5/")
    (tmp_path / "site.yaml").write_text(text.replace("[7060X6-64PE]", "[site-th5]"), encoding="utf-8")
    return tmp_path


def _xoff(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), cat.SKU_DIR_ENV: str(site), "COLUMNS": "300"}
    return subprocess.run(
        [sys.executable, "-m", "xoff", "headroom", *args], capture_output=True, text=True, env=env, check=False
    )


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (
            ("--sku", "SITE-th5", "--speed", "800G", "--cable", "300m"),
            {"sku": "Site-TH5", "asic": "tomahawk5", "xon": 0, "xoff": 1200000, "size": 18796, "dynamic_th": -2,
             "xon_offset": 3556, "pool": "ingress_lossless_pool", "profile": "pg_lossless_800000_300m_profile"},
        ),
        (
            ("--sku", "site-th5", "--speed", "400G", "--cable", "30m", "--cable-rounding", "up"),
            {"xoff": 612140, "cable_m": 30, "profile": "pg_lossless_400000_30m_profile"},
        ),
        (
            ("--asic", "sp4", "--speed", "400G", "--cable", "30m", "--model", "dynamic", "--dynamic-th", "-1"),
            {"sku": None, "asic": "spectrum4", "dynamic_th": -1, "xon_offset": None, "pool": "ingress_lossless_pool"},
        ),
    ],
)  # fmt: skip
def test_json_carries_threshold_pool_and_source(site: Path, args: tuple[str, ...], expect: dict[str, object]) -> None:
    r = _xoff(site, *args, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {k: doc[k] for k in expect} == expect
    if "--sku" in args:
        assert doc["source"].startswith("lookup: sonic-net/sonic-buildimage@000000000000:device/arista/")
        assert ("nearest longer cable for 30 m" in doc["source"]) is ("up" in args)
        assert doc["from"]["file"].endswith("/Site-TH5/pg_profile_lookup.ini")
        assert doc["from"]["row"] == {
            "speed": doc["speed_mbps"],
            "cable": "40m" if "up" in args else f"{doc['cable_m']}m",
        }
    else:
        assert doc["source"].startswith("formula: SONiC buffer_headroom_mellanox (Spectrum-4, 400G, 30 m")
        assert doc["from"]["formula"] == "buffer_headroom_mellanox"
        assert doc["from"]["inputs"]["cable"] == "30m" and doc["from"]["inputs"]["port_mtu"] == 9100


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--sku", "site-th5", "--speed", "400G", "--cable", "100m"), "no static headroom for SKU Site-TH5"),
        (("--sku", "site-th6", "--speed", "400G", "--cable", "5m"), "unknown SKU 'site-th6' (closest: site-th5"),
        (("--speed", "400G", "--cable", "5m"), "give --asic or --sku"),
        (("--sku", "site-th5", "--asic", "th5", "--speed", "400G", "--cable", "5m"), "give --asic or --sku"),
    ],
)
def test_bad_input_is_one_line(site: Path, args: tuple[str, ...], line: str) -> None:
    r = _xoff(site, *args)
    assert r.returncode == 2
    assert r.stderr.startswith(f"headroom: {line}") and r.stderr.count("\n") == 1, r.stderr


def test_text_names_the_table_and_threshold(site: Path) -> None:
    r = _xoff(site, "--sku", "site-th5", "--speed", "800G", "--cable", "300m")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "pg_lossless_800000_300m_profile on SKU Site-TH5 (Broadcom Tomahawk 5)"
    assert "dynamic_th -2, pool ingress_lossless_pool" in r.stdout
    assert "Site-TH5/pg_profile_lookup.ini row 800000 300m" in r.stdout
