"""``buffers.pool_fit`` and the plan's own pool problem (issue 15): pools within the SKU's total buffer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers import catalogue as cat
from xoff.desired import FabricState, build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
SPINE = "  - {name: spine1, role: spine, mgmt: 192.0.2.11}"
TH5 = ROOT / "tests" / "fixtures" / "skus" / "arista" / "Arista-7060X6-64PE.yaml"
# the fixture's pools: ingress lossless 166115492 + shared headroom 22035008, of 201326592
USED, TOTAL = 166115492 + 22035008, 201326592


@pytest.fixture(autouse=True)
def fixture_skus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cat, "_SHIPPED", ROOT / "tests" / "fixtures" / "skus")
    monkeypatch.delenv(cat.SKU_DIR_ENV, raising=False)


def _plan(tmp_path: Path, spine: str) -> FabricState:
    text = MINIMAL.read_text(encoding="utf-8").replace(SPINE, SPINE[:-1] + ", " + spine + "}")
    (tmp_path / "intent.yaml").write_text(text, encoding="utf-8")
    return build_fabric_state(load_intent(tmp_path / "intent.yaml"))


def _grown(state: FabricState, extra: int) -> FabricState:
    """The spine as read back with its ingress lossless pool ``extra`` bytes larger than planned."""
    dev = state.devices["spine1"]
    assert dev.buffers is not None
    pools = [
        p.model_copy(update={"size": (p.size or 0) + extra}) if p.name == "ingress_lossless_pool" else p
        for p in dev.buffers.pools
    ]
    grown = dev.model_copy(update={"buffers": dev.buffers.model_copy(update={"pools": pools})})
    return state.model_copy(update={"devices": {**state.devices, "spine1": grown}})


@pytest.mark.parametrize(
    ("spine", "extra", "status", "text"),
    [
        ("platform: eos, sku: 7060X6-64PE", None, Status.SUCCESS, f"spine1 margin {TOTAL - USED} B"),
        ("platform: eos, sku: 7060X6-64PE", TOTAL - USED, Status.SUCCESS, "spine1 margin 0 B"),  # exactly full fits
        (
            "platform: eos, sku: 7060X6-64PE",
            TOTAL - USED + 1,
            Status.FAILURE,
            f"spine1: buffer pools - the pools exceed the total buffer - Expected: <= {TOTAL} (ingress lossless +"
            " ingress lossy + shared headroom pool <= total (SONiC's Mellanox Lua); the total of SKU"
            f" Arista-7060X6-64PE) Actual: ingress_lossless_pool {166115492 + TOTAL - USED + 1} + shared headroom"
            f" pool 22035008 = {TOTAL + 1} of {TOTAL} bytes, margin -1",
        ),
        # the SN5600 fixture gives no total; the ASIC alone gives none either: nothing to judge
        ("sku: SN5600", None, Status.SKIPPED, "spine1: SKU ACS-SN5600 gives no total buffer"),
        # an ASIC without a SKU: its reference SKU's total (none here: the fixture SN5600 gives none, TH5 has none)
        ("platform: eos, asic: tomahawk5", None, Status.SKIPPED, "spine1: ASIC tomahawk5 (no sku named) gives no"),
    ],
)
def test_pool_fit(tmp_path: Path, spine: str, extra: int | None, status: Status, text: str) -> None:
    desired = _plan(tmp_path, spine)
    if extra is None:
        (result,) = run_checks(desired, ["buffers.pool_fit"])
    else:
        (result,) = run_checks(desired, ["buffers.pool_fit"], observed=mirror_snapshot(_grown(desired, extra)))
    assert result.status is status, result
    said = "\n".join(str(f) for f in result.findings) or result.message or ""
    assert text in said, said


def test_the_plan_refuses_pools_that_do_not_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    text = TH5.read_text(encoding="utf-8").replace("total_buffer: 201326592", "total_buffer: 150000000")
    text = text.replace("hwsku: Arista-7060X6-64PE", "hwsku: Small-TH5").replace("[7060X6-64PE]", "[small-th5]")
    (site / "small.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setenv(cat.SKU_DIR_ENV, str(site))
    with pytest.raises(InputError) as err:
        _plan(tmp_path, "platform: eos, sku: small-th5")
    (problem,) = err.value.problems
    assert str(problem).endswith(
        f"spine1: the buffer pools of SKU Small-TH5 do not fit its buffer: ingress_lossless_pool 166115492 + shared"
        f" headroom pool 22035008 = {USED} of 150000000 bytes, margin {150000000 - USED} (-25.4 %)"
        " (allowed: pools within pools.total_buffer)"
    ), problem
