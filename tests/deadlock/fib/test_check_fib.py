"""``deadlock.cbd`` on collected state: the baseline comes from the snapshot's FIBs, the failure sweep
stays a what-if on the intent, and a switch without a FIB is an error, never a pass.

The cases are lab-mini snapshots that mirror the intent (every switch's FIB = the routing model's
forwarding, one host route per endpoint), edited the way a switch's table would be: the "bounce"
edit is the static-bounce intent's mistake (each leaf holds a host route for one of its own hosts
pointing up to a spine), which closes leaf1 -> spine1 -> leaf2 -> spine2 -> leaf1 on priority 3.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from xoff.contracts.observed import FibRoute, Snapshot
from xoff.desired.models import FabricState
from xoff.validate.checks.deadlock import CyclicBufferDependency
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import Status
from xoff.validate.registry import run_checks

Edit = Callable[[Snapshot, FabricState], Snapshot]


def _port(state: FabricState, switch: str, peer: str) -> str:
    (port,) = [p for p, i in state.devices[switch].interfaces.items() if i.peer is not None and i.peer.device == peer]
    return port


def _address(state: FabricState, host: str, netdev: str) -> str:
    settings = state.devices[host].host
    assert settings is not None and settings.nics[netdev].address is not None
    return str(settings.nics[netdev].address).split("/")[0]


def _with_fib(snap: Snapshot, switch: str, routes: list[FibRoute]) -> Snapshot:
    return snap.model_copy(update={"fib": {**snap.fib, switch: routes}})


def _clean(snap: Snapshot, _state: FabricState) -> Snapshot:
    return snap


def _bounce(snap: Snapshot, state: FabricState) -> Snapshot:
    """leaf1: gpu1:eth0's /32 up to spine1; leaf2: gpu1:eth1's /32 up to spine2 (what a typo'd host route does)."""
    for leaf, netdev, spine in (("leaf1", "eth0", "spine1"), ("leaf2", "eth1", "spine2")):
        prefix = f"{_address(state, 'gpu1', netdev)}/32"
        routes = [r for r in snap.fib[leaf] if r.prefix != prefix]
        routes.append(FibRoute(prefix=prefix, protocol="static", ports=[_port(state, leaf, spine)]))
        snap = _with_fib(snap, leaf, routes)
    return snap


def _no_fib_from_spine2(snap: Snapshot, _state: FabricState) -> Snapshot:
    return snap.model_copy(update={"fib": {k: v for k, v in snap.fib.items() if k != "spine2"}})


def _spine1_unreachable(snap: Snapshot, _state: FabricState) -> Snapshot:
    """A switch that could not be read has neither an observed device nor a FIB."""
    devices = {k: v for k, v in snap.observed.devices.items() if k != "spine1"}
    observed = snap.observed.model_copy(update={"devices": devices})
    fib = {k: v for k, v in snap.fib.items() if k != "spine1"}
    return snap.model_copy(update={"observed": observed, "fib": fib})


def _empty_leaf2_fib(snap: Snapshot, _state: FabricState) -> Snapshot:
    """An empty table was read (FRR had nothing): no route towards anyone, so no cycle, and still judged."""
    return _with_fib(snap, "leaf2", [])


@dataclass(frozen=True)
class Case:
    name: str
    edit: Edit
    status: Status
    says: tuple[str, ...]  # text the result's message or its one finding must hold


# the witness is the shortest cycle in the component: leaf1's U-turn (leaf1 -> spine1 -> leaf1 for gpu1:eth0);
# the component holds the six buffers of leaf1 -> spine1 -> leaf2 -> spine2 -> leaf1 and both U-turns
LINKS = (
    "6 buffer(s) on cycles",
    "witness leaf1 -> spine1 -> leaf1",
    "links: spine1:Ethernet0->leaf1:Ethernet32 prio 3 (for gpu1:eth0), leaf1:Ethernet32->spine1:Ethernet0 prio 3",
    "down-to-up turns: leaf1: Ethernet32 -> Ethernet32 for gpu1:eth0",
)
CASES = [
    Case("clean FIBs", _clean, Status.SUCCESS, ("baseline: forwarding from the collected FIBs of 5 switches",)),
    Case("empty FIB read", _empty_leaf2_fib, Status.SUCCESS, ("collected FIBs",)),
    Case(
        "bounce FIBs",
        _bounce,
        Status.FAILURE,
        ("network compute, baseline (forwarding from the collected FIBs)", "on priority 3", *LINKS),
    ),
    Case("no FIB from spine2", _no_fib_from_spine2, Status.ERROR, ("no FIB collected from spine2",)),
    Case("spine1 unreachable", _spine1_unreachable, Status.ERROR, ("no FIB collected from spine1",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_deadlock_check_on_collected_fibs(case: Case, lab_mini_state: tuple[object, FabricState]) -> None:
    state = lab_mini_state[1]
    snap = case.edit(mirror_snapshot(state), state)
    params = {"deadlock.cbd": CyclicBufferDependency.Params(max_failures=0)}
    (result,) = run_checks(state, ["deadlock.cbd"], observed=snap, params=params)
    assert result.status is case.status, (result.message, [str(f) for f in result.findings])
    text = result.message or ""
    if case.status is Status.FAILURE:
        (finding,) = result.findings  # one cycle, found once (only the FIB baseline ran)
        assert finding.priority == 3
        assert finding.device in {"leaf1", "leaf2"}  # where the bounce is
        text = f"{finding.object} {finding.problem}"
    for part in case.says:
        assert part in text, text


def test_the_failure_sweep_stays_a_what_if_on_the_intent(lab_mini_state: tuple[object, FabricState]) -> None:
    state = lab_mini_state[1]
    (result,) = run_checks(state, ["deadlock.cbd"], observed=mirror_snapshot(state))  # max_failures 1
    assert result.status is Status.SUCCESS
    assert result.message == (
        "baseline: forwarding from the collected FIBs of 5 switches; "
        "link failures: every single fabric-link failure, what-if on the intent's routing model (bgp)"
    )
    (offline,) = run_checks(state, ["deadlock.cbd"])
    assert offline.message == (
        "baseline: forwarding from the routing model (bgp); link failures: every single fabric-link failure"
    )


def test_a_bounce_in_the_fibs_is_reported_once_beside_the_sweep(lab_mini_state: tuple[object, FabricState]) -> None:
    """With failures on, the FIB baseline finding comes first; the sweep's scenarios are the intent's
    (clean on lab-mini), so the collected bounce is not repeated per failure."""
    state = lab_mini_state[1]
    (result,) = run_checks(state, ["deadlock.cbd"], observed=_bounce(mirror_snapshot(state), state))
    assert result.status is Status.FAILURE
    assert [f.object for f in result.findings] == ["network compute, baseline (forwarding from the collected FIBs)"]
