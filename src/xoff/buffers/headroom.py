"""Lossless PG headroom: static lookup rows and the Mellanox dynamic formula.

The formula is a port of SONiC's ``buffer_headroom_mellanox.lua`` written from the description in
reference/lossless.md §1.4; the lookup model follows §1.3 (``pg_profile_lookup.ini``).
All sizes are bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from xoff.buffers.asics import AsicSpec, get_asic

__all__ = [
    "PAUSE_QUANTA",
    "Headroom",
    "HeadroomUnavailable",
    "compute_headroom",
    "headroom_for",
    "lookup_headroom",
    "port_headroom_total",
    "shared_headroom_limit",
]

# Pause quanta per speed in Mb/s, IEEE 802.3 Annex 31B.3.7 as encoded in the Lua (§1.4).
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

_MIN_PACKET = 64  # bytes; the small packet the worst-case cell occupancy is sized for
_SPEED_OF_LIGHT_MEDIA = 198e6  # m/s in cable, as in the Lua
_SMALL_PACKET_COMPENSATION = 2 * 1024
_PORT_SLACK = 4096  # buffer_check_headroom_mellanox starts at 4096 "to absorb deviation"
_EGRESS_MIRROR = 20 * 1024


class HeadroomUnavailable(ValueError):  # noqa: N818 - name fixed by the public API
    """No headroom can be produced for this ASIC, speed and cable under the chosen model."""


@dataclass(frozen=True)
class Headroom:
    """A lossless PG profile's headroom numbers, with where they came from."""

    xon: int
    xoff: int
    size: int
    xon_offset: int | None
    source: str
    speed_mbps: int
    cable_m: int
    dynamic_th: int | None = None  # the lookup row's threshold; None: the formula's (the policy gives it)

    @property
    def profile_name(self) -> str:
        """SONiC buffermgr naming: ``pg_lossless_<speed>_<cable>m_profile`` (§1.3)."""
        return f"pg_lossless_{self.speed_mbps}_{self.cable_m}m_profile"


@dataclass(frozen=True)
class _Consts:
    cell_size: int
    pipeline_latency_kb: int
    mac_phy_delay_kb: float
    peer_response_time_kb: float
    port_reserved_shp: int
    port_max_shp: int


def _resolve(asic: AsicSpec | str) -> AsicSpec:
    return get_asic(asic) if isinstance(asic, str) else asic


def _consts(spec: AsicSpec, what: str) -> _Consts:
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
    return _Consts(c[0], c[1], c[2], c[3], c[4], c[5])


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
    lossless_mtu: int = 1024,
    small_packet_percent: int = 100,
    shared_headroom_pool: bool = False,
    gearbox_delay_ns: int = 0,
    eight_lanes: bool = False,
) -> Headroom:
    """Headroom from the Mellanox dynamic formula (reference/lossless.md §1.4).

    ``small_packet_percent`` defaults to 100, which reproduces the SN5600 lookup rows; SONiC's
    dynamic template writes 50 (§1.3). Raises ``HeadroomUnavailable`` on non-Mellanox ASICs.
    """
    spec = _resolve(asic)
    k = _consts(spec, "the dynamic headroom formula")
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
    return Headroom(xon, xoff, size, None, source, speed_mbps, cable_m)


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
    lossless_mtu: int = 1024,
    small_packet_percent: int = 100,
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
        from xoff.buffers.static import static_headroom  # noqa: PLC0415 - static.py builds on this module

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


def port_headroom_total(asic: AsicSpec | str, profiles_sizes: Sequence[int], *, eight_lanes: bool = False) -> int:
    """Accumulative per-port headroom from ``buffer_check_headroom_mellanox.lua`` (§1.4).

    ``profiles_sizes`` holds one profile ``size`` per lossless PG (repeat a profile for each PG it
    covers). SONiC requires the result to be below the port's ``max_headroom_size``.
    """
    k = _consts(_resolve(asic), "the per-port headroom check")
    if any(s < 0 for s in profiles_sizes):
        raise ValueError(f"profile sizes must be >= 0, got {list(profiles_sizes)}")
    # 8-lane ports: pipeline latency becomes 2x-1 KB and the egress mirror doubles (§1.4).
    pipeline_kb = k.pipeline_latency_kb * 2 - 1 if eight_lanes else k.pipeline_latency_kb
    mirror = _EGRESS_MIRROR * 2 if eight_lanes else _EGRESS_MIRROR
    return _PORT_SLACK + pipeline_kb * 1024 + mirror + sum(profiles_sizes)


def shared_headroom_limit(asic: AsicSpec | str, *, eight_lanes: bool = False) -> int:
    """Per-port cap on ``Σ (xon+xoff−size)×#PGs`` with SHP: ``(port_max_shp+port_reserved_shp)×cell`` (§1.4).

    ``eight_lanes`` doubles ``port_reserved_shp``, as the pinned Lua does; §1.4 does not spell this out.
    """
    k = _consts(_resolve(asic), "the shared headroom limit")
    reserved = k.port_reserved_shp * 2 if eight_lanes else k.port_reserved_shp
    return (k.port_max_shp + reserved) * k.cell_size
