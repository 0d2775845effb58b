"""Do a switch's buffer pools fit its ASIC's buffer? (issue 15: ingress lossless + shared headroom pool + lossy
<= the total, where the SKU's source gives the total.)"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PoolFit", "pool_fit"]


@dataclass(frozen=True)
class PoolFit:
    """What the pools take of the buffer: ``used`` bytes of ``total``; ``margin`` is what is left (< 0: no fit)."""

    used: int
    total: int
    parts: tuple[tuple[str, int], ...]

    @property
    def margin(self) -> int:
        return self.total - self.used

    @property
    def fits(self) -> bool:
        return self.margin >= 0

    def describe(self) -> str:
        sums = " + ".join(f"{name} {size}" for name, size in self.parts)
        pct = 100 * self.margin / self.total if self.total else 0.0
        return f"{sums} = {self.used} of {self.total} bytes, margin {self.margin} ({pct:.1f} %)"


def pool_fit(sizes: dict[str, int | None], shared_headroom: int | None, total: int | None) -> PoolFit | None:
    """``sizes``: pool name -> size. The sum taken: ``ingress_lossless_pool``, its ``xoff`` (the shared headroom
    pool) and the lossy pool (``ingress_lossy_pool``, or ``egress_lossy_pool`` where there is no ingress lossy
    pool, as on Broadcom). None when the total is not known (nothing to judge)."""
    if total is None:
        return None
    lossy = "ingress_lossy_pool" if sizes.get("ingress_lossy_pool") is not None else "egress_lossy_pool"
    parts = [
        ("ingress_lossless_pool", sizes.get("ingress_lossless_pool")),
        ("shared headroom pool", shared_headroom),
        (lossy, sizes.get(lossy)),
    ]
    given = tuple((name, size) for name, size in parts if size)
    return PoolFit(sum(size for _, size in given), total, given)
