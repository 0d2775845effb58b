"""The Check API: a typed context, declared needs (skipped with the reason when absent), typed thresholds."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Check, Finding, Status, run_checks
from xoff.validate.context import CheckContext, Params
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.registry import Registry

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


class _CountLldp(Check):
    class Params(Params):
        at_least: int = 1

    id = "test.lldp_count"
    title = "every device shows some LLDP neighbours"
    needs = frozenset({"observed"})

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        want = ctx.params_as(self.Params).at_least
        for name, neighbours in ctx.snapshot.lldp.items():
            if len(neighbours) < want:
                yield Finding(name, "lldp", "too few neighbours", f">= {want}", str(len(neighbours)))


def test_needs_observed_is_skipped_offline_and_runs_with_a_snapshot(desired: FabricState) -> None:
    registry = Registry()
    registry.register(_CountLldp)
    (offline,) = run_checks(desired, registry=registry)
    assert offline.status is Status.SKIPPED and offline.message and "needs observed state" in offline.message
    (ok,) = run_checks(desired, registry=registry, observed=mirror_snapshot(desired))
    assert ok.status is Status.SUCCESS
    (bad,) = run_checks(
        desired,
        registry=registry,
        observed=mirror_snapshot(desired),
        params={"test.lldp_count": _CountLldp.Params(at_least=99)},
    )
    assert bad.status is Status.FAILURE and str(bad.findings[0]).startswith(
        "spine1: lldp - too few neighbours - Expected: >= 99"
    )


def test_subject_is_observed_when_given(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    assert CheckContext(desired).subject is desired
    assert CheckContext(desired, snap).subject is snap.observed
    with pytest.raises(TypeError, match="expected"):
        CheckContext(desired).params_as(_CountLldp.Params)


def test_registry_refuses_incomplete_checks() -> None:
    class Nothing(Check):
        id = "test.nothing"
        title = "implements nothing"

    class BadNeeds(_CountLldp):
        id = "test.bad_needs"
        needs = frozenset({"telepathy"})  # type: ignore[arg-type]

    registry = Registry()
    with pytest.raises(TypeError, match="implements neither"):
        registry.register(Nothing)
    with pytest.raises(ValueError, match=r"needs \['telepathy'\] \(allowed: desired, observed\)"):
        registry.register(BadNeeds)


def test_xoff_check_gate_is_the_pre_change_catalog(desired: FabricState) -> None:
    from xoff.validate.catalog import load_catalog
    from xoff.validate.run import pre_change_results

    results = pre_change_results(desired)
    assert [r.id for r in results] == load_catalog("pre-change").ids
    assert all(r.status in (Status.SUCCESS, Status.SKIPPED) for r in results)
