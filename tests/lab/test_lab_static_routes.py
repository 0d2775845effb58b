"""Static routes in the lab, end to end: lab-mini with static routes on a SONiC leaf pair (the bounce of
deadlock_intent/static-bounce.yaml), an EOS spine and a Cumulus leaf, brought up (no static route in
any FIB: they are what a push brings), pushed to the switches through each NOS emulator (SONiC
STATIC_ROUTE, EOS ``ip route``, NVUE ``vrf default router static``; hosts as usual), found in each switch's real FRR
FIB as protocol static, and the bounce reported by ``deadlock.cbd`` on the collected FIBs.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff import api
from xoff.desired.models import FabricState
from xoff.lab import daemons, names
from xoff.lab.lab import resolve
from xoff.lab.state import FABRIC_FILE, LabState
from xoff.report.machine import json_report

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "lab-mini-static"
LAB = f"sr{os.getpid()}"
WITH_ROUTES = ("leaf1", "leaf2", "spine2", "sleaf1")  # SONiC, SONiC, EOS, Cumulus
FIB_TIMEOUT_S = SETTLE_S


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    with running_lab(INTENT, LAB, prefix="xoff-static-labs-"):
        yield resolve(LAB)


def _static_fib(state: LabState, switch: str) -> dict[str, list[str]]:
    """Static routes FRR installed in the switch's FIB: prefix -> next-hop addresses."""
    run = subprocess.run(
        ["ip", "netns", "exec", names.namespace(LAB, switch),
         *daemons.vtysh_argv(state.dir, switch, "show ip route json")],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    out: dict[str, list[str]] = {}
    for prefix, entries in json.loads(run.stdout).items():
        for e in entries:
            if e.get("protocol") == "static" and e.get("installed") and e.get("selected"):
                out[prefix] = sorted(h["ip"] for h in e.get("nexthops", []) if h.get("fib") and "ip" in h)
    return out


def _wanted(fabric: FabricState, switch: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in fabric.devices[switch].static_routes:
        out.setdefault(r.prefix, []).append(r.next_hop)
    return {p: sorted(h) for p, h in out.items()}


def test_pushed_static_routes_reach_the_fib_and_the_bounce_is_a_deadlock(lab: LabState, tmp_path: Path) -> None:
    fabric = FabricState.model_validate_json((lab.dir / FABRIC_FILE).read_text(encoding="utf-8"))
    assert all(_wanted(fabric, s) for s in WITH_ROUTES)
    assert {s: _static_fib(lab, s) for s in WITH_ROUTES} == {s: {} for s in WITH_ROUTES}  # factory: none

    # the whole fabric (hosts too: the deadlock check needs their collected NIC addresses)
    summary = api.push(INTENT, api.PushOptions(lab=LAB, backup_dir=tmp_path)).summary
    assert summary.exit_status == 0, [r for r in summary.results if r.error][:3]

    want = {s: _wanted(fabric, s) for s in WITH_ROUTES}
    deadline, got = time.monotonic() + FIB_TIMEOUT_S, {}
    while time.monotonic() < deadline:
        got = {s: _static_fib(lab, s) for s in WITH_ROUTES}
        if got == want:
            break
        time.sleep(0.5)
    assert got == want
    assert _static_fib(lab, "spine1") == {}

    # the routes are in each NOS's own configuration too (what the collectors read back for drift)
    state = lab.dir / "devices"
    assert "STATIC_ROUTE" in json.loads((state / "leaf1" / "state" / "config_db.json").read_text(encoding="utf-8"))
    running = (state / "spine2" / "state" / "running-config").read_text(encoding="utf-8")
    (route,) = fabric.devices["spine2"].static_routes
    assert f"ip route {route.prefix} {route.interface} {route.next_hop}\n" in running

    result = api.validate(INTENT, api.ValidateOptions(lab=LAB, catalog="audit"))
    assert result.blocking and not result.not_collected
    doc = json.loads(json_report(result.validation))
    failing = {r["check"] for r in doc["results"] if r["status"] not in ("success", "skipped")}
    assert failing == {"deadlock.cbd"}, failing  # the static routes read back equal the intent's (no drift)
    rows = [r for r in doc["results"] if r["check"] == "deadlock.cbd"]
    (baseline,) = [r for r in rows if "baseline (forwarding from the collected FIBs)" in (r["object"] or "")]
    assert (baseline["status"], baseline["priority"]) == ("failure", 3), baseline
    # the cycle is the bounce the static routes made: a leaf sends its own host's traffic back up
    assert "witness leaf1 -> spine1 -> leaf1" in baseline["message"], baseline
    assert "down-to-up turns: leaf1: Ethernet32 -> Ethernet32 for gpu1:eth0" in baseline["message"], baseline
