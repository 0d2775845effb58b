"""Lossless PG headroom: static lookup rows and the Mellanox dynamic formula.

The formula is a port of SONiC's ``buffer_headroom_mellanox.lua`` written from the description in
reference/lossless.md §1.4; the lookup model follows §1.3 (``pg_profile_lookup.ini``).
All sizes are bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from xoff.buffers.asics import AsicSpec, get_asic
from xoff.buffers.names import dynamic_profile_name
from xoff.buffers.result import Headroom, HeadroomUnavailable
from xoff.buffers.static import static_headroom

__all__ = [
    "PAUSE_QUANTA",
    "SONIC_LOSSLESS_MTU",
    "SONIC_SMALL_PACKET_PERCENT",
    "Headroom",
    "HeadroomUnavailable",
    "compute_headroom",
    "headroom_for",
    "lookup_headroom",
    "mellanox_consts",
]

# Pause quanta per speed in Mb/s, IEEE 802.3 Annex 31B.3.7 as encoded in the Lua (§1.4). The Lua has no
# 1.6T (or other) entry: such a speed uses the ASIC's peer_response_time (3.8 KB), and so does xoff, to stay
# equal to SONiC (tests/fixtures/sonic-lua/headroom.csv holds 1.6T and 100M cases).
PAUSE_QUANTA: Mapping[int, int] = MappingProxyType(
    {
        800000: 905,
        400000: 905,
        200000: 453,
        100000: 394,
        50000: 147,
        40000: 118,
        25000: 80,
        10000: 67,
        1000: 2,
        100: 1,
    }
)

# files/build_templates/buffers_config.j2 (sonic-buildimage c104a76a): LOSSLESS_TRAFFIC_PATTERN.
SONIC_SMALL_PACKET_PERCENT = 50
SONIC_LOSSLESS_MTU = 1024

_MIN_PACKET = 64  # bytes; the small packet the worst-case cell occupancy is sized for
_SPEED_OF_LIGHT_MEDIA = 198e6  # m/s in cable, as in the Lua
_SMALL_PACKET_COMPENSATION = 2 * 1024


@dataclass(frozen=True)
class MellanoxConsts:
    """A Mellanox ASIC's ASIC_TABLE constants (platform/mellanox/asic_table.j2)."""

    cell_size: int
    pipeline_latency_kb: int
    mac_phy_delay_kb: float
    peer_response_time_kb: float
    port_reserved_shp: int
    port_max_shp: int


def _resolve(asic: AsicSpec | str) -> AsicSpec:
    return get_asic(asic) if isinstance(asic, str) else asic


def mellanox_consts(spec: AsicSpec, what: str) -> MellanoxConsts:
    """The ASIC_TABLE constants, or ``HeadroomUnavailable`` naming ``what`` needs them."""
    c = (
        spec.cell_size,
        spec.pipeline_latency_kb,
        spec.mac_phy_delay_kb,
        spec.peer_response_time_kb,
        spec.port_reserved_shp,
        spec.port_max_shp,
    )
    if not spec.dynamic_formula or c[0] is None or c[1] is None or c[2] is None:
        raise HeadroomUnavailable(f"{what} is Mellanox-only; {spec.label} ({spec.name}) has no ASIC_TABLE")
    if c[3] is None or c[4] is None or c[5] is None:
        raise HeadroomUnavailable(f"{spec.label} ({spec.name}): incomplete ASIC_TABLE constants")
    return MellanoxConsts(c[0], c[1], c[2], c[3], c[4], c[5])


def _ceil1k(x: float) -> int:
    return math.ceil(x / 1024) * 1024


def _fmt_speed(speed_mbps: int) -> str:
    if speed_mbps % 1000:
        return f"{speed_mbps / 1000:g}G" if speed_mbps > 1000 else f"{speed_mbps}M"
    return f"{speed_mbps // 1000}G"


