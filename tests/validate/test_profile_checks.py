"""The congestion-control profile checks, table-driven on lab-mini variants: a clean case per profile, a failing
case per check (the intent, or one hop of the observed state), a skipped case where the profile is not in use."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.profiles import lab_mini_with
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Ecn
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.checks.profiles import EcnOnlyMarking, EcnOnlyNicAccelerations, EcnOnlyNoPfc, PfcOnlyNoEcn
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.registry import CHECKS

PROFILE_CHECKS = (
    "lossless.pfc_only_no_ecn",
    "lossless.ecn_only_no_pfc",
    "lossless.ecn_only_marking",
    "lossless.ecn_only_nic_accelerations",
)


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FabricState]:
    tmp = tmp_path_factory.mktemp("profiles")
    out = {p: build_fabric_state(load_intent(lab_mini_with(tmp, p))) for p in ("dcqcn", "pfc-only", "ecn-only")}
    out["pfc-only-ecn"] = build_fabric_state(load_intent(lab_mini_with(tmp, "pfc-only", keep_ecn=True)))
    return out


def _one_hop(desired: FabricState, device: str, change: Callable[[FabricState], FabricState]) -> Snapshot:
    """A snapshot of the fabric running its intent except on ``device``, changed by ``change``."""
    snap = mirror_snapshot(desired)
    return snap.model_copy(update={"observed": change(snap.observed)})


def _with_ecn(state: FabricState, device: str, queue: int) -> FabricState:
    dev = state.devices[device]
    assert dev.qos is not None
    qos = dev.qos.model_copy(
        update={"ecn": {**dev.qos.ecn, queue: Ecn(min_threshold=50000, max_threshold=90000, probability=5)}}
    )
    return state.model_copy(update={"devices": {**state.devices, device: dev.model_copy(update={"qos": qos})}})


def _without_ecn(state: FabricState, device: str) -> FabricState:
    dev = state.devices[device]
    assert dev.qos is not None
    qos = dev.qos.model_copy(update={"ecn": {}})
    return state.model_copy(update={"devices": {**state.devices, device: dev.model_copy(update={"qos": qos})}})


def _with_pfc(state: FabricState, device: str, port: str) -> FabricState:
    dev = state.devices[device]
    iface = dev.interfaces[port].model_copy(update={"pfc_priorities": [3]})
    dev = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


def _nic_pfc_on(state: FabricState, device: str, netdev: str) -> FabricState:
    dev = state.devices[device]
    assert dev.host is not None
    nic = dev.host.nics[netdev].model_copy(update={"pfc": [0, 0, 0, 1, 0, 0, 0, 0]})
    host = dev.host.model_copy(update={"nics": {**dev.host.nics, netdev: nic}})
    return state.model_copy(update={"devices": {**state.devices, device: dev.model_copy(update={"host": host})}})


def _tx_window_off(state: FabricState, device: str, netdev: str) -> FabricState:
    dev = state.devices[device]
    assert dev.host is not None and dev.host.nics[netdev].roce_accl is not None
    accl = dev.host.nics[netdev].roce_accl.model_copy(update={"tx_window": False})
    nic = dev.host.nics[netdev].model_copy(update={"roce_accl": accl})
    host = dev.host.model_copy(update={"nics": {**dev.host.nics, netdev: nic}})
    return state.model_copy(update={"devices": {**state.devices, device: dev.model_copy(update={"host": host})}})


# (profile plan, check, observed change or None (the intent itself), expected status, first finding's start)
CASES: list[tuple[str, str, Callable[[FabricState], FabricState] | None, Status, str]] = [
    ("pfc-only", PfcOnlyNoEcn.id, None, Status.SUCCESS, ""),
    ("pfc-only-ecn", PfcOnlyNoEcn.id, None, Status.FAILURE, "spine1: queue 3 - marks ECN on a lossless queue"),
    ("pfc-only", PfcOnlyNoEcn.id, lambda s: _with_ecn(s, "leaf2", 3), Status.FAILURE, "leaf2: queue 3 - marks ECN"),
    ("dcqcn", PfcOnlyNoEcn.id, None, Status.SKIPPED, ""),
    ("ecn-only", EcnOnlyNoPfc.id, None, Status.SUCCESS, ""),
    (
        "ecn-only",
        EcnOnlyNoPfc.id,
        lambda s: _with_pfc(s, "leaf1", "Ethernet0"),
        Status.FAILURE,
        "leaf1: Ethernet0 - PFC on",
    ),
    ("dcqcn", EcnOnlyNoPfc.id, None, Status.SKIPPED, ""),
    ("ecn-only", EcnOnlyMarking.id, None, Status.SUCCESS, ""),
    (
        "ecn-only",
        EcnOnlyMarking.id,
        lambda s: _without_ecn(s, "spine2"),
        Status.FAILURE,
        "spine2: queue 3 - RoCE queue",
    ),
    ("pfc-only", EcnOnlyMarking.id, None, Status.SKIPPED, ""),
    ("ecn-only", EcnOnlyNicAccelerations.id, None, Status.SUCCESS, ""),
    (
        "ecn-only",
        EcnOnlyNicAccelerations.id,
        lambda s: _tx_window_off(s, "gpu1", "eth0"),
        Status.FAILURE,
        "gpu1: eth0 - TX window off (ROCE_ACCL)",
    ),
    ("dcqcn", EcnOnlyNicAccelerations.id, None, Status.SKIPPED, ""),
    ("pfc-only", "lossless.ecn_on_lossless_queues", None, Status.SKIPPED, ""),
    ("dcqcn", "lossless.ecn_on_lossless_queues", None, Status.SUCCESS, ""),
    ("pfc-only", "lossless.nic_dcqcn", None, Status.SUCCESS, ""),
    ("ecn-only", "lossless.nic_dcqcn", None, Status.SUCCESS, ""),
    # lossy RoCE still needs one DSCP map and DSCP trust on the NICs
    ("ecn-only", "lossless.qos_mapping", None, Status.SUCCESS, ""),
    ("ecn-only", "lossless.nic_trust_pfc", None, Status.SUCCESS, ""),
    (
        "ecn-only",
        "lossless.nic_trust_pfc",
        lambda s: _nic_pfc_on(s, "gpu1", "eth0"),
        Status.FAILURE,
        "gpu1: eth0 - NIC PFC",
    ),
]


@pytest.mark.parametrize(
    ("plan", "check", "change", "status", "first"), CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_profile_check(
    plans: dict[str, FabricState],
    plan: str,
    check: str,
    change: Callable[[FabricState], FabricState] | None,
    status: Status,
    first: str,
) -> None:
    desired = plans[plan]
    observed = None if change is None else _one_hop(desired, "", change)
    (result,) = run_checks(desired, [check], observed=observed)
    assert result.status is status, [str(f) for f in result.findings]
    if status is Status.SKIPPED:
        assert result.message
    if first:
        assert str(result.findings[0]).startswith(first)


def test_pfc_only_nic_with_dcqcn_left_on_is_caught(plans: dict[str, FabricState]) -> None:
    """The NIC side of pfc-only: DCQCN's reaction point left on (the ConnectX default) is a finding."""
    desired = plans["pfc-only"]

    def rp_on(state: FabricState) -> FabricState:
        dev = state.devices["gpu1"]
        assert dev.host is not None
        nic = dev.host.nics["eth0"].model_copy(update={"ecn_rp_priorities": [3]})
        host = dev.host.model_copy(update={"nics": {**dev.host.nics, "eth0": nic}})
        return state.model_copy(update={"devices": {**state.devices, "gpu1": dev.model_copy(update={"host": host})}})

    (result,) = run_checks(desired, ["lossless.nic_dcqcn"], observed=_one_hop(desired, "gpu1", rp_on))
    assert result.status is Status.FAILURE
    assert str(result.findings[0]).startswith("gpu1: eth0 roce_rp priority 3 - ECN reaction point (RP) on priority 3")


