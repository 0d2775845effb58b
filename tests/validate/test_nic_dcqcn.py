"""lossless.nic_dcqcn, table-driven: every RoCE NIC runs ECN NP and RP on exactly its switch port's lossless
priorities and marks CNPs with the network's CNP class. It passes on every example intent and on the snapshot
of a fabric that runs its intent; each fault, seeded into the intent's plan or into that snapshot, is caught
with a finding naming device, port (netdev) and priority, expected and actual, and the sysfs write that fixes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.checks.nic import cnp_classes
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
CHECK = "lossless.nic_dcqcn"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _nic(state: FabricState, device: str, netdev: str, **changes: Any) -> FabricState:
    dev = state.devices[device]
    assert dev.host is not None
    nics = {**dev.host.nics, netdev: dev.host.nics[netdev].model_copy(update=changes)}
    dev = dev.model_copy(update={"host": dev.host.model_copy(update={"nics": nics})})
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


def _port(state: FabricState, device: str, port: str, **changes: Any) -> FabricState:
    dev = state.devices[device]
    dev = dev.model_copy(
        update={"interfaces": {**dev.interfaces, port: dev.interfaces[port].model_copy(update=changes)}}
    )
    return state.model_copy(update={"devices": {**state.devices, device: dev}})


@pytest.mark.parametrize("example", sorted(p.name for p in (ROOT / "inventory").iterdir() if p.is_dir()))
def test_passes_on_every_example_intent(example: str) -> None:
    (result,) = run_checks(build_fabric_state(load_intent(ROOT / "inventory" / example)), [CHECK])
    assert result.status is Status.SUCCESS, [str(f) for f in result.findings]


def test_passes_on_the_snapshot_of_a_fabric_running_its_intent(desired: FabricState) -> None:
    (result,) = run_checks(desired, [CHECK], observed=mirror_snapshot(desired))
    assert result.status is Status.SUCCESS


def test_skipped_without_lossless_roce(tmp_path: Path) -> None:
    text = MINIMAL.read_text().replace("        lossless: true\n", "")
    (tmp_path / "i.yaml").write_text(text)
    (result,) = run_checks(build_fabric_state(load_intent(tmp_path / "i.yaml")), [CHECK])
    assert result.status is Status.SKIPPED and result.message == "no lossless RoCE network in this fabric"


def test_the_cnp_class_is_the_policys(desired: FabricState) -> None:
    assert cnp_classes(desired) == {"management": (None, None), "compute": (48, 6)}


Mutation = Callable[[FabricState], FabricState]
# (what is wrong, the mutation, every finding as (text, port, priority, hint))
CASES: list[tuple[str, Mutation, list[tuple[str, str, int | None, str]]]] = [
    (
        "np-off",  # the lab's nic-ecn-np-off: no CNPs from this receiver
        lambda s: _nic(s, "gpu1", "eth0", ecn_np_priorities=[]),
        [
            (
                "gpu1: eth0 roce_np priority 3 - ECN notification point (NP) off on priority 3, lossless at "
                "leaf1:Ethernet0 - Expected: enabled Actual: disabled",
                "eth0",
                3,
                "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/3",
            )
        ],
    ),
    (
        "rp-on-a-lossy-priority",
        lambda s: _nic(s, "gpu2", "eth1", ecn_rp_priorities=[3, 5]),
        [
            (
                "gpu2: eth1 roce_rp priority 5 - ECN reaction point (RP) on priority 5, not lossless at "
                "leaf2:Ethernet8 - Expected: disabled Actual: enabled",
                "eth1",
                5,
                "echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/5",
            )
        ],
    ),
    (
        "np-and-rp-on-the-wrong-priority",  # one finding per point and priority
        lambda s: _nic(s, "gpu1", "eth1", ecn_np_priorities=[4], ecn_rp_priorities=[4]),
        [
            (
                "gpu1: eth1 roce_np priority 3 - ECN notification point (NP) off on priority 3, lossless at "
                "leaf2:Ethernet0 - Expected: enabled Actual: disabled",
                "eth1",
                3,
                "echo 1 > /sys/class/net/eth1/ecn/roce_np/enable/3",
            ),
            (
                "gpu1: eth1 roce_np priority 4 - ECN notification point (NP) on priority 4, not lossless at "
                "leaf2:Ethernet0 - Expected: disabled Actual: enabled",
                "eth1",
                4,
                "echo 0 > /sys/class/net/eth1/ecn/roce_np/enable/4",
            ),
            (
                "gpu1: eth1 roce_rp priority 3 - ECN reaction point (RP) off on priority 3, lossless at "
                "leaf2:Ethernet0 - Expected: enabled Actual: disabled",
                "eth1",
                3,
                "echo 1 > /sys/class/net/eth1/ecn/roce_rp/enable/3",
            ),
            (
                "gpu1: eth1 roce_rp priority 4 - ECN reaction point (RP) on priority 4, not lossless at "
                "leaf2:Ethernet0 - Expected: disabled Actual: enabled",
                "eth1",
                4,
                "echo 0 > /sys/class/net/eth1/ecn/roce_rp/enable/4",
            ),
        ],
    ),
    (
        "cnp-dscp",  # the lab's nic-cnp-dscp: CNPs in the RoCE data class
        lambda s: _nic(s, "gpu2", "eth1", cnp_dscp=26),
        [
            (
                "gpu2: eth1 cnp_dscp - CNPs sent with DSCP 26, not network compute's CNP class - Expected: 48 "
                "Actual: 26",
                "eth1",
                6,
                "echo 48 > /sys/class/net/eth1/ecn/roce_np/cnp_dscp",
            )
        ],
    ),
    (
        "cnp-priority",
        lambda s: _nic(s, "gpu1", "eth0", cnp_priority=3),
        [
            (
                "gpu1: eth0 cnp_802p_prio - CNPs sent on priority 3, not network compute's CNP class - Expected: 6 "
                "Actual: 3",
                "eth0",
                6,
                "echo 6 > /sys/class/net/eth0/ecn/roce_np/cnp_802p_prio",
            )
        ],
    ),
    (
        "switch-port-lossless-elsewhere",  # the NIC is as intended, its leaf port is not: judged against the port
        lambda s: _port(s, "leaf1", "Ethernet8", pfc_priorities=[3, 4]),
        [
            (
                "gpu2: eth0 roce_np priority 4 - ECN notification point (NP) off on priority 4, lossless at "
                "leaf1:Ethernet8 - Expected: enabled Actual: disabled",
                "eth0",
                4,
                "echo 1 > /sys/class/net/eth0/ecn/roce_np/enable/4",
            ),
            (
                "gpu2: eth0 roce_rp priority 4 - ECN reaction point (RP) off on priority 4, lossless at "
                "leaf1:Ethernet8 - Expected: enabled Actual: disabled",
                "eth0",
                4,
                "echo 1 > /sys/class/net/eth0/ecn/roce_rp/enable/4",
            ),
        ],
    ),
]


def _findings(subject: FabricState, desired: FabricState, snapshot: bool) -> Any:
    if snapshot:
        observed = mirror_snapshot(desired)
        observed = observed.model_copy(update={"observed": subject.model_copy(update={"source": "observed"})})
        (result,) = run_checks(desired, [CHECK], observed=observed)
    else:
        (result,) = run_checks(subject, [CHECK])
    assert result.status is Status.FAILURE
    return [(str(f), f.port, f.priority, result.hint_for(f)) for f in result.findings]


@pytest.mark.parametrize("snapshot", [False, True], ids=["intent", "snapshot"])
@pytest.mark.parametrize(("case", "mutate", "want"), CASES, ids=[c[0] for c in CASES])
def test_catches(
    case: str, mutate: Mutation, want: list[tuple[str, str, int | None, str]], snapshot: bool, desired: FabricState
) -> None:
    """On intent alone the plan is judged; with a snapshot the observed state is, the CNP class still the intent's."""
    assert _findings(mutate(desired), desired, snapshot) == want


def test_the_cnp_class_comes_from_the_intent_not_the_running_switches(desired: FabricState) -> None:
    """A snapshot whose switches run another CNP class does not move what the NICs are judged against."""
    qos = desired.devices["leaf1"].qos
    assert qos is not None
    leaf1 = desired.devices["leaf1"].model_copy(update={"qos": qos.model_copy(update={"cnp_priority": 5})})
    subject = desired.model_copy(update={"devices": {**desired.devices, "leaf1": leaf1}})
    observed = mirror_snapshot(desired).model_copy(update={"observed": subject})
    (result,) = run_checks(desired, [CHECK], observed=observed)
    assert result.status is Status.SUCCESS
