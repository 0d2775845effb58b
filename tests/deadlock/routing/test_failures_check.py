"""The registered check ``deadlock.cbd``: success on the inventories, findings with witnesses when
forwarding can deadlock, skipped without a lossless RoCE network."""

from __future__ import annotations

from pathlib import Path

from deadlock_fabrics import hand_built, leaf_spine_intent, load_state

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.validate import CHECKS, run_checks
from xoff.validate.checks.deadlock import CyclicBufferDependency
from xoff.validate.model import Status
from xoff.validate.registry import Registry

INVENTORY = ROOT / "inventory"


def _ring() -> FabricState:
    """Five leaves in a ring, each with its own ASN and a host: eBGP forwards both ways round, a CBD."""
    return hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)},
        [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)],
        [f"r{i}" for i in range(5)],
    )


def test_registered_under_its_id() -> None:
    assert CHECKS.get("deadlock.cbd") is CyclicBufferDependency


def test_success_on_the_inventories(lab_mini_state) -> None:  # type: ignore[no-untyped-def]
    for state in (lab_mini_state[1], build_fabric_state(load_intent(INVENTORY / "roce-pod"))):
        (result,) = run_checks(state, ["deadlock.cbd"])
        assert result.status is Status.SUCCESS, result.message
        assert result.findings == []


def test_skipped_without_a_lossless_roce_network() -> None:
    lossy = hand_built({"l0": ("leaf", 65001), "s0": ("spine", 65100)}, [("l0", "s0")], ["l0"], lossless=())
    (result,) = run_checks(lossy, ["deadlock.cbd"])
    assert result.status is Status.SKIPPED
    assert result.message == "no lossless RoCE network with switches in this fabric"


def test_a_ring_fails_at_baseline_with_its_witness() -> None:
    (result,) = run_checks(_ring(), ["deadlock.cbd"])
    assert result.status is Status.FAILURE and result.blocking
    (finding,) = result.findings  # single failures only break the ring
    assert finding.object == "network compute, baseline"
    assert finding.device.startswith("r")
    assert "cyclic buffer dependency (PFC deadlock risk) on priority 3" in finding.problem
    assert "down-to-up turns: r" in finding.problem  # equal ranks: name order makes some turns bounces
    witness = finding.actual
    assert witness is not None and witness.startswith("cycle r")
    switches = witness.removeprefix("cycle ").split(" -> ")
    assert switches[0] == switches[-1] and len(switches) >= 4


def test_igp_policy_with_double_failures_reports_each_risky_pair(tmp_path: Path) -> None:
    class ShortestPathCbd(CyclicBufferDependency):
        routing = "igp"
        max_failures = 2

    registry = Registry()
    registry.register(ShortestPathCbd)
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    (result,) = run_checks(state, registry=registry)
    assert result.status is Status.FAILURE
    assert len(result.findings) == 12
    for finding in result.findings:
        assert finding.object.startswith("network compute, after failure of spine")
        assert finding.device.startswith("leaf")  # the bounce happens at a leaf
        assert "the failure adds" in finding.problem
    # the default policy (eBGP, RFC 7938 ASNs, single failures) passes on the same fabric
    (default,) = run_checks(state, ["deadlock.cbd"])
    assert default.status is Status.SUCCESS


def test_catalog_parameters_pick_the_policy(tmp_path: Path) -> None:
    """A catalog's ``deadlock.cbd: {routing: igp, max_failures: 2}`` does what the subclass above does."""
    state = load_state(tmp_path, leaf_spine_intent(4, 2))
    params = CyclicBufferDependency.Params(routing="igp", max_failures=2)
    (result,) = run_checks(state, ["deadlock.cbd"], params={"deadlock.cbd": params})
    assert result.status is Status.FAILURE and len(result.findings) == 12
    (single,) = run_checks(
        state, ["deadlock.cbd"], params={"deadlock.cbd": CyclicBufferDependency.Params(routing="igp")}
    )
    assert single.status is Status.SUCCESS  # single failures alone close no cycle here
