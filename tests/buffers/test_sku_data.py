"""The SKU data files (src/xoff/data/skus/) keep the catalogue's format, and docs/buffers.md is generated from them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.docs import fresh_doc
from xoff.buffers.catalogue_doc import render, sku_files

TOP_KEYS = {"hwsku", "aliases", "vendor", "asic", "platform", "models", "source", "pools", "lookup", "notes"}
OPTIONAL_KEYS = {"pools_t0"}
POOL_KEYS = {
    "file",
    "ingress_lossless_pool",
    "ingress_lossy_pool",
    "egress_lossless_pool",
    "egress_lossy_pool",
    "shared_headroom_pool_xoff",
    "total_buffer",
    "total_buffer_published",
    "total_buffer_source",
    "pool_accounting",
}
TEXT_POOL_KEYS = ("total_buffer_published", "total_buffer_source", "pool_accounting")
ROW_KEYS = {"speed", "cable", "size", "xon", "xoff", "dynamic_th", "xon_offset"}
FILES = sku_files()


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_catalogue_covers_every_gpu_fabric_asic_family() -> None:
    asics = {_load(p)["asic"] for p in FILES}
    expected = {f"spectrum{n}" for n in range(1, 7)} | {"tomahawk", "tomahawk3", "tomahawk5", "trident3", "trident4"}
    assert expected <= asics
    hwskus = {_load(p)["hwsku"] for p in FILES}
    assert {"ACS-SN5600", "Mellanox-SN5600-V256", "ACS-MSN4700", "ACS-MSN2700", "DellEMC-Z9332f-O32"} <= hwskus


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_sku_file_has_the_format(path: Path) -> None:
    data = _load(path)
    assert TOP_KEYS <= set(data) <= TOP_KEYS | OPTIONAL_KEYS
    assert path.stem == data["hwsku"] and path.parent.name == data["vendor"]
    assert set(data["models"]) <= {"static", "dynamic"} and "static" in data["models"]
    source = data["source"]
    assert source["repo"] == "sonic-net/sonic-buildimage"
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
    assert source["dir"].startswith("device/") and source["dir"].endswith(f"/{data['hwsku']}/")
    for key in ("pools", "pools_t0"):
        if key in data:
            assert set(data[key]) == POOL_KEYS
            numbers = {k: v for k, v in data[key].items() if k not in {"file", *TEXT_POOL_KEYS}}
            assert all(v is None or (isinstance(v, int) and v >= 0) for v in numbers.values())
            assert all(data[key][k] is None or isinstance(data[key][k], str) for k in TEXT_POOL_KEYS)
    rows = data["lookup"]["rows"]
    assert data["lookup"]["file"].endswith("pg_profile_lookup.ini") and rows
    for row in rows:
        assert set(row) == ROW_KEYS
        assert isinstance(row["speed"], int) and row["speed"] > 0
        assert re.fullmatch(r"[1-9]\d*m", row["cable"])
        assert all(isinstance(row[k], int) for k in ("size", "xon", "xoff", "dynamic_th"))
    assert all(isinstance(note, str) for note in data["notes"])


def test_aliases_are_unique_across_the_catalogue() -> None:
    owners: dict[str, str] = {}
    for path in FILES:
        data = _load(path)
        for name in [data["hwsku"], *data["aliases"]]:
            assert name.upper() not in owners, f"{name} in {data['hwsku']} and {owners.get(name.upper())}"
            owners[name.upper()] = data["hwsku"]


def test_docs_buffers_md_is_fresh(root: Path) -> None:
    """docs/buffers.md is generated from the data files (in a fresh interpreter, as `make docs` runs it)."""
    committed = fresh_doc(root, "xoff.buffers.catalogue_doc", "docs/buffers.md")
    for path in FILES:
        assert f"| `{path.stem}` |" in committed


def test_page_lists_speeds_and_cables_per_sku(tmp_path: Path) -> None:
    (tmp_path / "acme").mkdir()
    row = "{speed: %d, cable: %s, size: 1, xon: 1, xoff: 0, dynamic_th: 0, xon_offset: null}"
    rows = "\n".join("    - " + row % (s, c) for s, c in [(400000, "300m"), (100, "5m"), (400000, "5m")])
    (tmp_path / "acme" / "X-1.yaml").write_text(
        "hwsku: X-1\naliases: [X1]\nvendor: acme\nasic: chip\nplatform: p\nmodels: [static]\n"
        "source: {repo: r, commit: c0ffee, dir: d/}\npools: {}\nlookup:\n  file: f\n  rows:\n" + rows + "\nnotes: []\n"
    )
    page = render(tmp_path)
    assert "| `X-1` | X1 | chip | static | 100M: 5m; 400G: 5m 300m | - | `d/` @ `c0ffee` |" in page
    assert "1 SKUs: acme 1." in page


GUIDANCE = sorted((FILES[0].parent.parent / "guidance").glob("*.yaml"))


@pytest.mark.parametrize("path", GUIDANCE, ids=[p.stem for p in GUIDANCE])
def test_guidance_file_names_its_page_and_numbers(path: Path) -> None:
    data = _load(path)
    required = {"name", "platform", "asics", "summary", "url", "source", "numbers"}
    assert required <= set(data) <= required | {"asic_family", "nos", "use"}  # the last three: the plan's use
    assert data["name"] == path.stem and data["url"].startswith("https://")
    assert "\n" not in data["summary"] and data["numbers"]
    for number in data["numbers"]:
        assert set(number) == {"name", "value", "unit", "where"}
        assert isinstance(number["value"], int) and number["value"] > 0


def test_guidance_covers_eos_and_cumulus() -> None:
    platforms = " ".join(_load(p)["platform"] for p in GUIDANCE)
    assert "Cumulus" in platforms and "EOS" in platforms
