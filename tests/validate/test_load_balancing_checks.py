"""The lb.* checks, table-driven: each case is an intent (lab-mini with load_balancing edits) or a mutation of its
plan, and the status and findings the check must give (success, failure, and skipped when nothing is there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.lb_intent import CUMULUS_LEAF, LEAF_ROLE, PROFILE, SONIC_DEFAULTS, TO_CUMULUS, lb_intent
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks

Edit = tuple[str, str]
SONIC_ONLY = (SONIC_DEFAULTS, f"{SONIC_DEFAULTS}    load_balancing: {{hash_fields: [src-ip, dst-ip]}}\n")
LEAF_SEED = (LEAF_ROLE, "  leaf:\n    load_balancing: {seed: 1, seed_policy: per-tier}\n    ports:\n")
AR_SLEAF = (CUMULUS_LEAF, f"{CUMULUS_LEAF} load_balancing: {{adaptive_routing: true}},")
OOO_HOSTS = (PROFILE, f"{PROFILE}    roce_adaptive_routing: true\n")


def _plan(tmp: Path, *edits: Edit) -> FabricState:
    return build_fabric_state(load_intent(lb_intent(tmp, *edits)))


def _set_lb(state: FabricState, device: str, **changes: Any) -> FabricState:
    dev = state.devices[device]
    assert dev.load_balancing is not None
    dev = dev.model_copy(update={"load_balancing": dev.load_balancing.model_copy(update=changes)})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


def _drop_qos(state: FabricState, device: str) -> FabricState:
    dev = state.devices[device].model_copy(update={"qos": None})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


Mutation = Callable[[FabricState], FabricState]
# Seeds render on Cumulus (not on SONiC or EOS): the seeded cases run lab-mini with Cumulus leaves and spine1.
SEEDED = (
    *TO_CUMULUS,
    LEAF_SEED,
    (
        "  - {name: spine1, role: spine, mgmt: 198.19.252.11}",
        "  - {name: spine1, role: spine, mgmt: 198.19.252.11, load_balancing: {seed: 2, seed_policy: per-tier}}",
    ),
)
CASES: list[tuple[str, str, tuple[Edit, ...], Mutation | None, Status, list[str]]] = [
    ("tier-same", "lb.hash_tier_consistent", (*TO_CUMULUS, LEAF_SEED), None, Status.SUCCESS, []),
    (
        "tier-one-leaf-differs",
        "lb.hash_tier_consistent",
        (*TO_CUMULUS, LEAF_SEED),
        lambda s: _set_lb(s, "leaf2", seed=9),
        Status.FAILURE,
        [
            "leaf2: load balancing - differs from the compute leaf tier - Expected: src-ip dst-ip ip-protocol"
            " l4-src-port l4-dst-port, seed 1, seeds per-tier Actual: src-ip dst-ip ip-protocol l4-src-port"
            " l4-dst-port, seed 9, seeds per-tier"
        ],
    ),
    ("tier-nothing-set", "lb.hash_tier_consistent", (), None, Status.SKIPPED, []),
    ("seeds-differ", "lb.seed_per_tier", SEEDED, None, Status.SUCCESS, []),
    (
        "seeds-shared",
        "lb.seed_per_tier",
        SEEDED,
        lambda s: _set_lb(s, "spine1", seed=1),
        Status.FAILURE,
        ["spine1: hash seed - same seed as the leaf tier - Expected: a seed per tier Actual: 1"],
    ),
    (
        "seed-missing",
        "lb.seed_per_tier",
        SEEDED,
        lambda s: _set_lb(s, "spine1", seed=None),
        Status.FAILURE,
        ["spine1: hash seed - no seed, but seeds per tier are asked - Expected: a seed Actual: none"],
    ),
    ("seeds-not-asked", "lb.seed_per_tier", (SONIC_ONLY,), None, Status.SKIPPED, []),
    ("ar-ready", "lb.adaptive_routing_roce", (AR_SLEAF, OOO_HOSTS), None, Status.SUCCESS, []),
    (
        "ar-hosts-in-order",
        "lb.adaptive_routing_roce",
        (AR_SLEAF,),
        None,
        Status.FAILURE,
        [
            f"gpu{i}: RoCE out-of-order - NICs behind adaptive routing on sleaf1 - Expected: accepted Actual: not set"
            for i in range(1, 5)
        ],
    ),
    (
        "ar-no-roce",
        "lb.adaptive_routing_roce",
        (AR_SLEAF, OOO_HOSTS),
        lambda s: _drop_qos(s, "sleaf1"),
        Status.FAILURE,
        ["sleaf1: adaptive routing - no lossless RoCE on the switch - Expected: RoCE lossless Actual: none"],
    ),
    ("ar-off", "lb.adaptive_routing_roce", (SONIC_ONLY,), None, Status.SKIPPED, []),
]


@pytest.mark.parametrize(
    ("check_id", "edits", "mutate", "status", "findings"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_lb_check(
    tmp_path: Path,
    check_id: str,
    edits: tuple[Edit, ...],
    mutate: Mutation | None,
    status: Status,
    findings: list[str],
) -> None:
    state = _plan(tmp_path, *edits)
    if mutate is not None:
        state = mutate(state)
    (result,) = run_checks(state, [check_id])
    assert result.status is status, result
    assert sorted(str(f) for f in result.findings) == sorted(findings)
    if status is Status.SKIPPED:
        assert result.message


def test_ar_fabric_port_without_it(tmp_path: Path) -> None:
    """A fabric port left out of adaptive routing is a finding on that port (NetQ's interface consistency)."""
    state = _plan(
        tmp_path,
        *TO_CUMULUS,
        OOO_HOSTS,
        (LEAF_ROLE, "  leaf:\n    load_balancing: {adaptive_routing: true}\n    ports:\n"),
    )
    lb = state.devices["leaf1"].load_balancing
    assert lb is not None
    ports = lb.adaptive_routing_ports
    assert len(ports) == 2
    (clean,) = run_checks(state, ["lb.adaptive_routing_roce"])
    assert clean.status is Status.SUCCESS, clean
    state = _set_lb(state, "leaf1", adaptive_routing_ports=ports[1:])
    (result,) = run_checks(state, ["lb.adaptive_routing_roce"])
    assert result.status is Status.FAILURE
    assert f"leaf1: {ports[0]} - fabric port without adaptive routing - Expected: on Actual: off" in {
        str(f) for f in result.findings
    }


def test_not_observed_is_skipped(tmp_path: Path) -> None:
    """On a snapshot whose collectors read no load balancing (the observed devices carry the desired copy of what
    was not read), the checks are skipped with the reason, never passed."""
    desired = _plan(tmp_path, *TO_CUMULUS, LEAF_SEED, AR_SLEAF)
    observed = desired.model_copy(update={"source": "observed"})
    read = {n: ["interfaces.*.mtu", "qos"] for n, d in desired.devices.items() if d.kind == "switch"}
    snapshot = Snapshot(
        fabric=desired.fabric, collected_at="2026-01-01T00:00:00Z", observed=observed, observed_fields=read
    )
    ids = ["lb.hash_tier_consistent", "lb.seed_per_tier", "lb.adaptive_routing_roce"]
    results = run_checks(desired, ids, observed=snapshot)
    assert [r.status for r in results] == [Status.SKIPPED] * 3
    assert all(r.message for r in results)
