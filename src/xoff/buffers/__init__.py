"""Lossless buffer headroom: ASIC catalog and headroom calculator (reference/lossless.md §1.3, §1.4)."""

from xoff.buffers.asics import ASICS, AsicSpec, LookupRow, PoolSizes, get_asic
from xoff.buffers.headroom import (
    PAUSE_QUANTA,
    Headroom,
    HeadroomUnavailable,
    compute_headroom,
    headroom_for,
    lookup_headroom,
)
from xoff.buffers.names import always_eight_lanes, dynamic_profile_name, static_profile_name
from xoff.buffers.port_check import (
    PgReservation,
    PortHeadroomVerdict,
    check_port_headroom,
    port_headroom_total,
    shared_headroom_limit,
    shared_headroom_pool_size,
    shared_headroom_total,
)

__all__ = [
    "ASICS",
    "PAUSE_QUANTA",
    "AsicSpec",
    "Headroom",
    "HeadroomUnavailable",
    "LookupRow",
    "PgReservation",
    "PoolSizes",
    "PortHeadroomVerdict",
    "always_eight_lanes",
    "check_port_headroom",
    "compute_headroom",
    "dynamic_profile_name",
    "get_asic",
    "headroom_for",
    "lookup_headroom",
    "port_headroom_total",
    "shared_headroom_limit",
    "shared_headroom_pool_size",
    "shared_headroom_total",
    "static_profile_name",
]
