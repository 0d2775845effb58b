"""InfiniBand checks: each passes on the clean lab captures and fails, naming device and port, on one
seeded fault (in the intent, or in the fabric read back)."""

from __future__ import annotations

from functools import cache

import pytest

from tests.support.paths import ROOT
from xoff.contracts.infiniband import IbObservation, IbPort, VlArb
from xoff.contracts.observed import Snapshot
from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.platforms.infiniband.observe import observation_from_dump
from xoff.validate.checks import infiniband as ib
from xoff.validate.model import Status
from xoff.validate.registry import run_checks

DUMPS = ROOT / "tests" / "fixtures" / "deadlock" / "ib"
IB_IDS = [
    "infiniband.lft_routes",
    "infiniband.link_width_speed",
    "infiniband.partitions",
    "infiniband.routing_deadlock_free",
    "infiniband.sl_vl_weight",
]


@cache
def desired(name: str) -> FabricState:
    return build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / name))


@cache
def observed(dump: str) -> IbObservation:
    return observation_from_dump(DUMPS / dump)


def guid_of(o: IbObservation, description: str) -> str:
    return next(g for g, n in o.nodes.items() if n.description == description)


def findings(check: type[ib.InfinibandCheck], fabric: FabricState, o: IbObservation | None) -> list[str]:
    return [str(f) for f in check().judge(fabric, o)]


def with_sm(fabric: FabricState, **changes: object) -> FabricState:
    name = next(d.name for d in fabric.devices.values() if d.subnet_manager is not None)
    dev = fabric.devices[name]
    assert dev.subnet_manager is not None
    sm = dev.subnet_manager.model_copy(update=changes)
    return fabric.model_copy(
        update={"devices": {**fabric.devices, name: dev.model_copy(update={"subnet_manager": sm})}}
    )


@pytest.mark.parametrize(("intent", "dump"), [("ib-fattree", "fattree_ftree"), ("ib-ring", "ring_updn")])
def test_clean_captures_pass_every_ib_check(intent: str, dump: str) -> None:
    snap = Snapshot(
        fabric=desired(intent).fabric,
        collected_at="2026-01-01T00:00:00Z",
        observed=desired(intent),
        infiniband=observed(dump).model_dump(mode="json"),
    )
    results = run_checks(desired(intent), IB_IDS, observed=snap)
    assert [(r.id, r.status) for r in results] == [(i, Status.SUCCESS) for i in IB_IDS], [r.findings for r in results]


def test_without_an_observation_only_the_intent_checks_run() -> None:
    results = {r.id: r for r in run_checks(desired("ib-fattree"), IB_IDS)}
    assert results["infiniband.link_width_speed"].status is Status.SKIPPED
    assert results["infiniband.lft_routes"].status is Status.SKIPPED
    assert results["infiniband.routing_deadlock_free"].status is Status.SUCCESS
    results = {r.id: r for r in run_checks(desired("ib-ring"), IB_IDS, observed=None)}
    assert results["infiniband.partitions"].status is Status.SUCCESS


def test_routing_engine_from_intent() -> None:
    ring = desired("ib-ring")
    assert ib.topology_kind(ring) == "other" and ib.topology_kind(desired("ib-fattree")) == "fat-tree"
    assert findings(ib.RoutingDeadlockFree, ring, None) == []
    minhop = findings(ib.RoutingDeadlockFree, with_sm(ring, routing_engine=["minhop"]), None)
    assert minhop == [
        "sm01: routing_engine - OpenSM would route this other topology with minhop, which is not credit-loop free on it"
        " - Expected: ftree/updn on a fat tree; updn, dfsssp, lash or nue otherwise Actual: minhop"
    ]
    # ftree cannot route a ring; without no_fallback OpenSM falls back to minhop
    assert (
        "with minhop"
        in findings(ib.RoutingDeadlockFree, with_sm(ring, routing_engine=["ftree"], no_fallback=False), None)[0]
    )
    assert "no engine" in findings(ib.RoutingDeadlockFree, with_sm(ring, routing_engine=["ftree"]), None)[0]
    sm = ring.devices["sm01"].subnet_manager
    assert sm is not None
    all_roots = [d.guid for d in ring.devices.values() if d.kind == "ib_switch" and d.guid]
    roots = findings(ib.RoutingDeadlockFree, with_sm(ring, root_guids=all_roots), None)
    assert len(roots) == 1 and "roots ibsw1 and ibsw2 are cabled to each other" in roots[0]