def test_every_profile_check_has_cases() -> None:
    ids = {i for i in CHECKS.ids() if CHECKS.get(i).__module__.endswith(".checks.profiles")}
    assert ids == set(PROFILE_CHECKS)
    for check_id in ids:
        assert {c[3] for c in CASES if c[1] == check_id} == {Status.SUCCESS, Status.FAILURE, Status.SKIPPED}


def test_ecn_before_pfc_does_not_judge_a_pfc_only_fabric(plans: dict[str, FabricState]) -> None:
    """A pfc-only switch that paused with no ECN mark is the design, not a failure: the counter check skips it;
    the same counters on the dcqcn fabric fail."""
    from xoff.contracts.observed import PfcCounters, PortCounters, QueueCounters

    def paused(desired: FabricState) -> Snapshot:
        snap = mirror_snapshot(desired)
        port = PortCounters(pfc=PfcCounters(tx_pause={3: 900}), queues={3: QueueCounters(ecn_marked_packets=0)})
        return snap.model_copy(update={"counters": {**snap.counters, "leaf1": {"Ethernet0": port}}})

    (skipped,) = run_checks(plans["pfc-only"], ["counters.ecn_before_pfc"], observed=paused(plans["pfc-only"]))
    assert skipped.status is Status.SKIPPED and skipped.message
    (failed,) = run_checks(plans["dcqcn"], ["counters.ecn_before_pfc"], observed=paused(plans["dcqcn"]))
    assert failed.status is Status.FAILURE
