"""The NIC side of adaptive routing, for real: lab-mini with adaptive routing on its Cumulus leaf and hosts that
take RoCE out of order. ``xoff push`` writes each RoCE NIC's ROCE_ACCL register through the hosts' mlxreg (the
lab's shim), ``xoff validate --lab`` reads it back (lb.adaptive_routing_host and drift clean); then one host left
with adaptive routing off (``mlxreg --set adaptive_routing_forced_en=0x0`` on the host, as an operator or a NIC
reset leaves it) fails lb.adaptive_routing_host on that host, and drift names the field."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.labs import cli_lab, labs_root, xoff_cli
from tests.support.lb_intent import AR_SLEAF_EDIT, OOO_HOSTS_EDIT, lb_intent
from xoff.lab.faults.reach import Lab

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    with labs_root("xoff-accl-labs-") as path:
        yield path


def _results(root: Path, intent: Path, lab: str) -> list[dict[str, Any]]:
    # generous timeouts: the machine is shared, and a loaded host answers SSH slowly
    r = xoff_cli(root, "validate", str(intent), "--lab", lab, "--format", "json", "--timeout", "60")
    assert r.stdout, r.stderr
    rows: list[dict[str, Any]] = json.loads(r.stdout)["results"]
    return rows


def test_nic_adaptive_routing_pushed_read_back_and_caught_when_off(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    intent = lb_intent(root, AR_SLEAF_EDIT, OOO_HOSTS_EDIT)
    lab = f"ar{os.getpid()}"
    with cli_lab(root, intent, lab) as up:
        assert up.returncode == 0, up.stdout + up.stderr
        push = xoff_cli(root, "push", str(intent), "--lab", lab, "--timeout-factor", "3")
        assert push.returncode == 0, push.stdout + push.stderr
        rows = _results(root, intent, lab)
        ar = [r for r in rows if r["check"] == "lb.adaptive_routing_host"]
        assert {r["status"] for r in ar} == {"success"}, ar
        drift = [r for r in rows if r["check"] == "drift.state" and "roce" in json.dumps(r)]
        assert [r for r in drift if r["status"] == "failure"] == []
        monkeypatch.setenv("XOFF_LAB_DIR", str(root))
        Lab(lab).run("gpu2", "mlxreg -d mlx5_0 --reg_name ROCE_ACCL --set adaptive_routing_forced_en=0x0 --yes")
        rows = _results(root, intent, lab)
        failed = [(r["check"], r["device"]) for r in rows if r["status"] == "failure"]
        assert {d for c, d in failed if c == "lb.adaptive_routing_host"} == {"gpu2"}
        drifted = [r for r in rows if r["check"] == "drift.state" and r["status"] == "failure"]
        assert any("host.nics.eth0.roce_accl.adaptive_routing_forced" in json.dumps(r) for r in drifted), drifted
