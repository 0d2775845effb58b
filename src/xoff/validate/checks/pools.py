"""Do a switch's buffer pools fit its SKU's buffer (issue 15)?"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from xoff.buffers.catalogue import switch_asic
from xoff.buffers.pools import ACCOUNTING_RULES, PoolFit, pool_fit
from xoff.desired.models import Device
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


@dataclass(frozen=True)
class SwitchTotal:
    """What a switch's pools are judged against: its SKU's total buffer and how SONiC's pools count in it."""

    owner: str  # "SKU ACS-SN5600" or "ASIC tomahawk5 (no sku named)"
    bytes: int | None
    accounting: str
    source: str | None


def switch_total(plan: Device | None) -> SwitchTotal | None:
    """The total buffer of the switch as planned: its catalogue SKU's, or its ASIC's reference SKU's (``bytes``
    None: no source gives it); None: the plan has no buffers for it."""
    if plan is None or plan.buffers is None or plan.asic is None:
        return None
    spec = switch_asic(plan.asic, plan.buffers.sku)
    owner = f"SKU {spec.sku}" if spec.sku else f"ASIC {spec.name} (no sku named)"
    p = spec.pools
    return SwitchTotal(owner, p.total_buffer, p.pool_accounting, p.total_buffer_source)


def device_fit(dev: Device, total: int | None, accounting: str = "pools_and_headroom") -> PoolFit | None:
    """The fit of a device's pools (as planned or as read) in ``total``; None when there is nothing to judge."""
    if dev.buffers is None or not dev.buffers.pools:
        return None
    sizes = {p.name: p.size for p in dev.buffers.pools}
    shared = next((p.xoff for p in dev.buffers.pools if p.name == "ingress_lossless_pool"), None)
    return pool_fit(sizes, shared, total, accounting)


def _fits(ctx: CheckContext) -> Iterator[tuple[str, PoolFit | None, SwitchTotal | None]]:
    """Every switch with pools: its fit (None: not judged) and its total (None: no SKU). Both depend on the
    switch only through its pools and its plan's ASIC and buffers, so switches holding the same objects (the plan
    shares them) are worked out once."""
    alike: dict[tuple[object, ...], tuple[PoolFit | None, SwitchTotal | None]] = {}
    for name, dev in ctx.subject.devices.items():
        if dev.buffers is None or not dev.buffers.pools:
            continue
        plan = ctx.desired.devices.get(name)
        key = (id(dev.buffers), None if plan is None else (plan.asic, id(plan.buffers)))
        known = alike.get(key)
        if known is None:
            total = switch_total(plan)
            known = alike[key] = (None if total is None else device_fit(dev, total.bytes, total.accounting), total)
        yield name, *known


def _why(name: str, total: SwitchTotal | None) -> str:
    if total is None:
        return f"{name} has no buffer plan"
    if total.bytes is None:
        return f"{name}: {total.owner} gives no total buffer"
    return f"{name}: the size of its ingress_lossless_pool is not known"


def _unjudged(fits: Iterable[tuple[str, PoolFit | None, SwitchTotal | None]]) -> str:
    why = [_why(name, t) for name, fit, t in fits if fit is None]
    return "; ".join(why[:4]) + (f" and {len(why) - 4} more" if len(why) > 4 else "")


@register
class PoolFitCheck(Check):
    """The switch's buffer pools take more than its ASIC has, counted the way its vendor's pools share the memory
    (``pools.pool_accounting`` of its catalogue SKU): on NVIDIA Spectrum, ingress lossless pool + ingress lossy pool +
    shared headroom pool (the lossless pool's ``xoff``) above the total (SONiC's ``buffer_pool_mellanox.lua`` shares
    ``mmu_size`` that way); on Broadcom, the ingress lossless pool above the total, or its shared headroom pool above
    the pool (the headroom pool is a partition of the ingress pool, SAI ``XOFF_SIZE``). Egress pools are other views
    of the same memory and are not added. The total is the SKU's ``pools.total_buffer`` with its source (a switch
    naming only its ASIC: the ASIC's reference SKU's). Pools that do not fit are promised memory the ASIC cannot
    give, so lossless headroom runs out before the plan says it can. The margin left is shown for every switch
    judged; a switch whose SKU (or ASIC) gives no total is not judged and named, and the check is skipped when no
    switch is."""

    id = "buffers.pool_fit"
    tags = ("lossless",)
    reads = ("buffers.pools",)
    title = "Buffer pools (ingress lossless, lossy and shared headroom, as the vendor counts them) fit the SKU's buffer"
    hint = "shrink the pools (buffers_defaults) or the shared headroom pool to the SKU's buffer, or name the right sku"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        fits = list(_fits(ctx))
        if not any(fit is not None for _, fit, _ in fits):
            why = _unjudged(fits) or "no switch has buffer pools"
            return f"no switch's total buffer is known (pools.total_buffer of its catalogue SKU): {why}"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        margins = []
        fits = list(_fits(ctx))
        for name, fit, total in fits:
            if fit is None or total is None:
                continue
            margins.append(f"{name} margin {fit.margin} B")
            if not fit.fits:
                yield Finding(
                    name,
                    "buffer pools",
                    "the pools exceed the total buffer",
                    f"<= {fit.total} ({ACCOUNTING_RULES[total.accounting]}; the total of {total.owner}"
                    + (f", from {total.source})" if total.source else ")"),
                    fit.describe(),
                )
        unjudged = _unjudged(fits)
        self.note = (
            f"{len(margins)} switch(es) judged: " + ", ".join(margins[:8]) + (" ..." if len(margins) > 8 else "")
        ) + (f"; not judged: {unjudged}" if unjudged else "")
