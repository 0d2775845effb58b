"""Headroom calculator and ASIC catalog (reference/lossless.md §1.3, §1.4)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xoff.buffers import (
    ASICS,
    PAUSE_QUANTA,
    Headroom,
    HeadroomUnavailable,
    PgReservation,
    compute_headroom,
    get_asic,
    headroom_for,
    lookup_headroom,
    port_headroom_total,
    shared_headroom_limit,
)

SN5600_INI = "sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini"
TH_INI = "sonic-buildimage device/common/profiles/th/gen/BALANCED/pg_profile_lookup.ini"
MELLANOX = sorted(n for n, a in ASICS.items() if a.dynamic_formula)

# §1.4 worked checks: (asic, speed, cable, kwargs, (xon, xoff, size))
EXACT_CASES: list[tuple[str, int, int, dict[str, Any], tuple[int, int, int]]] = [
    ("spectrum4", 100000, 5, {"small_packet_percent": 100}, (19456, 113664, 133120)),
    ("spectrum4", 400000, 40, {"small_packet_percent": 100}, (19456, 283648, 303104)),
    ("spectrum4", 400000, 40, {}, (19456, 119808, 139264)),  # SONiC's template default: 50 % small packets
    ("spectrum3", 100000, 5, {"small_packet_percent": 50}, (19456, 48128, 67584)),
]


@pytest.mark.parametrize(("asic", "speed", "cable", "kwargs", "expected"), EXACT_CASES)
def test_formula_reproduces_worked_checks(
    asic: str, speed: int, cable: int, kwargs: dict[str, Any], expected: tuple[int, int, int]
) -> None:
    hr = compute_headroom(asic, speed, cable, port_mtu=9100, lossless_mtu=1024, **kwargs)
    assert (hr.xon, hr.xoff, hr.size) == expected
    assert hr.xon_offset is None
    assert hr.source.startswith("formula: SONiC buffer_headroom_mellanox (")


@pytest.mark.parametrize(
    ("speed", "cable"),
    [(100000, 5), (400000, 40)],
)
def test_sn5600_formula_equals_lookup_row(speed: int, cable: int) -> None:
    row = lookup_headroom("spectrum4", speed, cable)
    hr = compute_headroom("spectrum4", speed, cable, small_packet_percent=100)
    assert row is not None
    assert (hr.xon, hr.xoff, hr.size) == (row.xon, row.xoff, row.size)


# 800G SN5600 ports use 8 lanes: the row's xon (2 x 19 KB) only matches with eight_lanes.
@pytest.mark.parametrize(
    ("speed", "cable", "kwargs"),
    [(400000, 5, {}), (800000, 5, {"eight_lanes": True})],
)
def test_sn5600_formula_within_one_kb_of_lookup(speed: int, cable: int, kwargs: dict[str, Any]) -> None:
    row = lookup_headroom("spectrum4", speed, cable)
    hr = compute_headroom("spectrum4", speed, cable, small_packet_percent=100, **kwargs)
    assert row is not None
    assert abs(hr.xoff - row.xoff) <= 1024
    assert abs(hr.xon - row.xon) <= 1024
    assert abs(hr.size - row.size) <= 1024


def test_source_string_and_profile_name() -> None:
    hr = compute_headroom("spectrum4", 400000, 40)
    assert hr.source == (
        "formula: SONiC buffer_headroom_mellanox (Spectrum-4, 400G, 40 m, mtu 9100, "
        "lossless mtu 1024, small packets 50%)"
    )
    assert hr.profile_name == "pg_lossless_400000_40m_profile"


@pytest.mark.parametrize(
    ("asic", "speed", "cable", "expected", "ini"),
    [
        ("spectrum4", 400000, 40, Headroom(19456, 283648, 303104, None, "", 400000, 40), SN5600_INI),
        ("spectrum4", 800000, 5, Headroom(38912, 257024, 304128, None, "", 800000, 5), SN5600_INI),
        ("spectrum3", 100000, 5, Headroom(19456, 33792, 53248, None, "", 100000, 5), "ACS-MSN4700"),
        ("tomahawk", 100000, 40, Headroom(2288, 177632, 1248, 2288, "", 100000, 40), TH_INI),
        ("tomahawk5", 400000, 5, Headroom(0, 393192, 18796, 3556, "", 400000, 5), "7060x6"),
    ],
)
def test_static_returns_exact_lookup_rows(asic: str, speed: int, cable: int, expected: Headroom, ini: str) -> None:
    hr = headroom_for(asic, speed, cable, model="static")
    assert (hr.xon, hr.xoff, hr.size, hr.xon_offset) == (
        expected.xon,
        expected.xoff,
        expected.size,
        expected.xon_offset,
    )
    assert hr.source.startswith("lookup: sonic-buildimage ")
    assert ini in hr.source
    assert hr.source.endswith(f"pg_profile_lookup.ini row {speed} {cable}m")
    assert hr == lookup_headroom(asic, speed, cable)


def test_static_never_falls_back_to_the_formula() -> None:
    """Static means the table (issue 15): SONiC's static buffermgr makes no profile without a row, so neither does xoff."""
    with pytest.raises(HeadroomUnavailable, match=r"Spectrum-4 \(spectrum4\) at 400000 Mb/s, 300 m: .*never computes"):
        headroom_for("spectrum4", 400000, 300, model="static")


