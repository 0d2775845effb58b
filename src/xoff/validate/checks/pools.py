"""Do a switch's buffer pools fit its SKU's buffer (issue 15)?"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.buffers.catalogue import get_sku
from xoff.buffers.pools import PoolFit, pool_fit
from xoff.desired.models import Device
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def total_buffer(plan: Device | None) -> int | None:
    """The total buffer of the switch's catalogue SKU, where its source gives it (else None: not known)."""
    if plan is None or plan.buffers is None or plan.buffers.sku is None:
        return None
    pools = get_sku(plan.buffers.sku).pools
    return pools.total_buffer if pools is not None else None


def device_fit(dev: Device, total: int | None) -> PoolFit | None:
    """The fit of a device's pools (as planned or as read) in ``total``; None when there is nothing to judge."""
    if dev.buffers is None or not dev.buffers.pools:
        return None
    sizes = {p.name: p.size for p in dev.buffers.pools}
    shared = next((p.xoff for p in dev.buffers.pools if p.name == "ingress_lossless_pool"), None)
    return pool_fit(sizes, shared, total)


def _fits(ctx: CheckContext) -> Iterator[tuple[str, PoolFit]]:
    for name, dev in ctx.subject.devices.items():
        fit = device_fit(dev, total_buffer(ctx.desired.devices.get(name)))
        if fit is not None:
            yield name, fit


@register
class PoolFitCheck(Check):
    """The switch's buffer pools take more than its ASIC has: ingress lossless pool + shared headroom pool (the
    lossless pool's ``xoff``) + the lossy pool (ingress, or egress where there is no ingress lossy pool) above the
    total buffer its catalogue SKU gives (``pools.total_buffer``, from the SKU's source). Pools that do not fit are
    promised memory the ASIC cannot give, so lossless headroom runs out before the plan says it can. The margin left
    is shown for every switch judged; a switch whose SKU gives no total (or names no SKU) is not judged, and the
    check is skipped when no switch is."""

    id = "buffers.pool_fit"
    tags = ("lossless",)
    reads = ("buffers.pools",)
    title = "Buffer pools (ingress lossless + shared headroom + lossy) fit the SKU's total buffer"
    hint = "shrink the pools (buffers_defaults) or the shared headroom pool to the SKU's buffer, or name the right sku"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if next(_fits(ctx), None) is None:
            return "no switch names a catalogue SKU whose source gives its total buffer (pools.total_buffer)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        margins = []
        for name, fit in _fits(ctx):
            margins.append(f"{name} margin {fit.margin} B")
            if not fit.fits:
                yield Finding(
                    name, "buffer pools", "the pools exceed the total buffer", f"<= {fit.total}", fit.describe()
                )
        self.note = (
            f"{len(margins)} switch(es) judged: " + ", ".join(margins[:8]) + (" ..." if len(margins) > 8 else "")
        )
