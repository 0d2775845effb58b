"""``buffers.pool_fit`` on the shipped SKU catalogue (issue 15): SONiC's own pools fit every SKU whose total buffer
is known, counted the way the vendor's pools share the memory; a pool too big fails with its margin; a SKU with no
known total is named and not judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers.catalogue import SKUS, Sku
from xoff.buffers.pools import pool_fit
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
SPINE = "  - {name: spine1, role: spine, mgmt: 192.0.2.11}"
JUDGED = sorted(
    (name, key)
    for name, sku in SKUS.items()
    for key in ("pools", "pools_t0")
    if getattr(sku, key) is not None and getattr(sku, key).total_buffer is not None
)


def _fit_of(sku: Sku, key: str) -> str:
    p = getattr(sku, key)
    sizes = {
        "ingress_lossless_pool": p.ingress_lossless_pool,
        "ingress_lossy_pool": p.ingress_lossy_pool,
        "egress_lossless_pool": p.egress_lossless_pool,
        "egress_lossy_pool": p.egress_lossy_pool,
    }
    fit = pool_fit(sizes, p.shared_headroom_pool_xoff, p.total_buffer, p.pool_accounting or "pools_and_headroom")
    if fit is None:  # the template's lossless pool size is an expression the extractor does not evaluate
        assert p.ingress_lossless_pool is None
        return "not judged: ingress_lossless_pool not read"
    return ("fits: " if fit.fits else "DOES NOT FIT: ") + fit.describe()


def test_the_shipped_totals_cover_the_gpu_fabric_families() -> None:
    """Every Spectrum SKU (SONiC's own mmu_size stand-in) and the Broadcom families with a published total."""
    asics = {SKUS[name].asic for name, _ in JUDGED}
    assert {f"spectrum{n}" for n in range(1, 7)} | {"tomahawk", "tomahawk2", "tomahawk3", "trident3"} <= asics
    for name, key in JUDGED:
        pools = getattr(SKUS[name], key)
        assert pools.total_buffer_source and pools.total_buffer_published and pools.pool_accounting, name


@pytest.mark.parametrize(("name", "key"), JUDGED, ids=[f"{n}:{k}" for n, k in JUDGED])
def test_sonics_shipped_pools_fit_their_sku(name: str, key: str) -> None:
    said = _fit_of(SKUS[name], key)
    assert said.startswith(("fits: ", "not judged: ")), f"{name} {key}: {said}"


def _plan(tmp_path: Path, spine: str) -> FabricState:
    text = MINIMAL.read_text(encoding="utf-8").replace(SPINE, SPINE[:-1] + ", " + spine + "}")
    (tmp_path / "intent.yaml").write_text(text, encoding="utf-8")
    return build_fabric_state(load_intent(tmp_path / "intent.yaml"))


def _observed(state: FabricState, pool: str, field: str, extra: int) -> FabricState:
    """The spine as read back with one pool's ``field`` (size or xoff) ``extra`` bytes larger than planned."""
    dev = state.devices["spine1"]
    assert dev.buffers is not None
    pools = [
        p.model_copy(update={field: (getattr(p, field) or 0) + extra}) if p.name == pool else p
        for p in dev.buffers.pools
    ]
    grown = dev.model_copy(update={"buffers": dev.buffers.model_copy(update={"pools": pools})})
    return state.model_copy(update={"devices": {**state.devices, "spine1": grown}})


# SN5600 t1: 52161690 + 52161690 (+ no shared headroom pool) of 158229504 (its egress_lossless_pool, the Lua's mmu_size)
SN5600_MARGIN = 158229504 - 2 * 52161690
# Z9332F t1: ingress_lossless_pool 66394076 (holding the 27200352 B shared headroom pool) of 64 MiB
Z9332F_MARGIN = 64 * 2**20 - 66394076


@pytest.mark.parametrize(
    ("spine", "change", "status", "text"),
    [
        ("sku: SN5600", None, Status.SUCCESS, f"spine1 margin {SN5600_MARGIN} B"),
        (
            "sku: SN5600",
            ("ingress_lossy_pool", "size", SN5600_MARGIN + 1),
            Status.FAILURE,
            f"Actual: ingress_lossless_pool 52161690 + ingress_lossy_pool {52161690 + SN5600_MARGIN + 1} = 158229505"
            " of 158229504 bytes, margin -1 (-0.0 %)",
        ),
        ("platform: eos, sku: Z9332F", None, Status.SUCCESS, f"spine1 margin {Z9332F_MARGIN} B"),
        (
            "platform: eos, sku: Z9332F",
            ("ingress_lossless_pool", "size", Z9332F_MARGIN + 4096),
            Status.FAILURE,
            "the total of SKU DellEMC-Z9332f-O32, from https://gist.github.com/jopietsch/",
        ),
        (
            "platform: eos, sku: Z9332F",
            ("ingress_lossless_pool", "xoff", 66394076 - 27200352 + 1),
            Status.FAILURE,
            "(the shared headroom pool 66394077 is inside it, and larger) = 66394076 of 67108864 bytes",
        ),
        # Tomahawk 5: no published total found; the SKU is named and not judged (the Spectrum-4 leaves are, by
        # their ASIC's reference SKU ACS-SN5600)
        (
            "platform: eos, sku: 7060X6-64PE-B-O128",
            None,
            Status.SUCCESS,
            f"leaf1 margin {SN5600_MARGIN} B, leaf2 margin {SN5600_MARGIN} B; not judged: spine1: SKU"
            " Arista-7060X6-64PE-B-O128 gives no total buffer",
        ),
    ],
)
def test_pool_fit_on_shipped_skus(
    tmp_path: Path, spine: str, change: tuple[str, str, int] | None, status: Status, text: str
) -> None:
    desired = _plan(tmp_path, spine)
    observed = None if change is None else mirror_snapshot(_observed(desired, *change))
    (result,) = run_checks(desired, ["buffers.pool_fit"], observed=observed)
    assert result.status is status, result
    said = "\n".join(str(f) for f in result.findings) or result.message or ""
    assert text in said, said
