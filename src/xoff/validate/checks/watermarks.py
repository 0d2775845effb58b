"""Buffer watermarks of the running fabric against the plan: the peak headroom a lossless priority group used, and
the peak occupancy of each buffer pool (SONiC ``show priority-group watermark headroom``, ``show buffer_pool
watermark``, ``show headroom-pool watermark``).

The planned headroom of a lossless PG is its profile's ``xoff``: the bytes the port must absorb after it sends PAUSE
(the in-flight data on the cable and in the peer's pipeline, reference/lossless.md 1.4). ``size - xon`` is the same
number only where ``size = xon + xoff`` (Mellanox without a shared headroom pool); on Broadcom ``size`` is only the
guaranteed reserve and with a shared headroom pool ``size = xon``, so ``size - xon`` would call a correctly sized
port full. ``xoff`` means the same on every ASIC and buffer model.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import Buffers, Device
from xoff.validate.checks.common import not_judged
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

HEADROOM_POOL_SUFFIX = ":headroom"  # the SONiC collector's key of a pool's shared headroom watermark


def pg_numbers(key: str) -> list[int]:
    """``BUFFER_PG`` keys' PG part: ``3`` or a range ``3-4``."""
    first, _, last = key.partition("-")
    return list(range(int(first), int(last or first) + 1))


def planned_headroom(buffers: Buffers) -> Iterator[tuple[str, int, str, int]]:
    """(port, PG, profile, planned headroom bytes) for every PG whose profile reserves headroom (xoff > 0)."""
    for port, groups in sorted(buffers.port_priority_groups.items()):
        for key, profile_name in sorted(groups.items()):
            profile = buffers.profiles.get(profile_name)
            if profile is None or profile.xoff <= 0:
                continue
            for pg in pg_numbers(key):
                yield port, pg, profile_name, profile.xoff


def _pg_marks(ctx: CheckContext) -> Iterator[tuple[str, str, int, str, int, int]]:
    """(device, port, PG, profile, planned headroom, headroom watermark) for every planned lossless PG whose
    headroom watermark was read."""
    for name, ports in sorted(ctx.snapshot.counters.items()):
        dev = ctx.desired.devices.get(name)
        if dev is None or dev.buffers is None:
            continue
        for port, pg, profile, headroom in planned_headroom(dev.buffers):
            marks = ports[port].watermarks if port in ports else None
            if marks is not None and pg in marks.pg_headroom:
                yield name, port, pg, profile, headroom, marks.pg_headroom[pg]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:g}%"


@register
class HeadroomWatermark(Check):
    """A lossless priority group used nearly all of its planned headroom, or more: the peak bytes the switch
    buffered in the PG's headroom (``show priority-group watermark headroom``) reached ``max_fraction`` of the
    headroom the plan reserves for it (its buffer profile's ``xoff``: what the port must absorb after it sends
    PAUSE). A PG that fills its headroom drops lossless packets the next time: the cable is longer than planned,
    the peer reacts to PAUSE late, or the profile is not the one planned. The planned headroom is ``xoff``, not
    ``size - xon``: the two agree only where ``size = xon + xoff`` (Mellanox without a shared headroom pool); on
    Broadcom ``size`` is the guaranteed reserve, and with a shared headroom pool ``size = xon``. The default
    ``max_fraction`` 0.9 leaves a 10% margin (about one 9100-byte frame on an SN5600 100G 5 m profile, xoff 113664)."""

    class Params(CheckParams):
        max_fraction: float = 0.9  # of the planned headroom: a 10% margin, one jumbo frame on a 100G 5 m SN5600 profile

    id = "buffers.headroom_watermark"
    tags = ("lossless",)
    title = "Lossless PG headroom watermark below the planned headroom"
    needs = frozenset({"desired", "observed"})
    hint = "check the cable length and speed the headroom was planned for, and the peer's PFC response"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if next(_pg_marks(ctx), None) is None:
            return (
                "no headroom watermark of a planned lossless PG was read "
                "(SONiC `show priority-group watermark headroom`)"
            )
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_fraction
        judged, seen = 0, set()
        for name, port, pg, profile, headroom, used in _pg_marks(ctx):
            judged += 1
            seen.add(name)
            if used >= limit * headroom:
                yield Finding(
                    name,
                    f"{port} PG{pg}",
                    "headroom watermark near or above the planned headroom",
                    f"< {_percent(limit)} of {headroom} bytes (profile {profile} xoff)",
                    f"{used} bytes ({used / headroom:.0%})",
                    port,
                    pg,
                )
        planned = {n for n, d in ctx.desired.devices.items() if d.buffers and any(planned_headroom(d.buffers))}
        unread = not_judged(ctx.chosen(planned - seen), "no headroom watermark of a planned lossless PG observed")
        self.note = f"{judged} lossless PG headroom watermark(s) judged" + (f"; {unread}" if unread else "")


def _pool_limits(dev: Device) -> dict[str, tuple[int, str]]:
    """Watermark key -> (planned bytes, what they are): a pool's size; its shared headroom pool's (``xoff``)."""
    limits: dict[str, tuple[int, str]] = {}
    for pool in dev.buffers.pools if dev.buffers is not None else []:
        if pool.size:
            limits[pool.name] = (pool.size, "pool size")
        if pool.xoff:
            limits[f"{pool.name}{HEADROOM_POOL_SUFFIX}"] = (pool.xoff, "shared headroom pool size (xoff)")
    return limits


def _pool_marks(ctx: CheckContext) -> Iterator[tuple[str, str, int, int, str]]:
    """(device, watermark key, peak bytes, planned bytes, what they are) for every planned pool size read."""
    for name, pools in sorted(ctx.snapshot.buffer_pool_watermarks.items()):
        dev = ctx.desired.devices.get(name)
        limits = _pool_limits(dev) if dev is not None else {}
        for key, used in sorted(pools.items()):
            if key in limits:  # else not in the plan, or its size is the switch's to compute
                yield name, key, used, *limits[key]


@register
class PoolWatermark(Check):
    """A buffer pool, or its shared headroom pool, filled nearly to its planned size: the peak bytes the switch
    recorded for the pool (``show buffer_pool watermark``; the headroom pool's from ``show headroom-pool
    watermark``) reached ``max_fraction`` of the size the plan gives it. A full shared pool makes dynamic thresholds
    collapse (lossy drops, lossless PGs pausing early); a full headroom pool drops lossless traffic. Pools whose
    size the plan leaves to the switch (dynamic buffer model) are not judged."""

    class Params(CheckParams):
        max_fraction: float = 0.9  # of the planned pool size

    id = "buffers.pool_watermark"
    tags = ("lossless",)
    title = "Buffer pool watermarks below the planned pool sizes"
    needs = frozenset({"desired", "observed"})
    hint = "find the ports that congest (show priority-group watermark shared); resize the pool or the thresholds"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if next(_pool_marks(ctx), None) is None:
            return "no watermark of a pool the plan sizes was read (SONiC `show buffer_pool watermark`)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_fraction
        judged = 0
        for name, key, used, size, what in _pool_marks(ctx):
            judged += 1
            if used >= limit * size:
                headroom = key.endswith(HEADROOM_POOL_SUFFIX)
                yield Finding(
                    name,
                    f"buffer pool {key.removesuffix(HEADROOM_POOL_SUFFIX)}{' headroom' if headroom else ''}",
                    "pool watermark near or above its planned size",
                    f"< {_percent(limit)} of {size} bytes ({what})",
                    f"{used} bytes ({used / size:.0%})",
                )
        self.note = f"{judged} pool watermark(s) judged against the plan"
