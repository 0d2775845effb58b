"""lossless.headroom's port total on Mellanox is SONiC's port check: size-0 lossy PGs counted, strictly below."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.buffers import PgReservation, port_headroom_total
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.checks.buffers import PgHeadroom, pg_numbers

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def state() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _largest_port_total(state: FabricState) -> tuple[int, int]:
    """The largest port total by SONiC's rule, and how many lossy PGs it counted (from the TC -> PG map)."""
    best = (0, 0)
    for dev in state.devices.values():
        if dev.buffers is None or dev.qos is None:
            continue
        for pgs in dev.buffers.port_priority_groups.values():
            lossless = {n for key in pgs for n in pg_numbers(key)}
            lossy = sorted(set(dev.qos.tc_to_priority_group.values()) - lossless)
            res = [PgReservation(k, (p := dev.buffers.profiles[n]).size, p.xon, p.xoff) for k, n in pgs.items()]
            total = port_headroom_total("spectrum4", res + [PgReservation(str(pg), 0) for pg in lossy])
            best = max(best, (total, len(lossy)))
    return best


def test_the_fixture_has_lossy_pgs_to_count(state: FabricState) -> None:
    total, lossy = _largest_port_total(state)
    assert lossy >= 1 and total > 0


@pytest.mark.parametrize(("offset", "status"), [(0, Status.FAILURE), (1, Status.SUCCESS), (-19456, Status.FAILURE)])
def test_port_total_against_max_headroom(state: FabricState, offset: int, status: Status) -> None:
    total, _ = _largest_port_total(state)
    params = {"lossless.headroom": PgHeadroom.Params(max_port_headroom_bytes=total + offset)}
    (result,) = run_checks(state, ["lossless.headroom"], params=params)
    assert result.status is status
    if status is Status.FAILURE:
        assert any(str(f).endswith(f"Actual: {total}") for f in result.findings)


def test_skipped_without_buffers(tmp_path: Path) -> None:
    text = MINIMAL.read_text().replace("        lossless: true\n", "")
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    (result,) = run_checks(build_fabric_state(load_intent(path)), ["lossless.headroom"])
    assert result.status is Status.SKIPPED


def test_a_port_unlike_its_sound_neighbours_is_still_judged(state: FabricState) -> None:
    """Ports alike to a sound one are skipped (the check's shortcut): one port whose cable is longer than the
    profile covers, after ports alike in everything else, is found, and only it."""
    dev = next(d for d in state.devices.values() if d.buffers is not None and len(d.buffers.port_priority_groups) > 1)
    port = list(dev.buffers.port_priority_groups)[-1]  # type: ignore[union-attr]
    iface = dev.interfaces[port].model_copy(update={"cable_m": 2000})
    changed = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    subject = state.model_copy(update={"devices": {**state.devices, dev.name: changed}})
    (result,) = run_checks(subject, ["lossless.headroom"])
    assert result.status is Status.FAILURE
    assert {(f.device, f.port) for f in result.findings} == {(dev.name, port)}


def test_alike_devices_share_only_sound_ports(state: FabricState) -> None:
    """The check shares the ports found sound between devices alike in buffers, ASIC and TC -> PG map: the same
    long-cable port on two alike devices is found on both, and a device whose TC -> PG map counts one more lossy
    PG is judged on its own (its port totals rise past a limit its alike neighbours stay below)."""
    devs = [d for d in state.devices.values() if d.buffers is not None and d.buffers.port_priority_groups]
    first, second = next((a, b) for a in devs for b in devs if a is not b and a.buffers is b.buffers)
    port = next(p for p in first.buffers.port_priority_groups if p in second.buffers.port_priority_groups)  # type: ignore[union-attr]
    longer = {}
    for dev in (first, second):
        iface = dev.interfaces[port].model_copy(update={"cable_m": 2000})
        longer[dev.name] = dev.model_copy(update={"interfaces": {**dev.interfaces, port: iface}})
    subject = state.model_copy(update={"devices": {**state.devices, **longer}})
    (result,) = run_checks(subject, ["lossless.headroom"])
    assert {(f.device, f.port) for f in result.findings} == {(first.name, port), (second.name, port)}

    total, _ = _largest_port_total(state)
    params = {"lossless.headroom": PgHeadroom.Params(max_port_headroom_bytes=total + 1)}
    assert second.qos is not None
    spare = max([*second.qos.tc_to_priority_group.values(), 0]) + 1  # a PG no TC maps to yet: one more lossy PG
    tc_pg = {**second.qos.tc_to_priority_group, 99: spare}
    qos = second.qos.model_copy(update={"tc_to_priority_group": tc_pg})
    subject = state.model_copy(
        update={"devices": {**state.devices, second.name: second.model_copy(update={"qos": qos})}}
    )
    (result,) = run_checks(subject, ["lossless.headroom"], params=params)
    assert result.status is Status.FAILURE
    assert {f.device for f in result.findings} == {second.name}
