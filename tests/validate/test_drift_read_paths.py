"""Drift compares only the paths a collector read: an ancestor listed beside its children (``interfaces`` beside
``interfaces.*.mtu``) is the set of keys it holds, never every value below it; a port or a device in one state and
not the other is still drift; a device of the intent that was not observed is named, not judged."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.drift import device_drift, show
from xoff.validate.mirror import mirror_snapshot

READ = ["interfaces", "interfaces.*.mtu"]
PORT = {"mtu": 9100, "cable_m": 5, "pfc_watchdog": True}
# case -> (observed interfaces, fields read, the differences as (path, desired, observed))
CASES: dict[str, tuple[dict[str, Any], list[str], list[tuple[str, str, str]]]] = {
    "equal": ({"Ethernet0": dict(PORT)}, READ, []),
    "unread values below an ancestor": ({"Ethernet0": {**PORT, "cable_m": 300, "pfc_watchdog": False}}, READ, []),
    "read value": ({"Ethernet0": {**PORT, "mtu": 1500}}, READ, [("interfaces.Ethernet0.mtu", "9100", "1500")]),
    "port not observed": ({}, READ, [("interfaces.Ethernet0", show(PORT), "(absent)")]),
    "port not in intent": (
        {"Ethernet0": dict(PORT), "Ethernet4": dict(PORT)},
        READ,
        [("interfaces.Ethernet4", "(absent)", show(PORT))],
    ),
    "ancestor read alone is the whole subtree": (
        {"Ethernet0": {**PORT, "cable_m": 300}},
        ["interfaces"],
        [("interfaces.Ethernet0.cable_m", "5", "300")],
    ),
    "nothing read": ({"Ethernet0": {**PORT, "mtu": 1500}}, [], []),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_drift_on_read_paths(case: str) -> None:
    observed, read, expected = CASES[case]
    diffs = device_drift({"interfaces": {"Ethernet0": dict(PORT)}}, {"interfaces": observed}, read)
    assert [(d.path, show(d.desired), show(d.observed)) for d in diffs] == expected


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))


def test_a_device_not_observed_is_named_not_judged(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    devices = {n: d for n, d in snap.observed.devices.items() if n != "leaf1"}
    fields = {n: f for n, f in snap.observed_fields.items() if n != "leaf1"}
    observed = snap.observed.model_copy(update={"devices": devices})
    (result,) = run_checks(
        desired, ["drift.state"], observed=snap.model_copy(update={"observed": observed, "observed_fields": fields})
    )
    assert (result.status, result.message) == (Status.SUCCESS, "not judged on leaf1: device not observed")


def test_a_device_observed_and_not_in_the_intent_is_drift(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    stray = snap.observed.devices["leaf1"].model_copy(update={"name": "leaf9"})
    observed = snap.observed.model_copy(update={"devices": {**snap.observed.devices, "leaf9": stray}})
    fields = {**snap.observed_fields, "leaf9": snap.observed_fields["leaf1"]}
    (result,) = run_checks(
        desired, ["drift.state"], observed=snap.model_copy(update={"observed": observed, "observed_fields": fields})
    )
    assert result.status is Status.FAILURE
    assert [(f.device, f.object, f.expected, f.actual) for f in result.findings] == [
        ("leaf9", "device", "absent", "present")
    ]


@pytest.mark.parametrize(("desired_dscp", "drift"), [(None, []), (26, [("host.nics.eth0.cnp_dscp", "26", "48")])])
def test_a_cnp_dscp_the_intent_leaves_unset_is_not_drift(desired_dscp: int | None, drift: list[Any]) -> None:
    """A policy with no CNP class (pfc-only, Meta's) writes no CNP DSCP: the firmware's 48 is what runs, not drift;
    a CNP DSCP the intent does give is still compared."""
    nic = {"cnp_dscp": desired_dscp, "cnp_priority": None}
    diffs = device_drift(
        {"host": {"nics": {"eth0": nic}}},
        {"host": {"nics": {"eth0": {"cnp_dscp": 48, "cnp_priority": 6}}}},
        ["host.nics.*.cnp_dscp", "host.nics.*.cnp_priority"],
    )
    assert [(d.path, show(d.desired), show(d.observed)) for d in diffs] == drift


@pytest.mark.parametrize(
    ("desired_ar", "drift"), [(None, []), (True, [("host.roce_adaptive_routing", "True", "False")])]
)
def test_adaptive_routing_the_intent_leaves_unset_is_not_drift(desired_ar: bool | None, drift: list[Any]) -> None:
    """A host profile that does not ask for adaptive routing leaves the NIC's bit alone (an ecn-only host's ROCE_ACCL
    read shows it off): not drift; a profile that asks for it is still compared."""
    diffs = device_drift(
        {"host": {"roce_adaptive_routing": desired_ar}},
        {"host": {"roce_adaptive_routing": False}},
        ["host.roce_adaptive_routing"],
    )
    assert [(d.path, show(d.desired), show(d.observed)) for d in diffs] == drift
