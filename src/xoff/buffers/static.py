"""SONiC's static (traditional) buffer model: the headroom is the lookup table's row, nothing else.

SONiC's buffermgr creates no lossless profile for a speed/cable pair its ``pg_profile_lookup.ini`` lacks (it logs
and leaves the port without one), so xoff never computes a number in its place: a missing row is an error naming
the table and the rows it has. ``rounding="up"`` (``buffers.cable_rounding: up``) takes the row of the same speed
with the nearest longer cable instead, and the source says so.
"""

from __future__ import annotations

from typing import Literal

from xoff.buffers.asics import AsicSpec, LookupRow
from xoff.buffers.result import Headroom, HeadroomUnavailable

__all__ = ["CableRounding", "static_headroom", "table_row"]

CableRounding = Literal["exact", "up"]


def table_row(spec: AsicSpec, speed: int, cable: int, rounding: CableRounding) -> LookupRow | None:
    """The row the static model takes for ``speed`` and ``cable`` (None: there is none)."""
    same_speed = [r for r in spec.lookup_rows if r.speed_mbps == speed]
    exact = next((r for r in same_speed if r.cable_m == cable), None)
    if exact is not None or rounding == "exact":
        return exact
    longer = sorted((r for r in same_speed if r.cable_m > cable), key=lambda r: r.cable_m)
    return longer[0] if longer else None


def static_headroom(spec: AsicSpec, speed: int, cable: int, *, rounding: CableRounding = "exact") -> Headroom:
    """The table row for ``speed`` (Mb/s) and ``cable`` (m) of the SKU's (or else the ASIC's) table.

    Raises :class:`HeadroomUnavailable` naming the table and its rows when there is none.
    """
    row = table_row(spec, speed, cable, rounding)
    if row is None:
        how = "no row for it" if rounding == "exact" else "no row for it or a longer cable at that speed"
        fix = "" if rounding == "up" else ", or buffers.cable_rounding: up for the nearest longer cable row"
        raise HeadroomUnavailable(
            f"no static headroom for {spec.table_owner} at {speed} Mb/s, {cable} m: its pg_profile_lookup.ini has "
            f"{how} and the static model never computes one (rows that exist: {spec.rows_summary()}; allowed: "
            f"such a row, a headroom_rows entry{fix}, or model dynamic where the ASIC has a formula)"
        )
    where = f"lookup: {row.source} row {row.speed_mbps} {row.cable_m}m"
    if row.cable_m != cable:
        where += f" (nearest longer cable for {cable} m, buffers.cable_rounding: up)"
    # the profile is named for the port's cable (SONiC: pg_lossless_<speed>_<CABLE_LENGTH>_profile); the source
    # names the row whose numbers it holds
    return Headroom(row.xon, row.xoff, row.size, row.xon_offset, where, speed, cable, dynamic_th=row.threshold)
