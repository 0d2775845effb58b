"""The congestion_control block: strict, each problem one located line; the custom profile's knobs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.profiles import lab_mini_with
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.intent.load import IntentError


def _variant(tmp_path: Path, profile: str, edit: dict[str, object], *, shape: bool = True) -> Path:
    """lab-mini under ``profile`` (its classes shaped for it unless not ``shape``), ``edit`` merged into the RoCE
    policies' congestion_control."""
    root = lab_mini_with(tmp_path, profile, keep_ecn=not shape)
    qos = root / "qos.yaml"
    doc = yaml.safe_load(qos.read_text())
    for policy in doc["qos_policies"].values():
        if "congestion_control" in policy:  # rdma and storage
            policy["congestion_control"].update(edit)
    qos.write_text(yaml.safe_dump(doc, sort_keys=False))
    return root


CASES = [
    ("ecn-only", {}, False, "qos_policies.rdma.classes.roce.lossless: profile ecn-only runs no PFC"),
    ("pfc-only", {"ecn": False}, True, "qos_policies.rdma.congestion_control: profile pfc-only sets ecn"),
    (
        "custom",
        {"pfc": True},
        True,
        "qos_policies.rdma.congestion_control: profile custom needs every knob",
    ),
]


@pytest.mark.parametrize(("profile", "edit", "shape", "message"), CASES, ids=[c[0] for c in CASES])
def test_refused_with_one_located_line(
    tmp_path: Path, profile: str, edit: dict[str, object], shape: bool, message: str
) -> None:
    with pytest.raises(IntentError) as exc:
        load_intent(_variant(tmp_path, profile, edit, shape=shape))
    lines = [str(p) for p in exc.value.problems]
    hits = [line for line in lines if message in line]
    assert len(hits) == 1, lines
    assert hits[0].split(":")[0].endswith("qos.yaml")  # file:line:col first


def test_ecn_only_without_ecn_on_the_roce_class_is_refused(tmp_path: Path) -> None:
    root = lab_mini_with(tmp_path, "ecn-only")
    qos = root / "qos.yaml"
    doc = yaml.safe_load(qos.read_text())
    del doc["qos_policies"]["rdma"]["classes"]["roce"]["ecn"]
    qos.write_text(yaml.safe_dump(doc, sort_keys=False))
    with pytest.raises(IntentError) as exc:
        load_intent(root)
    assert any("classes.roce.ecn: profile ecn-only is lossy RoCE" in str(p) for p in exc.value.problems)


def test_custom_knobs_reach_the_plan(tmp_path: Path) -> None:
    """custom: PFC and ECN on, the NICs' DCQCN off, watchdog off; the plan names both departures."""
    knobs = {"pfc": True, "ecn": True, "nic_dcqcn": False, "pfc_watchdog": False}
    state = build_fabric_state(load_intent(_variant(tmp_path, "custom", knobs)))
    plan = state.networks["compute"].congestion_control
    assert plan is not None and (plan.pfc, plan.ecn, plan.nic_dcqcn, plan.pfc_watchdog) == (True, True, False, False)
    assert plan.departures == [
        "DCQCN (ECN notification and reaction point) on the NICs off (vendor default: on)",
        "the PFC watchdog off (vendor default: on)",
    ]
    assert state.devices["leaf1"].pfc_watchdog is None
    gpu = state.devices["gpu1"].host
    assert gpu is not None and gpu.nics["eth0"].ecn_rp_priorities == []
