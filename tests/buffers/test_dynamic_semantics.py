"""SONiC's dynamic-model semantics: profile names (buffermgrdyn), the port check's size-0 PGs, the shared
headroom pool from the over-subscription ratio, gearbox delay and the template's small-packet share."""

from __future__ import annotations

import pytest

from xoff.buffers import (
    PgReservation,
    always_eight_lanes,
    check_port_headroom,
    compute_headroom,
    dynamic_profile_name,
    port_headroom_total,
    shared_headroom_pool_size,
)

# (asic, speed, cable, port mtu, 8 lanes, threshold, default threshold) -> name, per getDynamicProfileName.
NAME_CASES = [
    # sonic-swss tests/mock_tests/buffermgrdyn_ut.cpp (e6b0c5b5) expects these two names for a 100G 5 m port.
    ("spectrum2", 100000, 5, 9100, False, None, 0, "pg_lossless_100000_5m_profile"),
    ("spectrum2", 100000, 5, 4096, False, None, 0, "pg_lossless_100000_5m_mtu4096_profile"),
    ("spectrum4", 400000, 40, 9100, False, None, 0, "pg_lossless_400000_40m_profile"),
    ("spectrum4", 400000, 40, 4200, False, None, 0, "pg_lossless_400000_40m_mtu4200_profile"),
    ("spectrum4", 400000, 5, 9100, True, None, 0, "pg_lossless_400000_5m_8lane_profile"),
    ("spectrum4", 800000, 5, 9100, True, None, 0, "pg_lossless_800000_5m_profile"),  # SN5xxx 800G: always 8
    ("spectrum5", 100000, 5, 1500, True, None, 0, "pg_lossless_100000_5m_mtu1500_8lane_profile"),
    ("spectrum3", 400000, 5, 9100, True, None, 0, "pg_lossless_400000_5m_profile"),  # SN4xxx 400G: always 8
    ("spectrum3", 100000, 5, 9100, True, None, 0, "pg_lossless_100000_5m_8lane_profile"),
    ("spectrum2", 100000, 5, 9100, True, None, 0, "pg_lossless_100000_5m_profile"),  # SN3xxx: no suffix
    ("spectrum6", 800000, 5, 9100, True, None, 0, "pg_lossless_800000_5m_profile"),  # SN6xxx: no suffix
    ("spectrum4", 400000, 40, 9100, False, -2, 0, "pg_lossless_400000_40m_th-2_profile"),
    ("spectrum4", 400000, 40, 9100, False, 0, 0, "pg_lossless_400000_40m_profile"),
]


@pytest.mark.parametrize(("asic", "speed", "cable", "mtu", "eight", "th", "default_th", "name"), NAME_CASES)
def test_dynamic_profile_name(
    asic: str, speed: int, cable: int, mtu: int, eight: bool, th: int | None, default_th: int, name: str
) -> None:
    got = dynamic_profile_name(
        asic, speed, cable, port_mtu=mtu, eight_lanes=eight, threshold=th, default_threshold=default_th
    )
    assert got == name


def test_dynamic_headroom_carries_buffermgrdyn_name() -> None:
    assert compute_headroom("spectrum4", 100000, 5, port_mtu=4200, eight_lanes=True).profile_name == (
        "pg_lossless_100000_5m_mtu4200_8lane_profile"
    )


LOSSLESS = PgReservation("3-4", 139264, 19456, 119808)
LOSSY0 = PgReservation("0", 0)


@pytest.mark.parametrize(
    ("pgs", "eight", "expected"),
    [
        ([LOSSLESS], False, 4096 + 19456 + 20480 + 2 * 139264),
        ([LOSSY0, LOSSLESS], False, 4096 + 19456 + 20480 + 19456 + 2 * 139264),  # size-0 PG counted
        ([LOSSY0, LOSSLESS], True, 4096 + 37888 + 40960 + 37888 + 2 * 139264),
    ],
)
def test_port_total_counts_size_zero_pgs(pgs: list[PgReservation], eight: bool, expected: int) -> None:
    assert port_headroom_total("spectrum4", pgs, eight_lanes=eight) == expected


@pytest.mark.parametrize(
    ("max_size", "shp", "ok"),
    [
        (None, False, True),  # no limit known: SONiC accepts
        (342016, False, False),  # equal to the total: rejected (strictly below needed)
        (342017, False, True),
        (10**7, True, False),  # shared part above (8192 + 20) x 192
    ],
)
def test_port_check_verdict(max_size: int | None, shp: bool, ok: bool) -> None:
    pgs = [LOSSY0, PgReservation("3-4", 19456, 19456, 800000)] if shp else [LOSSY0, LOSSLESS]
    assert check_port_headroom("spectrum4", pgs, max_headroom_size=max_size, shared_headroom_pool=shp).ok is ok


SHP_PGS = [
    PgReservation("3-4", 19456, 19456, 119808),
    PgReservation("0", 0),
    PgReservation("3-4", 19456, 19456, 119808),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"pool_xoff": 4194304}, 4194304),  # configured pool xoff wins
        ({"over_subscribe_ratio": 2}, (4 * 119808 - 2 * 10240 + 1) // 2),  # ceil((Σ - private) / ratio)
        ({"over_subscribe_ratio": 1}, 4 * 119808 - 2 * 10240),
        ({}, 655360),  # profiles need shared headroom but nothing sizes it: SONiC forces 655360
    ],
)
def test_shared_headroom_pool_size(kwargs: dict[str, int], expected: int) -> None:
    assert shared_headroom_pool_size(SHP_PGS, lossless_ports=2, **kwargs) == expected


def test_no_shared_headroom_needed_gives_no_pool() -> None:
    assert shared_headroom_pool_size([PgReservation("3-4", 139264, 19456, 119808)], lossless_ports=1) == 0


def test_gearbox_delay_adds_twice_its_bytes() -> None:
    plain = compute_headroom("spectrum3", 400000, 5, small_packet_percent=100)
    geared = compute_headroom("spectrum3", 400000, 5, small_packet_percent=100, gearbox_delay_ns=1300)
    assert geared.xoff > plain.xoff
    assert "gearbox 1300 ns" in geared.source


@pytest.mark.parametrize(
    ("asic", "speed", "eight"),
    [
        ("spectrum3", 400000, True),
        ("spectrum4", 800000, True),
        ("spectrum4", 400000, False),
        ("spectrum6", 800000, False),
    ],
)
def test_always_eight_lanes(asic: str, speed: int, eight: bool) -> None:
    assert always_eight_lanes(asic, speed) is eight
