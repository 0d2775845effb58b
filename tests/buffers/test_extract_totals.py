"""``scripts/extract_skus.py``'s total buffer per pools block (issue 15): Spectrum takes SONiC's own stand-in for
``mmu_size`` (the egress_lossless_pool size), Broadcom the ASIC's published MB read as MiB, others none."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT, load_module

EXTRACT = load_module("extract_skus", ROOT / "scripts" / "extract_skus.py", registered=True)  # dataclasses


@pytest.mark.parametrize(
    ("hwsku", "vendor", "asic", "egress", "total", "accounting", "published"),
    [
        ("ACS-SN5600", "mellanox", "spectrum4", 158229504, 158229504, "pools_and_headroom", "egress_lossless_pool"),
        ("ACS-X", "mellanox", "spectrum4", None, None, None, None),  # no egress_lossless_pool: no total
        ("DellEMC-Z9332f-O32", "broadcom", "tomahawk3", 38462204, 64 * 2**20, "headroom_in_lossless_pool", "64 MB"),
        ("DELLEMC-N3248PXE", "broadcom", "trident3", 8388608, 8 * 2**20, "headroom_in_lossless_pool", "8 MB"),
        ("Arista-7060X6-64PE-B-O128", "broadcom", "tomahawk5", 164505640, None, "headroom_in_lossless_pool", None),
        ("newport", "barefoot", "tofino2", 46749824, None, None, None),
    ],
)
def test_add_total(
    hwsku: str,
    vendor: str,
    asic: str,
    egress: int | None,
    total: int | None,
    accounting: str | None,
    published: str | None,
) -> None:
    pools: dict[str, object] = {"file": "buffers_defaults_t1.j2", "egress_lossless_pool": egress}
    EXTRACT.add_total(hwsku, vendor, asic, pools)
    assert set(pools) == {"file", "egress_lossless_pool", *EXTRACT.TOTAL_KEYS}
    assert (pools["total_buffer"], pools["pool_accounting"]) == (total, accounting)
    if published is None:
        assert pools["total_buffer_published"] is None or total is None
    else:
        assert str(pools["total_buffer_published"]).startswith(published) and pools["total_buffer_source"]


def test_every_published_total_names_an_address_and_its_words() -> None:
    for mb, source in [*EXTRACT.PUBLISHED_TOTALS.values(), *EXTRACT.PUBLISHED_SKU_TOTALS.values()]:
        assert mb > 0 and source.startswith("https://") and f"{mb}" in source.split(" ", 1)[1]