def test_credit_loop_and_fallback_engine_read_back() -> None:
    got = findings(ib.RoutingDeadlockFree, desired("ib-ring"), observed("ring_minhop"))
    assert got[0].startswith("sm01: routing_engine - OpenSM routed with an engine the intent does not list")
    loops = [f for f in got if "credit loop of 5" in f]
    assert len(loops) == 4 and all("witness ibsw" in f for f in loops)


def test_sl_vl_weight() -> None:
    fat = desired("ib-fattree")
    no_weight = findings(ib.SlVlWeight, with_sm(fat, vlarb_low=[(1, 64)]), None)
    assert no_weight == [
        "sm01: SL0 - maps to VL0, which has no arbitration weight (or is beyond max_vls 2) - Expected: > 0 Actual: 0"
    ]
    o = observed("fattree_ftree")
    leaf = guid_of(o, "ibleaf2")
    starved = VlArb(low=[(1, 64)], high=[], low_cap=8, high_cap=8)
    broken = o.model_copy(update={"vlarb": {**o.vlarb, leaf: {**o.vlarb[leaf], 5: starved}}})
    got = findings(ib.SlVlWeight, fat, broken)
    assert got and all(f.startswith("ibleaf2: port 5 (from port ") for f in got)
    assert "SL0 -> VL0 has no arbitration weight" in got[0]


def test_partitions() -> None:
    fat = desired("ib-fattree")
    dup = findings(ib.Partitions, with_sm(fat, partitions=[*fat.devices["sm01"].subnet_manager.partitions] * 2), None)  # type: ignore[union-attr]
    assert len(dup) == 2 and "PKey not unique" in dup[0]
    o = observed("fattree_ftree")
    gpu1, gpu3 = guid_of(o, "gpu1 mlx5_0"), guid_of(o, "gpu3 mlx5_0")
    pk = {**o.pkeys, gpu1: {1: [0x7FFF, 0x8001, 0x0A01]}, gpu3: {1: [0x7FFF, 0x8001, 0x8A01]}}
    got = findings(ib.Partitions, fat, o.model_copy(update={"pkeys": pk}))
    assert got == [
        "gpu1: ib0 - not a full member of tenant-a - Expected: 0x8a01 Actual: 0x0a01",
        "gpu3: ib0 - in partition tenant-a without being a member - Expected: absent Actual: 0x8a01",
    ]


def test_link_width_speed() -> None:
    fat = desired("ib-fattree")
    o = observed("fattree_ftree")
    uncapped = findings(ib.LinkWidthSpeed, fat, o.model_copy(update={"speed_cap": None}))
    assert uncapped and "Expected: 4X NDR Active Actual: 4X HDR Active" in uncapped[0]  # ibsim has no NDR
    leaf = guid_of(o, "ibleaf1")
    node = o.nodes[leaf]
    narrow = node.model_copy(update={"ports": {**node.ports, 5: node.ports[5].model_copy(update={"width": "1X"})}})
    got = findings(ib.LinkWidthSpeed, fat, o.model_copy(update={"nodes": {**o.nodes, leaf: narrow}}))
    assert len(got) == 1 and got[0].startswith("ibleaf1: 5 -> ibspine1:1 - link width/speed/state not as intended")
    down = node.model_copy(update={"ports": {**node.ports, 1: IbPort(number=1, state="Down", phys_state="Polling")}})
    got = findings(ib.LinkWidthSpeed, fat, o.model_copy(update={"nodes": {**o.nodes, leaf: down}}))
    assert got == [
        "ibleaf1: 1 -> gpu1:ib0 - link width/speed/state not as intended - Expected: 4X HDR Active Actual: None None Down"
    ]