def _check_inputs(speed_mbps: int, cable_m: int, *, port_mtu: int, lossless_mtu: int, spp: int, gb: int) -> None:
    if speed_mbps <= 0:
        raise ValueError(f"speed_mbps must be positive, got {speed_mbps}")
    if cable_m < 0:
        raise ValueError(f"cable_m must be >= 0, got {cable_m}")
    if port_mtu <= 0 or lossless_mtu <= 0:
        raise ValueError(f"port_mtu and lossless_mtu must be positive, got {port_mtu}, {lossless_mtu}")
    if not 0 <= spp <= 100:
        raise ValueError(f"small_packet_percent must be in 0..100, got {spp}")
    if gb < 0:
        raise ValueError(f"gearbox_delay_ns must be >= 0, got {gb}")


def compute_headroom(
    asic: AsicSpec | str,
    speed_mbps: int,
    cable_m: int,
    *,
    port_mtu: int = 9100,
    lossless_mtu: int = SONIC_LOSSLESS_MTU,
    small_packet_percent: int = SONIC_SMALL_PACKET_PERCENT,
    shared_headroom_pool: bool = False,
    gearbox_delay_ns: int = 0,
    eight_lanes: bool = False,
) -> Headroom:
    """Headroom from the Mellanox dynamic formula (reference/lossless.md §1.4), as SONiC's
    ``buffer_headroom_mellanox.lua`` computes it (proven on tests/fixtures/sonic-lua/headroom.csv).

    ``small_packet_percent`` defaults to SONiC's dynamic template (``buffers_config.j2`` writes
    ``LOSSLESS_TRAFFIC_PATTERN.small_packet_percentage: 50``); 100 reproduces the SN5600 lookup rows.
    Raises ``HeadroomUnavailable`` on non-Mellanox ASICs.
    """
    spec = _resolve(asic)
    k = mellanox_consts(spec, "the dynamic headroom formula")
    spp = small_packet_percent
    _check_inputs(speed_mbps, cable_m, port_mtu=port_mtu, lossless_mtu=lossless_mtu, spp=spp, gb=gearbox_delay_ns)

    ratio = k.cell_size / _MIN_PACKET if k.cell_size > 2 * _MIN_PACKET else 2 * k.cell_size / (1 + k.cell_size)
    worst_case_factor = math.ceil(ratio)
    # Small packets' share by bytes, given the lossless traffic's packet mix.
    spp_bytes = 100 * _MIN_PACKET / ((spp * _MIN_PACKET + (100 - spp) * lossless_mtu) / 100)
    cell_occupancy = (100 - spp_bytes + spp_bytes * worst_case_factor) / 100

    quanta = PAUSE_QUANTA.get(speed_mbps)
    # Speeds outside the IEEE table fall back to the ASIC's fixed peer response time.
    peer_response = quanta * 512 / 8 if quanta is not None else k.peer_response_time_kb * 1024
    # Round trip; evaluated in the Lua's order so rounding matches SONiC.
    bytes_on_cable = 2 * cable_m * speed_mbps * 1e9 / _SPEED_OF_LIGHT_MEDIA / 8000
    bytes_on_gearbox = speed_mbps * gearbox_delay_ns / (8 * 1024)
    kb_on_tile = speed_mbps / 1000 * 120 / 8 if spec.kb_on_tile else 0.0
    propagation = (
        port_mtu + bytes_on_cable + 2 * bytes_on_gearbox + k.mac_phy_delay_kb * 1024 + peer_response + kb_on_tile
    )

    xoff = _ceil1k(lossless_mtu + propagation * cell_occupancy) + spec.xoff_compensation_kb * 1024
    if not shared_headroom_pool and spp != 100:
        # A reduced small-packet share gets 2 KB back while still more than 2 KB under worst case.
        worst = _ceil1k(lossless_mtu + propagation * worst_case_factor)
        if xoff + _SMALL_PACKET_COMPENSATION < worst:
            xoff += _SMALL_PACKET_COMPENSATION

    # 8-lane ports span two buffer units: double pipeline latency plus one MTU in size.
    pipeline = k.pipeline_latency_kb * 1024 * (2 if eight_lanes else 1)
    speed_overhead = port_mtu if eight_lanes else 0
    xon = _ceil1k(pipeline)
    # With a shared headroom pool the PG reserves only xon; xoff lives in the pool.
    size = _ceil1k(xon if shared_headroom_pool else xoff + xon + speed_overhead)

    extras = "".join(
        (
            ", shared headroom pool" if shared_headroom_pool else "",
            f", gearbox {gearbox_delay_ns} ns" if gearbox_delay_ns else "",
            ", 8 lanes" if eight_lanes else "",
        )
    )
    source = (
        f"formula: SONiC buffer_headroom_mellanox ({spec.short_label}, {_fmt_speed(speed_mbps)}, "
        f"{cable_m} m, mtu {port_mtu}, lossless mtu {lossless_mtu}, small packets {spp}%{extras})"
    )
    name = dynamic_profile_name(spec.name, speed_mbps, cable_m, port_mtu=port_mtu, eight_lanes=eight_lanes)
    return Headroom(xon, xoff, size, None, source, speed_mbps, cable_m, name)


