"""``lossless.pfc_symmetry`` names the end that differs from the intent, with what the intent wants there.

A one-sided PFC link on a snapshot used to be reported on both ends, the healthy end reading
``Expected: [] Actual: [3]`` as if it were the one to fix. Table-driven: each row seeds PFC priorities on
ends of links of minimal.yaml's running fabric and lists every finding the check must give, in order.
"""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
CHECK = "lossless.pfc_symmetry"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _seed(state: FabricState, pfc: dict[tuple[str, str], list[int]]) -> FabricState:
    devices = dict(state.devices)
    for (name, port), priorities in pfc.items():
        dev = devices[name]
        iface = dev.interfaces[port].model_copy(update={"pfc_priorities": priorities})
        devices[name] = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    return state.model_copy(update={"devices": devices})


def _observed(desired: FabricState, pfc: dict[tuple[str, str], list[int]]) -> Snapshot:
    snap = mirror_snapshot(desired)
    return snap.model_copy(update={"observed": _seed(snap.observed, pfc)})


# (seeded PFC per (device, port), every finding expected, as (text, device, port, priority))
CASES: list[tuple[str, dict[tuple[str, str], list[int]], list[tuple[str, str, str, int | None]]]] = [
    ("healthy", {}, []),
    (
        "host-end-off",  # the NIC lost PFC: only the NIC is named, the leaf end is right
        {("gpu1", "eth0"): []},
        [
            (
                "gpu1: eth0 - PFC priorities differ from the intent (peer leaf1:Ethernet0 has [3])"
                " - Expected: [3] Actual: []",
                "gpu1",
                "eth0",
                3,
            )
        ],
    ),
    (
        "switch-end-off",  # the leaf port lost PFC: only the leaf is named, the NIC is right
        {("leaf1", "Ethernet0"): []},
        [
            (
                "leaf1: Ethernet0 - PFC priorities differ from the intent (peer gpu1:eth0 has [3])"
                " - Expected: [3] Actual: []",
                "leaf1",
                "Ethernet0",
                3,
            )
        ],
    ),
    (
        "switch-end-extra",  # an extra priority on a leaf uplink: the leaf, not the spine
        {("leaf1", "Ethernet32"): [3, 4]},
        [
            (
                "leaf1: Ethernet32 - PFC priorities differ from the intent (peer spine1:Ethernet0 has [3])"
                " - Expected: [3] Actual: [3, 4]",
                "leaf1",
                "Ethernet32",
                4,
            )
        ],
    ),
    (
        "both-ends-wrong",  # each end named, each with what the intent wants there
        {("leaf1", "Ethernet32"): [4], ("spine1", "Ethernet0"): []},
        [
            (
                "spine1: Ethernet0 - PFC priorities differ from the intent (peer leaf1:Ethernet32 has [4])"
                " - Expected: [3] Actual: []",
                "spine1",
                "Ethernet0",
                4,
            ),
            (
                "leaf1: Ethernet32 - PFC priorities differ from the intent (peer spine1:Ethernet0 has [])"
                " - Expected: [3] Actual: [4]",
                "leaf1",
                "Ethernet32",
                4,
            ),
        ],
    ),
]


@pytest.mark.parametrize(("seed", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_finding_names_the_end_that_differs_from_the_intent(
    seed: dict[tuple[str, str], list[int]],
    expected: list[tuple[str, str, str, int | None]],
    desired: FabricState,
) -> None:
    (result,) = run_checks(desired, [CHECK], observed=_observed(desired, seed))
    assert result.status is (Status.FAILURE if expected else Status.SUCCESS), result.message
    got = [(str(f), f.device, f.port, f.priority) for f in result.findings]
    assert got == expected


def test_an_asymmetric_plan_names_both_ends_against_each_other(desired: FabricState) -> None:
    """Judging the plan itself, the intent is what is asymmetric: each end is named against its peer."""
    plan = _seed(desired, {("leaf1", "Ethernet32"): [3, 4]})
    (result,) = run_checks(plan, [CHECK])
    assert result.status is Status.FAILURE
    assert [str(f) for f in result.findings] == [
        "spine1: Ethernet0 - PFC priorities differ from leaf1:Ethernet32 - Expected: [3, 4] Actual: [3]",
        "leaf1: Ethernet32 - PFC priorities differ from spine1:Ethernet0 - Expected: [3] Actual: [3, 4]",
    ]


def test_skipped_when_no_pfc_priorities_were_observed(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    fields = {name: [f for f in got if f != "interfaces"] for name, got in snap.observed_fields.items()}
    (result,) = run_checks(desired, [CHECK], observed=snap.model_copy(update={"observed_fields": fields}))
    assert result.status is Status.SKIPPED, result
    assert result.message