def test_lft_routes() -> None:
    fat = desired("ib-fattree")
    o = observed("fattree_ftree")
    spine = guid_of(o, "ibspine2")
    gpu5_lid = o.nodes[guid_of(o, "gpu5 mlx5_0")].ports[1].lid
    assert gpu5_lid is not None
    lft = {k: v for k, v in o.lfts[spine].items() if k != gpu5_lid}
    got = findings(ib.LftRoutes, fat, o.model_copy(update={"lfts": {**o.lfts, spine: lft}}))
    assert got == [
        f"ibspine2: LID {gpu5_lid} - no working route to gpu5 ib0: no route at ibspine2 (LFT port None) - Expected: a route Actual: none"
    ]
    leaf = guid_of(o, "ibleaf3")
    loop = {**o.lfts, leaf: {**o.lfts[leaf], gpu5_lid: 5}}  # back up to ibspine1, which sends it down again
    got = findings(ib.LftRoutes, fat, o.model_copy(update={"lfts": loop}))
    assert got and all("loops" in f for f in got)


def test_observed_findings_name_the_device_and_port() -> None:
    """The observed findings carry ``port`` (the JSON report's field); an HCA port is named by host and netdev."""
    fat = desired("ib-fattree")
    o = observed("fattree_ftree")
    gpu1 = guid_of(o, "gpu1 mlx5_0")
    starved = VlArb(low=[(1, 64)], high=[], low_cap=8, high_cap=8)
    got = list(ib.SlVlWeight().judge(fat, o.model_copy(update={"vlarb": {**o.vlarb, gpu1: {1: starved}}})))
    assert [(f.device, f.port, f.problem) for f in got] == [("gpu1", "ib0", "SL0 -> VL0 has no arbitration weight")]
    leaf = guid_of(o, "ibleaf1")
    node = o.nodes[leaf]
    narrow = node.model_copy(update={"ports": {**node.ports, 5: node.ports[5].model_copy(update={"width": "1X"})}})
    got = list(ib.LinkWidthSpeed().judge(fat, o.model_copy(update={"nodes": {**o.nodes, leaf: narrow}})))
    assert [(f.device, f.port) for f in got] == [("ibleaf1", "5")]


SA_DUMPS = ROOT / "tests" / "fixtures" / "parse" / "infiniband" / "dumps"


def partitions(fabric: FabricState, o: IbObservation) -> tuple[list[tuple[str, str | None, str]], str | None]:
    check = ib.Partitions()
    got = [(f.device, f.port, f.problem) for f in check.judge(fabric, o)]
    return got, check.note


def test_switch_port_facing_a_host_holds_the_hosts_partitions() -> None:
    """Read by saquery (switch ports included): the clean ring passes; the switch port facing gpu2 without
    the jobs PKey is a finding on that switch port (OpenSM enforces partitions there by default)."""
    ring = desired("ib-ring")
    o = observation_from_dump(SA_DUMPS / "ring_saquery")
    assert partitions(ring, o) == (
        [],
        "PKey tables read with saquery PKeyTableRecord (the SA); host-facing switch ports judged "
        "(OpenSM part_enforce both)",
    )
    sw2 = guid_of(o, "ibsw2")
    dropped = o.model_copy(update={"pkeys": {**o.pkeys, sw2: {**o.pkeys[sw2], 1: [0x7FFF]}}})
    got, _ = partitions(ring, dropped)
    assert got == [
        (
            "ibsw2",
            "1",
            "lacks PKey 0x0001 of partition jobs that gpu2 ib0 (on this port) is a member of: partition "
            "enforcement (both) drops its traffic",
        )
    ]
    off = dropped.model_copy(update={"partition_enforcement": "off"})
    got, note = partitions(ring, off)
    assert got == [] and note is not None and "part_enforce is off" in note
    missing = o.model_copy(update={"pkeys": {**o.pkeys, sw2: {5: o.pkeys[sw2][5]}}})
    assert partitions(ring, missing)[0] == [("ibsw2", "1", "PKey table of the port facing gpu2 not collected")]


def test_switch_ports_not_judged_without_their_tables() -> None:
    """A capture of host ports only (an older collector) says so instead of passing the switch ports."""
    got, note = partitions(desired("ib-fattree"), observed("fattree_ftree"))
    assert got == [] and note is not None and "switch ports' PKey tables were not read" in note


def test_fallback_read_is_named_in_the_note() -> None:
    got, note = partitions(desired("ib-ring"), observation_from_dump(SA_DUMPS / "ring_smpquery"))
    assert got == [] and note is not None and note.startswith("PKey tables read with smpquery pkeys (SA refused)")
