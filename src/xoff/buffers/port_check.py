"""SONiC's per-port headroom check and shared headroom pool size on Mellanox.

Written from the behaviour of sonic-swss ``cfgmgr/buffer_check_headroom_mellanox.lua`` (the port
check) and ``cfgmgr/buffer_pool_mellanox.lua`` (the pool's ``xoff`` from ``over_subscribe_ratio``),
commit 422271e7; proven against the scripts' own outputs in ``tests/fixtures/sonic-lua/``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xoff.buffers.asics import AsicSpec, get_asic
from xoff.buffers.headroom import mellanox_consts

__all__ = [
    "PgReservation",
    "PortHeadroomVerdict",
    "check_port_headroom",
    "port_headroom_total",
    "shared_headroom_limit",
    "shared_headroom_pool_size",
    "shared_headroom_total",
]

_PORT_SLACK = 4096  # "to absorb the possible deviation"
_EGRESS_MIRROR = 20 * 1024  # 2 x the maximum MTU (10k)
_PRIVATE_HEADROOM = 10 * 1024  # per lossless port, taken out of the shared headroom pool
_DEFAULT_SHP = 655360  # the pool size SONiC falls back to when the computed one is 0


@dataclass(frozen=True)
class PgReservation:
    """One ``BUFFER_PG`` entry of a port: its PG key (``"3-4"``, ``"0"``) and its profile's numbers.

    A lossy profile has no ``xon``/``xoff``; a ``size`` of 0 stands for the lossy PG's implicit
    reservation (SONiC counts it as the pipeline latency)."""

    pgs: str
    size: int
    xon: int | None = None
    xoff: int | None = None

    @property
    def count(self) -> int:
        lo, _, hi = self.pgs.partition("-")
        return int(hi or lo) - int(lo) + 1


@dataclass(frozen=True)
class PortHeadroomVerdict:
    """The port check's answer: ``ok`` as SONiC's ``result``, with the totals it compared."""

    ok: bool
    total: int
    shared: int
    max_headroom_size: int | None
    shared_limit: int | None


def _pipeline_kb(spec: AsicSpec, eight_lanes: bool) -> int:
    k = mellanox_consts(spec, "the per-port headroom check")
    # Ports with 8 lanes span two buffer units: pipeline latency 2x-1 KB.
    return k.pipeline_latency_kb * 2 - 1 if eight_lanes else k.pipeline_latency_kb


def port_headroom_total(asic: AsicSpec | str, pgs: Sequence[PgReservation], *, eight_lanes: bool = False) -> int:
    """The accumulated headroom of one port: 4096 + the lossy PG reserve (pipeline latency) + the egress
    mirror (20 KB, doubled on 8 lanes) + each PG's size x its PG count, a size-0 PG counting as the
    pipeline latency."""
    lossy = _pipeline_kb(_spec(asic), eight_lanes) * 1024
    mirror = _EGRESS_MIRROR * 2 if eight_lanes else _EGRESS_MIRROR
    if any(pg.size < 0 for pg in pgs):
        raise ValueError(f"profile sizes must be >= 0, got {[pg.size for pg in pgs]}")
    return _PORT_SLACK + lossy + mirror + sum((pg.size or lossy) * pg.count for pg in pgs)


def shared_headroom_total(asic: AsicSpec | str, pgs: Sequence[PgReservation], *, eight_lanes: bool = False) -> int:
    """``Σ (xon + xoff − size) × #PGs`` over the lossless PGs whose size is below xon + xoff."""
    lossy = _pipeline_kb(_spec(asic), eight_lanes) * 1024
    total = 0
    for pg in pgs:
        size = pg.size or lossy
        if pg.xon is not None and pg.xoff is not None and size < pg.xon + pg.xoff:
            total += (pg.xon + pg.xoff - size) * pg.count
    return total


def shared_headroom_limit(asic: AsicSpec | str, *, eight_lanes: bool = False) -> int:
    """Per-port cap on the shared headroom: ``(port_max_shp + port_reserved_shp) × cell_size``;
    ``port_reserved_shp`` doubles on 8-lane ports."""
    k = mellanox_consts(_spec(asic), "the shared headroom limit")
    reserved = k.port_reserved_shp * 2 if eight_lanes else k.port_reserved_shp
    return (k.port_max_shp + reserved) * k.cell_size


def check_port_headroom(
    asic: AsicSpec | str,
    pgs: Sequence[PgReservation],
    *,
    max_headroom_size: int | None,
    shared_headroom_pool: bool = False,
    eight_lanes: bool = False,
) -> PortHeadroomVerdict:
    """SONiC's accept/reject for a port's PGs: accepted when no ``max_headroom_size`` is known, else when
    the total is strictly below it and, with a shared headroom pool, the shared part is within the cap."""
    total = port_headroom_total(asic, pgs, eight_lanes=eight_lanes)
    shared = shared_headroom_total(asic, pgs, eight_lanes=eight_lanes) if shared_headroom_pool else 0
    limit = shared_headroom_limit(asic, eight_lanes=eight_lanes) if shared_headroom_pool else None
    if max_headroom_size is None:
        return PortHeadroomVerdict(True, total, shared, None, limit)
    ok = max_headroom_size > total and (limit is None or shared <= limit)
    return PortHeadroomVerdict(ok, total, shared, max_headroom_size, limit)


def shared_headroom_pool_size(
    pgs: Sequence[PgReservation],
    *,
    lossless_ports: int,
    pool_xoff: int | None = None,
    over_subscribe_ratio: int | None = None,
) -> int:
    """``BUFFER_POOL|ingress_lossless_pool.xoff`` as SONiC's pool script sets it (0: no shared pool).

    A configured pool ``xoff`` wins. Otherwise the lossless PGs' ``xon + xoff − size`` over every port
    (``pgs`` holds all of the switch's PG entries), less 10 KB of private headroom per lossless port,
    divided by ``over_subscribe_ratio`` and rounded up; 655360 when that is 0. Without a ratio, profiles
    that need shared headroom still force a 655360-byte pool.
    """
    if pool_xoff:
        return pool_xoff
    xoff = sum(
        (pg.xon + pg.xoff - pg.size) * pg.count
        for pg in pgs
        if pg.size and pg.xon is not None and pg.xoff is not None and pg.xon + pg.xoff > pg.size
    )
    if not over_subscribe_ratio:
        return _DEFAULT_SHP if xoff > 0 else 0
    return math.ceil(max(0, xoff - lossless_ports * _PRIVATE_HEADROOM) / over_subscribe_ratio) or _DEFAULT_SHP


def _spec(asic: AsicSpec | str) -> AsicSpec:
    return get_asic(asic) if isinstance(asic, str) else asic
