"""Lossless buffer headroom: ASIC catalog and headroom calculator (reference/lossless.md §1.3, §1.4)."""

from xoff.buffers.asics import ASICS, AsicSpec, LookupRow, PoolSizes, get_asic
from xoff.buffers.headroom import (
    PAUSE_QUANTA,
    Headroom,
    HeadroomUnavailable,
    compute_headroom,
    headroom_for,
    lookup_headroom,
    port_headroom_total,
    shared_headroom_limit,
)

__all__ = [
    "ASICS",
    "PAUSE_QUANTA",
    "AsicSpec",
    "Headroom",
    "HeadroomUnavailable",
    "LookupRow",
    "PoolSizes",
    "compute_headroom",
    "get_asic",
    "headroom_for",
    "lookup_headroom",
    "port_headroom_total",
    "shared_headroom_limit",
]