def test_dynamic_ignores_lookup_rows() -> None:
    # SN4700's older table does not reproduce from the formula (§1.4); dynamic must not use it.
    hr = headroom_for("spectrum3", 100000, 5, model="dynamic")
    assert hr.source.startswith("formula: ")
    assert hr.xoff != 33792


@pytest.mark.parametrize(
    ("asic", "speed", "cable", "model", "rows"),
    [
        ("tomahawk", 400000, 40, "static", "100000 5m, 100000 40m, 100000 300m"),
        ("tomahawk", 100000, 100, "static", "100000 5m, 100000 40m, 100000 300m"),
        ("tomahawk", 100000, 5, "dynamic", "100000 5m, 100000 40m, 100000 300m"),
        ("th5", 400000, 300, "static", "400000 5m, 400000 40m"),
    ],
)
def test_broadcom_without_row_raises(
    asic: str, speed: int, cable: int, model: Literal["static", "dynamic"], rows: str
) -> None:
    with pytest.raises(HeadroomUnavailable) as err:
        headroom_for(asic, speed, cable, model=model)
    msg = str(err.value)
    assert get_asic(asic).label in msg
    assert f"{speed} Mb/s, {cable} m" in msg
    assert rows in msg
    assert isinstance(err.value, ValueError)


def test_compute_headroom_refuses_broadcom() -> None:
    with pytest.raises(HeadroomUnavailable, match="Mellanox-only"):
        compute_headroom("tomahawk", 100000, 5)


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("spectrum-4", "spectrum4"),
        ("Spectrum 4", "spectrum4"),
        ("SP4", "spectrum4"),
        ("spc3", "spectrum3"),
        ("NVIDIA Spectrum-6", "spectrum6"),
        ("sn5600", "spectrum4"),
        ("spectrum1", "spectrum1"),
        ("th5", "tomahawk5"),
        ("Tomahawk-5", "tomahawk5"),
        ("TH", "tomahawk"),
        ("tomahawk", "tomahawk"),
    ],
)
def test_alias_resolution(alias: str, canonical: str) -> None:
    assert get_asic(alias) is ASICS[canonical]


def test_unknown_asic_lists_known_names() -> None:
    with pytest.raises(KeyError) as err:
        get_asic("jericho9")
    msg = str(err.value)
    assert "jericho9" in msg
    for name in ASICS:
        assert name in msg


