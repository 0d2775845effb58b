"""The SKU catalogue (issue 15): loading the data files, names, the SKU's table as the static model.

The loader tests run against ``tests/fixtures/skus`` alone (the shipped directory swapped out), so they do not
depend on which SKUs the shipped data holds; the "every row" test runs over the shipped data and the fixtures.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers import HeadroomUnavailable, headroom_for
from xoff.buffers import catalogue as cat
from xoff.buffers.catalogue import Sku, get_sku, load_catalogue, sku_asic, switch_asic
from xoff.buffers.static import static_headroom
from xoff.errors import InputError

FIXTURES = ROOT / "tests" / "fixtures" / "skus"
BROKEN = ROOT / "tests" / "fixtures" / "skus-broken"
SHIPPED = ROOT / "src" / "xoff" / "data" / "skus"


@pytest.fixture
def fixture_skus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cat, "_SHIPPED", FIXTURES)
    monkeypatch.delenv(cat.SKU_DIR_ENV, raising=False)


@pytest.mark.usefixtures("fixture_skus")
@pytest.mark.parametrize(
    ("name", "hwsku"),
    [
        ("ACS-SN5600", "ACS-SN5600"),
        ("sn5600", "ACS-SN5600"),
        ("MSN5600", "ACS-SN5600"),
        (" 7060x6-64pe ", "Arista-7060X6-64PE"),
        ("arista-7060x6-64pe", "Arista-7060X6-64PE"),
    ],
)
def test_get_sku_by_hwsku_or_alias_any_case(name: str, hwsku: str) -> None:
    assert get_sku(name).hwsku == hwsku
    assert hwsku in cat.SKUS


@pytest.mark.usefixtures("fixture_skus")
@pytest.mark.parametrize(("name", "close"), [("SN5601", "SN5600"), ("7060X6-64P", "7060X6-64PE"), ("zzz", None)])
def test_unknown_sku_names_the_closest(name: str, close: str | None) -> None:
    with pytest.raises(KeyError) as err:
        get_sku(name)
    msg = str(err.value.args[0])
    assert msg.startswith(f"unknown SKU {name!r}")
    if close is None:
        assert "docs/buffers.md" in msg
    else:
        assert f"closest: {close}" in msg or f", {close}" in msg, msg


def test_a_malformed_file_is_a_located_error() -> None:
    with pytest.raises(InputError) as err:
        load_catalogue([BROKEN])
    (problem,) = err.value.problems
    assert problem.location is not None
    assert problem.location.file.endswith("skus-broken/Bad.yaml")
    assert problem.location.line == 13
    assert problem.path == "lookup.rows[0].cable"


def test_an_alias_two_skus_use_is_an_error(tmp_path: Path) -> None:
    text = (FIXTURES / "mellanox" / "ACS-SN5600.yaml").read_text(encoding="utf-8")
    (tmp_path / "Other.yaml").write_text(text.replace("hwsku: ACS-SN5600", "hwsku: Other-SKU"), encoding="utf-8")
    with pytest.raises(InputError, match=r"SKU name 'sn5600' is also .*(ACS-SN5600|Other)\.yaml's"):
        load_catalogue([FIXTURES, tmp_path])


@pytest.mark.usefixtures("fixture_skus")
def test_a_site_directory_adds_skus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (FIXTURES / "mellanox" / "ACS-SN5600.yaml").read_text(encoding="utf-8")
    site = text.replace("hwsku: ACS-SN5600", "hwsku: Site-SN5600").replace("[SN5600, MSN5600]", "[lab5600]")
    (tmp_path / "site.yaml").write_text(site, encoding="utf-8")
    with pytest.raises(KeyError):
        get_sku("lab5600")
    monkeypatch.setenv(cat.SKU_DIR_ENV, str(tmp_path))
    assert get_sku("LAB5600").hwsku == "Site-SN5600"


@pytest.mark.usefixtures("fixture_skus")
def test_the_sku_asic_carries_the_skus_table_and_pools() -> None:
    asic = switch_asic("spectrum4", "SN5600")
    assert asic.name == "spectrum4"
    assert asic.sku == "ACS-SN5600"
    assert asic.dynamic_formula  # the ASIC's constants stay
    assert asic.pools.ingress_lossless_pool == 52161690
    assert asic.pools.source is not None
    assert asic.pools.source.endswith("ACS-SN5600/buffers_defaults_t1.j2")
    th5 = switch_asic("tomahawk5", "7060X6-64PE")
    assert (th5.vendor, th5.pools.total_buffer, th5.pools.shared_headroom_pool_xoff) == (
        "broadcom",
        201326592,
        22035008,
    )


@pytest.mark.usefixtures("fixture_skus")
@pytest.mark.parametrize(
    ("sku", "speed", "cable", "rounding", "expect"),
    [
        # exact rows, the threshold and xon_offset as written
        ("SN5600", 400000, 40, "exact", (19456, 283648, 303104, None, 0, 40)),
        ("7060X6-64PE", 800000, 300, "exact", (0, 1200000, 18796, 3556, -2, 300)),
        ("7060X6-64PE", 100, 5, "exact", (0, 2496, 1248, None, 0, 5)),  # a 100 Mb/s row
        # nearest longer cable, only when asked
        ("7060X6-64PE", 400000, 30, "up", (0, 612140, 18796, 3556, 0, 30)),
        ("7060X6-64PE", 400000, 1, "up", (0, 393192, 18796, 3556, 0, 1)),
        ("SN5600", 400000, 100, "exact", "SKU ACS-SN5600 (NVIDIA Spectrum-4) at 400000 Mb/s, 100 m"),
        ("7060X6-64PE", 400000, 100, "up", "or a longer cable at that speed"),
        ("7060X6-64PE", 400000, 30, "exact", "rows that exist: 400000 5m, 400000 40m, 800000 300m, 100 5m"),
    ],
)
def test_static_is_the_skus_table(
    sku: str, speed: int, cable: int, rounding: str, expect: tuple[int, ...] | str
) -> None:
    asic = switch_asic("", sku)
    if isinstance(expect, str):
        with pytest.raises(HeadroomUnavailable, match="never computes one") as err:
            headroom_for(asic, speed, cable, model="static", cable_rounding=rounding)  # type: ignore[arg-type]
        assert expect in str(err.value)
        return
    hr = headroom_for(asic, speed, cable, model="static", cable_rounding=rounding)  # type: ignore[arg-type]
    assert (hr.xon, hr.xoff, hr.size, hr.xon_offset, hr.dynamic_th, hr.cable_m) == expect
    assert hr.source.startswith("lookup: sonic-net/sonic-buildimage@000000000000:device/")
    rounded = rounding == "up" and f" {cable}m" not in hr.source
    assert ("nearest longer cable" in hr.source) is rounded, hr.source


def _every_file() -> list[Path]:
    return sorted([*cat._files(SHIPPED), *cat._files(FIXTURES)])


@pytest.mark.parametrize("path", _every_file(), ids=lambda p: p.stem)
def test_every_table_row_is_what_the_static_model_returns(path: Path) -> None:
    """Over the whole catalogue (globbed): each row of a SKU's pg_profile_lookup.ini is returned exactly, with its
    threshold and xon_offset, and the source names that row."""
    sku: Sku = cat._load_file(path)
    asic = sku_asic(sku)
    rows = sku.lookup.rows if sku.lookup is not None else []
    keys = [(r.speed, r.cable) for r in rows]
    assert len(set(keys)) == len(keys), f"{path}: a speed/cable pair is in the table twice"
    for row in rows:
        hr = static_headroom(asic, row.speed, row.cable_m)
        got = (hr.xon, hr.xoff, hr.size, hr.xon_offset, hr.dynamic_th)
        assert got == (row.xon, row.xoff, row.size, row.xon_offset, row.dynamic_th), (row.speed, row.cable)
        assert hr.source.endswith(f"{sku.lookup.file} row {row.speed} {row.cable}"), hr.source  # type: ignore[union-attr]


def test_every_shipped_sku_resolves_to_a_known_asic() -> None:
    """The data's ASIC names are asics.py's (a switch's asic derived from its sku must resolve as a written one)."""
    from xoff.buffers import get_asic

    for sku in cat.load_catalogue([SHIPPED]).values():
        assert get_asic(sku.asic).name == sku.asic, sku.hwsku
        assert get_asic(sku.asic).vendor == sku.vendor, sku.hwsku
        assert sku_asic(sku).dynamic_formula is ("dynamic" in sku.models and get_asic(sku.asic).dynamic_formula)


def test_dynamic_only_where_the_sku_ships_it() -> None:
    """A Mellanox SKU whose SONiC directory has no dynamic-model files gets no formula; one that has them does."""
    skus = cat.load_catalogue([SHIPPED])
    static_only = next(s for s in skus.values() if s.vendor == "mellanox" and s.models == ["static"])
    both = skus["ACS-SN5600"]
    assert "dynamic" in both.models
    assert headroom_for(sku_asic(both), 400000, 40, model="dynamic").source.startswith("formula: ")
    with pytest.raises(HeadroomUnavailable, match="SONiC ships no dynamic model for this SKU"):
        headroom_for(sku_asic(static_only), 100000, 5, model="dynamic")


def test_the_parsed_catalogue_is_kept_between_runs_keyed_by_the_files_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a later run reads from the cache is what parsing gives; a changed SKU file (same size) is parsed
    again; a catalogue with errors is not kept; a cache file others may write is not read."""
    monkeypatch.setenv(cat.CACHE_DIR_ENV, str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    text = (FIXTURES / "mellanox" / "ACS-SN5600.yaml").read_text(encoding="utf-8")
    sku_file = site / "Site.yaml"
    sku_file.write_text(text.replace("hwsku: ACS-SN5600", "hwsku: Site-SN5601").replace("[SN5600, MSN5600]", "[]"))
    dirs = [FIXTURES, site]
    first = cat._cached_catalogue(dirs)
    kept = list((tmp_path / "cache").iterdir())
    assert len(kept) == 1 and kept[0].stat().st_mode & 0o777 == 0o600
    assert cat._cached_catalogue(dirs) == first == load_catalogue(dirs)
    sku_file.write_text(sku_file.read_text().replace("Site-SN5601", "Site-SN5602"))  # same size, new bytes
    assert "Site-SN5602" in cat._cached_catalogue(dirs) and "Site-SN5601" not in cat._cached_catalogue(dirs)
    assert len(list((tmp_path / "cache").iterdir())) == 2
    planted = cat._cache_file(dirs)
    assert planted is not None
    planted.write_bytes(pickle.dumps({"planted": None}))
    planted.chmod(0o666)
    assert "planted" not in cat._cached_catalogue(dirs)  # others could have written it: parsed again
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "Bad.yaml").write_text("hwsku: [not, a, sku]\n")
    with pytest.raises(InputError):
        cat._cached_catalogue([tmp_path / "broken"])
    assert len(list((tmp_path / "cache").iterdir())) == 2
