"""Per-port drift, table-driven: a port's own settings (``Snapshot.port_settings``) against what the intent means
for that port; equal is success, different is one finding naming device, port, field (and queue), both values;
no observed fields is skipped."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import PortSettings, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Ecn, Scheduler
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.mirror import mirror_snapshot


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini"))


def _leaf(desired: FabricState) -> tuple[str, str, Any]:
    device = desired.devices["leaf1"]
    assert device.pfc_watchdog is not None and device.qos is not None
    return device.name, device.pfc_watchdog.ports[0], device


def _settings(desired: FabricState, case: str) -> tuple[PortSettings, list[tuple[str, str, str]]]:
    """(the port's observed settings, the findings as (object, expected, actual)) for one case."""
    _, port, device = _leaf(desired)
    wd, qos = device.pfc_watchdog, device.qos
    queue = next(iter(qos.ecn))
    ecn = qos.ecn[queue]
    cases: dict[str, tuple[PortSettings, list[tuple[str, str, str]]]] = {
        "as intended": (
            PortSettings(watchdog_action=wd.action, watchdog_detection_ms=wd.detection_ms, ecn=dict(qos.ecn)),
            [],
        ),
        "watchdog action": (
            PortSettings(watchdog_action="forward"),
            [(f"ports.{port}.watchdog_action", wd.action, "forward")],
        ),
        "watchdog timer": (
            PortSettings(watchdog_restoration_ms=wd.restoration_ms + 100),
            [(f"ports.{port}.watchdog_restoration_ms", str(wd.restoration_ms), str(wd.restoration_ms + 100))],
        ),
        "queue ecn": (
            PortSettings(ecn={**qos.ecn, queue: ecn.model_copy(update={"probability": ecn.probability + 1})}),
            [(f"ports.{port}.ecn.{queue}.probability", str(ecn.probability), str(ecn.probability + 1))],
        ),
        "queue scheduler": (
            PortSettings(schedulers={**qos.schedulers, queue: Scheduler(type="strict")}),
            [
                (f"ports.{port}.schedulers.{queue}.{k}", str(v), str(getattr(Scheduler(type="strict"), k)))
                for k, v in qos.schedulers[queue].model_dump().items()
                if v != getattr(Scheduler(type="strict"), k)
            ],
        ),
        "dscp map": (
            PortSettings(dscp_to_tc={**qos.dscp_to_tc, 26: 0}),
            [(f"ports.{port}.dscp_to_tc.26", str(qos.dscp_to_tc.get(26)), "0")],
        ),
        "no ecn on a queue": (
            PortSettings(ecn={q: e for q, e in qos.ecn.items() if q != queue}),
            [(f"ports.{port}.ecn.{queue}", _compact(ecn), "(absent)")],
        ),
    }
    return cases[case]


def _compact(value: Ecn) -> str:
    import json

    return json.dumps(value.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


def _snapshot(desired: FabricState, port_settings: dict[str, dict[str, PortSettings]]) -> Snapshot:
    return mirror_snapshot(desired).model_copy(update={"port_settings": port_settings})


CASES = [
    "as intended",
    "watchdog action",
    "watchdog timer",
    "queue ecn",
    "queue scheduler",
    "dscp map",
    "no ecn on a queue",
]


@pytest.mark.parametrize("case", CASES)
def test_port_drift(desired: FabricState, case: str) -> None:
    name, port, _ = _leaf(desired)
    settings, want = _settings(desired, case)
    (result,) = run_checks(desired, ["drift.state"], observed=_snapshot(desired, {name: {port: settings}}))
    assert [(f.object, f.expected, f.actual) for f in result.findings] == want
    assert all((f.device, f.port) == (name, port) for f in result.findings)
    assert result.status is (Status.FAILURE if want else Status.SUCCESS)


def test_port_drift_for_a_port_the_watchdog_does_not_cover(desired: FabricState) -> None:
    device = desired.devices["leaf1"]
    assert device.pfc_watchdog is not None
    port = next(p for p in device.interfaces if p not in device.pfc_watchdog.ports and p.startswith("Ethernet"))
    snap = _snapshot(desired, {"leaf1": {port: PortSettings(watchdog_action="drop")}})
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert [(f.port, f.object, f.expected, f.actual) for f in result.findings] == [
        (port, f"ports.{port}.watchdog_action", "(absent)", "drop")
    ]


def test_port_drift_is_skipped_with_nothing_observed(desired: FabricState) -> None:
    name, port, _ = _leaf(desired)
    snap = _snapshot(desired, {name: {port: PortSettings(watchdog_action="forward")}})
    (result,) = run_checks(desired, ["drift.state"], observed=snap.model_copy(update={"observed_fields": {}}))
    assert result.status is Status.SKIPPED
    assert result.message
