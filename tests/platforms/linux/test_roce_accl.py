"""The NIC side of adaptive routing and lossy RoCE (ConnectX ROCE_ACCL): what the plan sets, what the host collector
reads back from mlxreg (only the fields the intent sets judged, the rest unmodelled), drift on a wrong field, and
the checks that judge it (lb.adaptive_routing_roce on observed hosts here; lossless.ecn_only_nic_accelerations's
table is tests/validate/test_profile_checks.py, its not-observed case here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.collect_drift import differing_fields
from tests.support.corpus import REAL
from tests.support.lb_intent import AR_SLEAF_EDIT, OOO_HOSTS_EDIT, lb_intent
from tests.support.profiles import lab_mini_with
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.builders.host import LOSSY_ROCE, SPECTRUM_X_AR
from xoff.desired.models import Device, RoceAccl
from xoff.intent import load_intent
from xoff.platforms.linux import collect as host
from xoff.platforms.linux.roce_accl import get_command, register_values
from xoff.validate import Status, run_checks
from xoff.validate.drift import device_drift

CORPUS = REAL / "linux" / get_command("RDMA").slug


def _sample(case: str) -> str:
    return (CORPUS / f"{case}.txt").read_text(encoding="utf-8")


def _plan(path: Path) -> FabricState:
    return build_fabric_state(load_intent(path))


def _accl(state: FabricState, device: str = "gpu1") -> list[RoceAccl | None]:
    dev = state.devices[device]
    assert dev.host is not None
    return [n.roce_accl for n in dev.host.nics.values() if n.roce_mode is not None]


def test_the_plan_sets_roce_accl_where_the_intent_asks(tmp_path: Path) -> None:
    """dcqcn without adaptive routing: nothing (the firmware's values); hosts taking adaptive routing: Spectrum-X's
    five fields; ecn-only (no PFC): the lossy-RoCE accelerations."""
    assert set(_accl(_plan(lb_intent(tmp_path / "a")))) == {None}
    assert set(_accl(_plan(lb_intent(tmp_path / "b", AR_SLEAF_EDIT, OOO_HOSTS_EDIT)))) == {SPECTRUM_X_AR}
    assert set(_accl(_plan(lab_mini_with(tmp_path, "ecn-only")))) == {LOSSY_ROCE}
    assert register_values(SPECTRUM_X_AR) == {
        "roce_adp_retrans_en": 1, "roce_tx_window_en": 1, "roce_slow_restart_en": 0, "roce_slow_restart_idle_en": 0,
        "adaptive_routing_forced_en": 1,
    }  # fmt: skip
    assert register_values(LOSSY_ROCE) == {"roce_adp_retrans_en": 1, "roce_tx_window_en": 1, "roce_slow_restart_en": 1}


def _observe(desired: Device, accl: str | None) -> Any:
    links = [{"ifname": n, "mtu": i.mtu or 1500, "flags": ["UP"]} for n, i in desired.interfaces.items()]
    outputs = {host.LINKS.text: json.dumps(links), host.ADDRS.text: "[]"}
    assert desired.host is not None
    if accl is not None:
        outputs |= {get_command(n.rdma).text: accl for n in desired.host.nics.values() if n.rdma and n.roce_accl}
    return host.Collector().parse(outputs, desired)


def test_collector_reads_the_register_back_and_drift_names_the_wrong_field(tmp_path: Path) -> None:
    desired = _plan(lb_intent(tmp_path, AR_SLEAF_EDIT, OOO_HOSTS_EDIT)).devices["gpu1"]
    assert desired.host is not None
    commands = [c.text for c in host.Collector().commands(desired)]
    assert "mlxreg -d mlx5_0 --reg_name ROCE_ACCL --get" in commands
    clean = _observe(desired, _sample("nvidia-docs-2025-spectrum-x-ar"))
    assert clean.errors == [] and {"host.nics.*.roce_accl", "host.roce_adaptive_routing"} <= set(clean.fields)
    assert differing_fields(desired, clean.device, ["host.nics.*.roce_accl", "host.roce_adaptive_routing"]) == []
    assert clean.unmodelled["ROCE_ACCL.ack_dscp"] == len(_accl(_plan(lb_intent(tmp_path / "c"))))
    # a NIC left with adaptive routing off (and the TX window off): drift on exactly those fields
    off = _observe(desired, _sample("cx7-no-blank-line-ar-off"))
    paths = ["host.nics.*.roce_accl", "host.roce_adaptive_routing"]
    drift = device_drift(desired.model_dump(mode="json"), off.device.model_dump(mode="json"), paths)
    assert {d.path for d in drift} == {
        *(f"host.nics.{n}.roce_accl.{f}" for n in ("eth0", "eth1", "eth2")
          for f in ("tx_window", "slow_restart", "adaptive_routing_forced")),
        "host.roce_adaptive_routing",
    }  # fmt: skip
    assert off.device.host.roce_adaptive_routing is False
    # not read (no mlxreg output): not observed, never the intent's copy
    unread = _observe(desired, None)
    assert unread.device.host.roce_adaptive_routing is None
    assert "host.roce_adaptive_routing" not in unread.fields and "host.nics.*.roce_accl" not in unread.fields
    # ConnectX-5 firmware without the adaptive-routing field: that field not observed (None), the host not judged
    old = _observe(desired, _sample("cx5-ex-four-accelerations-lossy"))
    assert old.device.host.roce_adaptive_routing is None
    assert {n.roce_accl.adaptive_routing_forced for n in old.device.host.nics.values() if n.roce_accl} == {None}


def _with_nics(state: FabricState, **fields: Any) -> FabricState:
    """Every host NIC's ROCE_ACCL with ``fields`` changed (None: the register not set at all)."""
    devices = dict(state.devices)
    for name, dev in state.devices.items():
        if dev.host is None:
            continue
        nics = {
            k: n.model_copy(update={"roce_accl": None if not fields else n.roce_accl.model_copy(update=fields)})
            if n.roce_accl is not None
            else n
            for k, n in dev.host.nics.items()
        }
        devices[name] = dev.model_copy(update={"host": dev.host.model_copy(update={"nics": nics})})
    return state.model_copy(update={"devices": devices})


def test_ecn_only_accelerations_not_shown_are_not_judged(tmp_path: Path) -> None:
    state = _with_nics(_plan(lab_mini_with(tmp_path, "ecn-only")), slow_restart=None)
    (result,) = run_checks(state, ["lossless.ecn_only_nic_accelerations"])
    assert result.status is Status.SUCCESS and "not judged on gpu1, gpu2, gpu3, gpu4" in (result.message or "")


def _snapshot(state: FabricState, ar: bool | None) -> Snapshot:
    devices = {
        n: d.model_copy(update={"host": d.host.model_copy(update={"roce_adaptive_routing": ar})}) if d.host else d
        for n, d in state.devices.items()
    }
    fields = ["host.roce_adaptive_routing"] if ar is not None else []
    return Snapshot(
        fabric="t",
        collected_at="2026-01-01T00:00:00Z",
        observed=state.model_copy(update={"devices": devices}),
        observed_fields={n: ["load_balancing", "qos", *fields] for n in state.devices},
    )


AR_HOST_CASES = [
    ("nics-force-ar", True, True, Status.SUCCESS, set()),
    ("nics-ar-off", True, False, Status.FAILURE, {"gpu1", "gpu2", "gpu3", "gpu4"}),
    ("register-not-read", True, None, Status.SKIPPED, set()),
    ("no-ar-in-intent", False, False, Status.SKIPPED, set()),
]


@pytest.mark.parametrize(("ar_fabric", "ar", "status", "devices"), [c[1:] for c in AR_HOST_CASES],
                         ids=[c[0] for c in AR_HOST_CASES])  # fmt: skip
def test_lb_adaptive_routing_host(
    tmp_path: Path, ar_fabric: bool, ar: bool | None, status: Status, devices: set[str]
) -> None:
    """The NICs' adaptive routing as mlxreg showed it, behind the switches the intent runs it on: off fails each such
    host; not read is skipped, saying so; a fabric without adaptive routing is skipped; offline it needs a snapshot."""
    edits = (AR_SLEAF_EDIT, OOO_HOSTS_EDIT) if ar_fabric else (OOO_HOSTS_EDIT,)
    state = _plan(lb_intent(tmp_path, *edits))
    snap = _snapshot(state, ar)
    (result,) = run_checks(state, ["lb.adaptive_routing_host"], observed=snap)
    assert result.status is status, result
    assert {f.device for f in result.findings} == devices
    if status is Status.SKIPPED:
        assert result.message
    (offline,) = run_checks(state, ["lb.adaptive_routing_host"])
    assert offline.status is Status.SKIPPED