def test_catalog_shape() -> None:
    with_tables = {f"spectrum{n}" for n in range(1, 7)} | {"tomahawk", "tomahawk5"}
    assert with_tables <= set(ASICS)
    # the others are names the SKU catalogue uses: a vendor, no formula, no table of their own (their SKUs have one)
    assert all(not ASICS[n].lookup_rows and not ASICS[n].dynamic_formula for n in set(ASICS) - with_tables)
    for name, spec in ASICS.items():
        assert spec.name == name
        assert spec.max_lossless_priorities == 2
        assert spec.dynamic_formula == (spec.vendor == "mellanox" and name in with_tables)
        assert all(r.source.endswith("pg_profile_lookup.ini") for r in spec.lookup_rows)
        single_pipeline = 1024 * (spec.pipeline_latency_kb or 0)
        for r in spec.lookup_rows:
            if spec.size_is_xon_plus_xoff and r.xon == single_pipeline:
                assert r.size == r.xon + r.xoff
            elif spec.size_is_xon_plus_xoff:
                # 8-lane rows (doubled xon) also reserve a port MTU of overhead.
                assert r.xon + r.xoff < r.size <= r.xon + r.xoff + 9216
    assert [n for n, a in ASICS.items() if a.kb_on_tile] == ["spectrum4", "spectrum5"]
    assert [n for n, a in ASICS.items() if a.xoff_compensation_kb] == ["spectrum6"]
    assert ASICS["spectrum4"].default_cable_m == 5
    assert ASICS["tomahawk"].default_cable_m == 40
    assert ASICS["tomahawk"].pools.shared_headroom_pool_xoff == 4194112


@pytest.mark.parametrize("asic", MELLANOX)
@pytest.mark.parametrize("speed", sorted(PAUSE_QUANTA))
@pytest.mark.parametrize("spp", [50, 100])
def test_mellanox_size_is_xon_plus_xoff(asic: str, speed: int, spp: int) -> None:
    hr = compute_headroom(asic, speed, 40, small_packet_percent=spp)
    assert hr.size == hr.xon + hr.xoff
    assert hr.xon % 1024 == 0 and hr.xoff % 1024 == 0


def test_shared_headroom_pool_size_is_xon() -> None:
    hr = compute_headroom("spectrum4", 400000, 40, shared_headroom_pool=True)
    assert hr.size == hr.xon == 19456


def test_spectrum6_compensation_and_unknown_speed() -> None:
    # Spectrum-6 adds 18 KB; an unknown speed falls back to peer_response_time.
    sp6 = compute_headroom("spectrum6", 400000, 5)
    assert sp6.xon == 43008
    unknown = compute_headroom("spectrum4", 300000, 5)
    assert unknown.size == unknown.xon + unknown.xoff


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, 4096 + 19 * 1024 + 20 * 1024 + 2 * 133120),
        ({"eight_lanes": True}, 4096 + 37 * 1024 + 40 * 1024 + 2 * 133120),
    ],
)
def test_port_headroom_total(kwargs: dict[str, Any], expected: int) -> None:
    assert port_headroom_total("spectrum4", [PgReservation("3-4", 133120, 19456, 113664)], **kwargs) == expected


def test_shared_headroom_limit() -> None:
    assert shared_headroom_limit("spectrum4") == (8192 + 20) * 192
    assert shared_headroom_limit("spectrum5") == (6144 + 20) * 192
    assert shared_headroom_limit("spectrum6", eight_lanes=True) == (6144 + 40) * 256
    with pytest.raises(HeadroomUnavailable):
        shared_headroom_limit("tomahawk")


@pytest.mark.parametrize(
    "kwargs",
    [{"small_packet_percent": 101}, {"lossless_mtu": 0}, {"gearbox_delay_ns": -1}],
)
def test_bad_inputs_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        compute_headroom("spectrum4", 100000, 5, **kwargs)


# spp is kept to 50/100: with spp >= 85 the Lua's 2 KB compensation (and Spectrum-6's 18 KB, added
# before that comparison) can drop xoff by 1 KB as the cable grows; the port keeps that behaviour.
@given(
    asic=st.sampled_from(MELLANOX),
    speed=st.sampled_from(sorted(PAUSE_QUANTA)),
    cables=st.tuples(st.integers(1, 2000), st.integers(1, 2000)).map(sorted),
    spp=st.sampled_from([50, 100]),
    shp=st.booleans(),
)
def test_longer_cable_never_smaller_xoff(asic: str, speed: int, cables: list[int], spp: int, shp: bool) -> None:
    short, long_ = cables
    kw: dict[str, Any] = {"small_packet_percent": spp, "shared_headroom_pool": shp}
    assert compute_headroom(asic, speed, short, **kw).xoff <= compute_headroom(asic, speed, long_, **kw).xoff
