"""Do a switch's buffer pools fit its ASIC's buffer? (issue 15: ingress lossless + shared headroom pool + lossy
<= the total, where the SKU's source gives the total.)

SONiC's pool sizes are views, and the vendors count them differently, so the sum taken depends on the SKU's
``pool_accounting`` (written with the total in the SKU data file, ``scripts/extract_skus.py`` says why):

- ``pools_and_headroom`` (NVIDIA Spectrum; sonic-swss ``cfgmgr/buffer_pool_mellanox.lua``): the chip's ``mmu_size``
  is shared by what the ports reserve, the shared headroom pool and the ingress pools, so ingress lossless + ingress
  lossy + the shared headroom pool (the lossless pool's ``xoff``) <= the total. With one ingress pool, the Lua
  gives it all that is left and lossy traffic shares it. The egress pools are never added: ``egress_lossy_pool``
  is the egress view of the ingress pools' memory (the Lua gives it the same size), ``egress_lossless_pool`` is the
  whole buffer itself (the Lua's fallback for ``mmu_size``).
- ``headroom_in_lossless_pool`` (Broadcom; SAI ``SAI_BUFFER_POOL_ATTR_XOFF_SIZE`` is the headroom partition of the
  ingress pool): the ingress lossless pool is the ingress view of the whole shared buffer, lossy traffic shares it,
  and the shared headroom pool sits inside it. So ingress_lossless_pool <= the total and its ``xoff`` <= the pool;
  the egress pools are egress views of the same cells and are not added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ACCOUNTING_RULES", "PoolAccounting", "PoolFit", "pool_fit"]

PoolAccounting = Literal["pools_and_headroom", "headroom_in_lossless_pool"]

ACCOUNTING_RULES: dict[str, str] = {
    "pools_and_headroom": "ingress lossless + ingress lossy + shared headroom pool <= total (SONiC's Mellanox Lua)",
    "headroom_in_lossless_pool": "ingress lossless pool (holding the shared headroom pool) <= total (SAI XOFF_SIZE)",
}


@dataclass(frozen=True)
class PoolFit:
    """What the pools take of the buffer: ``used`` bytes of ``total``; ``margin`` is what is left (< 0: no fit).

    ``inside``: the shared headroom pool where it is a part of the lossless pool (``headroom_in_lossless_pool``),
    with that pool's size; a headroom pool larger than its pool does not fit either."""

    used: int
    total: int
    parts: tuple[tuple[str, int], ...]
    inside: tuple[int, int] | None = None

    @property
    def margin(self) -> int:
        return self.total - self.used

    @property
    def fits(self) -> bool:
        return self.margin >= 0 and (self.inside is None or self.inside[0] <= self.inside[1])

    def describe(self) -> str:
        sums = " + ".join(f"{name} {size}" for name, size in self.parts)
        pct = 100 * self.margin / self.total if self.total else 0.0
        held = ""
        if self.inside is not None:
            shp, pool = self.inside
            held = f" (the shared headroom pool {shp} is inside it" + ("" if shp <= pool else ", and larger") + ")"
        return f"{sums}{held} = {self.used} of {self.total} bytes, margin {self.margin} ({pct:.1f} %)"


def pool_fit(
    sizes: dict[str, int | None],
    shared_headroom: int | None,
    total: int | None,
    accounting: str = "pools_and_headroom",
) -> PoolFit | None:
    """``sizes``: pool name -> size; ``accounting``: how they count in ``total`` (module docstring). None when the
    total or the ingress lossless pool's size is not known (nothing to judge)."""
    lossless = sizes.get("ingress_lossless_pool")
    if total is None or lossless is None:
        return None
    if accounting == "headroom_in_lossless_pool":
        inside = (shared_headroom, lossless) if shared_headroom else None
        return PoolFit(lossless, total, (("ingress_lossless_pool", lossless),), inside)
    parts = [
        ("ingress_lossless_pool", lossless),
        ("shared headroom pool", shared_headroom),
        ("ingress_lossy_pool", sizes.get("ingress_lossy_pool")),
    ]
    kept = tuple((name, size) for name, size in parts if size)
    return PoolFit(sum(size for _, size in kept), total, kept)