def lookup_headroom(asic: AsicSpec | str, speed_mbps: int, cable_m: int) -> Headroom | None:
    """The exact ``pg_profile_lookup.ini`` row for speed and cable, or ``None`` (§1.3)."""
    spec = _resolve(asic)
    for row in spec.lookup_rows:
        if row.speed_mbps == speed_mbps and row.cable_m == cable_m:
            source = f"lookup: {row.source} row {speed_mbps} {cable_m}m"
            return Headroom(
                row.xon, row.xoff, row.size, row.xon_offset, source, speed_mbps, cable_m, dynamic_th=row.threshold
            )
    return None


def headroom_for(
    asic: AsicSpec | str,
    speed_mbps: int,
    cable_m: int,
    *,
    model: Literal["static", "dynamic"],
    port_mtu: int = 9100,
    lossless_mtu: int = SONIC_LOSSLESS_MTU,
    small_packet_percent: int = SONIC_SMALL_PACKET_PERCENT,
    shared_headroom_pool: bool = False,
    gearbox_delay_ns: int = 0,
    eight_lanes: bool = False,
    cable_rounding: Literal["exact", "up"] = "exact",
) -> Headroom:
    """Headroom under SONiC's static (lookup) or dynamic (formula) buffer model (§1.3, §1.4).

    Static: the SKU's (or ASIC's) lookup row and nothing else (``buffers.static``); ``cable_rounding`` "up" takes
    the nearest longer cable row. The other keyword arguments only affect the formula.
    """
    spec = _resolve(asic)
    if model not in ("static", "dynamic"):
        raise ValueError(f"model must be 'static' or 'dynamic', got {model!r}")
    if model == "static":
        return static_headroom(spec, speed_mbps, cable_m, rounding=cable_rounding)
    if not spec.dynamic_formula:
        where = f"{spec.table_owner} at {speed_mbps} Mb/s, {cable_m} m"
        raise HeadroomUnavailable(
            f"no dynamic headroom for {where}: "
            + ("SONiC ships no dynamic model for this SKU; " if spec.sku and spec.vendor == "mellanox" else "")
            + "the formula is Mellanox-only; "
            f"use model 'static' (rows that exist: {spec.rows_summary()})"
        )
    return compute_headroom(
        spec,
        speed_mbps,
        cable_m,
        port_mtu=port_mtu,
        lossless_mtu=lossless_mtu,
        small_packet_percent=small_packet_percent,
        shared_headroom_pool=shared_headroom_pool,
        gearbox_delay_ns=gearbox_delay_ns,
        eight_lanes=eight_lanes,
    )
