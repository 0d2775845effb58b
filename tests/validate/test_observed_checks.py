"""Checks of the running fabric, table-driven: each passes on the snapshot of a fabric that runs its
intent, and catches the fault seeded into a copy of it, naming device, port and priority."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import (
    BgpSession,
    BufferWatermarks,
    CollectError,
    GpuNicPath,
    HostObserved,
    LldpNeighbor,
    PfcCounters,
    PortCounters,
    QueueCounters,
    Snapshot,
    WatchdogCounters,
)
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import CHECKS, Status, run_checks
from xoff.validate.mirror import mirror_snapshot

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


def _device(snap: Snapshot, name: str, **changes: Any) -> Snapshot:
    dev = snap.observed.devices[name].model_copy(update=changes)
    observed = snap.observed.model_copy(update={"devices": {**snap.observed.devices, name: dev}})
    return snap.model_copy(update={"observed": observed})


def _iface(snap: Snapshot, name: str, port: str, **changes: Any) -> Snapshot:
    dev = snap.observed.devices[name]
    return _device(snap, name, interfaces={**dev.interfaces, port: dev.interfaces[port].model_copy(update=changes)})


def _profile(snap: Snapshot, name: str, profile: str, **changes: Any) -> Snapshot:
    buffers = snap.observed.devices[name].buffers
    assert buffers is not None
    profiles = {**buffers.profiles, profile: buffers.profiles[profile].model_copy(update=changes)}
    return _device(snap, name, buffers=buffers.model_copy(update={"profiles": profiles}))


def _lldp(snap: Snapshot, name: str, port: str, neighbor: str, neighbor_port: str) -> Snapshot:
    rest = [n for n in snap.lldp[name] if n.port != port]
    lldp = {**snap.lldp, name: [*rest, LldpNeighbor(port=port, neighbor=neighbor, neighbor_port=neighbor_port)]}
    return snap.model_copy(update={"lldp": lldp})


def _bgp(snap: Snapshot, name: str, sessions: list[BgpSession]) -> Snapshot:
    return snap.model_copy(update={"bgp_sessions": {**snap.bgp_sessions, name: sessions}})


def _host(snap: Snapshot, name: str, **changes: Any) -> Snapshot:
    return snap.model_copy(update={"hosts": {**snap.hosts, name: snap.hosts[name].model_copy(update=changes)}})


def _counters(snap: Snapshot, name: str, port: str, counters: PortCounters) -> Snapshot:
    return snap.model_copy(update={"counters": {**snap.counters, name: {**snap.counters[name], port: counters}}})


Seed = Callable[[Snapshot], Snapshot]
# (check, seeded fault, the first finding's text, its port, its priority)
CASES: list[tuple[str, Seed, str, str | None, int | None]] = [
    (
        "drift.state",
        lambda s: _iface(s, "leaf1", "Ethernet8", mtu=1500),
        "leaf1: interfaces.Ethernet8.mtu - differs from intent - Expected: 9100 Actual: 1500",
        "Ethernet8",
        None,
    ),
    (
        "drift.state",  # a QoS map entry: the leaf path, both values
        lambda s: _device(
            s,
            "spine1",
            qos=s.observed.devices["spine1"].qos.model_copy(  # type: ignore[union-attr]
                update={"dscp_to_tc": {**s.observed.devices["spine1"].qos.dscp_to_tc, 26: 1}}  # type: ignore[union-attr]
            ),
        ),
        "spine1: qos.dscp_to_tc.26 - differs from intent - Expected: 3 Actual: 1",
        None,
        None,
    ),
    (
        "drift.state",  # beyond one Spectrum-4 cell (192 bytes) of rounding
        lambda s: _profile(s, "leaf1", "pg_lossless_400000_5m_profile", xoff=231424 + 4096),
        "leaf1: buffers.profiles.pg_lossless_400000_5m_profile.xoff - differs from intent - Expected: 231424 Actual: 235520",
        None,
        None,
    ),
    (
        "cabling.lldp",
        lambda s: _lldp(s, "leaf1", "Ethernet0", "gpu2", "eth0"),
        "leaf1: Ethernet0 - LLDP neighbour is not the intended peer - Expected: gpu1:eth0 Actual: gpu2:eth0",
        "Ethernet0",
        None,
    ),
    (
        "cabling.lldp",  # link down: no neighbour at all
        lambda s: s.model_copy(
            update={"lldp": {**s.lldp, "spine1": [n for n in s.lldp["spine1"] if n.port != "Ethernet8"]}}
        ),
        "spine1: Ethernet8 - no LLDP neighbour - Expected: leaf2:Ethernet32 Actual: none",
        "Ethernet8",
        None,
    ),
    (
        "bgp.sessions",
        lambda s: _bgp(s, "leaf1", [BgpSession(address="198.18.0.0", remote_asn=65100, state="Active")]),
        "leaf1: neighbor 198.18.0.0 (spine1) - session not established - Expected: Established Actual: Active",
        "Ethernet32",
        None,
    ),
    (
        "bgp.sessions",
        lambda s: _bgp(s, "leaf1", [BgpSession(address="198.18.0.0", remote_asn=65999, state="Established")]),
        "leaf1: neighbor 198.18.0.0 (spine1) - remote AS differs - Expected: 65100 Actual: 65999",
        "Ethernet32",
        None,
    ),
    (
        "bgp.sessions",
        lambda s: _bgp(s, "leaf1", []),
        "leaf1: neighbor 198.18.0.0 (spine1) - no session - Expected: Established Actual: absent",
        "Ethernet32",
        None,
    ),
    (
        "gpudirect.peermem",
        lambda s: _host(s, "gpu1", modules=["mlx5_ib"]),
        "gpu1: nvidia-peermem - module not loaded - Expected: nvidia_peermem or nv_peer_mem Actual: not in lsmod",
        None,
        None,
    ),
    (
        "gpudirect.acs",
        lambda s: _host(s, "gpu2", acs_enabled_bridges=["0000:16:02.0"]),
        "gpu2: PCI bridge 0000:16:02.0 - ACS enabled - Expected: ACSCtl SrcValid- Actual: SrcValid+",
        None,
        None,
    ),
    (
        "gpudirect.topology",
        lambda s: _host(
            s,
            "gpu1",
            gpu_nic_paths=[
                GpuNicPath(gpu=0, nic="mlx5_0", relation="SYS"),
                GpuNicPath(gpu=1, nic="mlx5_1", relation="PXB"),
            ],
        ),
        "gpu1: GPU0 - mlx5_0 - rail NIC too far for GPUDirect RDMA - Expected: PIX/PXB Actual: SYS",
        "eth0",
        None,
    ),
    (
        "counters.pfc_storms",
        lambda s: _counters(
            s, "leaf2", "Ethernet8", PortCounters(watchdog={3: WatchdogCounters(storms_detected=2, storms_restored=2)})
        ),
        "leaf2: Ethernet8 queue 3 - PFC storm detected by the watchdog - Expected: <= 0 Actual: 2 storm(s), 2 restored",
        "Ethernet8",
        3,
    ),
    (
        "counters.lossless_drops",
        lambda s: _counters(
            s, "spine1", "Ethernet0", PortCounters(queues={3: QueueCounters(packets=10, dropped_packets=7)})
        ),
        "spine1: Ethernet0 queue 3 - drops on a lossless queue - Expected: <= 0 Actual: 7 packets",
        "Ethernet0",
        3,
    ),
    (
        "collect.complete",
        lambda s: s.model_copy(
            update={
                "errors": [
                    CollectError(
                        device="leaf2", command="show pfc counters", kind="parse", message="line 3: unexpected column"
                    )
                ]
            }
        ),
        "leaf2: show pfc counters - parse: line 3: unexpected column - Expected: collected Actual: parse",
        None,
        None,
    ),
    (
        "lossless.pfc_symmetry",  # a lossless check judges the observed state when there is one
        lambda s: _iface(s, "gpu1", "eth0", pfc_priorities=[]),
        "gpu1: eth0 - PFC priorities differ from the intent (peer leaf1:Ethernet0 has [3]) - Expected: [3] Actual: []",
        "eth0",
        3,
    ),
    (
        "rdma.gid_index",
        lambda s: _host(s, "gpu1", gids=[g for g in s.hosts["gpu1"].gids or [] if g.rdma != "mlx5_0"]),
        "gpu1: mlx5_0 (eth0) - no RoCE v2 GID for the NIC's IPv4 address - Expected: RoCE v2 ::ffff:198.18.0.5 "
        "Actual: no GID",
        "eth0",
        None,
    ),
    (
        "nic_qos.lossless_tc",
        lambda s: _nic_qos(s, "gpu1", "eth0", tc_tsa={3: "ets", 0: "ets"}, tc_bandwidth={0: 100, 3: 0}),
        "gpu1: eth0 priority 3 - lossless priority on TC3, which ETS starves - Expected: a TC with ETS bandwidth, "
        "a receive buffer of its own Actual: TC3 ets 0%",
        "eth0",
        3,
    ),
    (
        "nic_qos.cable_length",
        lambda s: _nic_qos(s, "gpu1", "eth0", cable_length_m=1),
        "gpu1: eth0 cable length - NIC headroom is sized for a shorter cable than the link - Expected: >= 5 m "
        "Actual: 1 m",
        "eth0",
        None,
    ),
]


def _nic_qos(snap: Snapshot, name: str, netdev: str, **changes: Any) -> Snapshot:
    qos = snap.hosts[name].nic_qos
    return _host(snap, name, nic_qos={**qos, netdev: qos[netdev].model_copy(update=changes)})


CASES += [
    (
        "tenant.port_vrf",  # leaf1's host port Ethernet8 bound to a VRF the intent does not give it
        lambda s: _iface(s, "leaf1", "Ethernet8", vrf="Vrf-x"),
        "leaf1: Ethernet8 - port in a tenant's VRF - Expected: default Actual: Vrf-x",
        "Ethernet8",
        None,
    ),
    (
        "buffers.headroom_watermark",  # PG3 of spine1 Ethernet0 used all of its profile's xoff
        lambda s: _counters(
            s, "spine1", "Ethernet0", PortCounters(watermarks=BufferWatermarks(pg_headroom={3: 283648}))
        ),
        "spine1: Ethernet0 PG3 - headroom watermark near or above the planned headroom - Expected: < 90% of 283648 "
        "bytes (profile pg_lossless_400000_40m_profile xoff) Actual: 283648 bytes (100%)",
        "Ethernet0",
        3,
    ),
    (
        "buffers.pool_watermark",
        lambda s: s.model_copy(
            update={
                "buffer_pool_watermarks": {**s.buffer_pool_watermarks, "leaf1": {"ingress_lossless_pool": 52161690}}
            }
        ),
        "leaf1: buffer pool ingress_lossless_pool - pool watermark near or above its planned size - Expected: < 90% of "
        "52161690 bytes (pool size) Actual: 52161690 bytes (100%)",
        None,
        None,
    ),
]
CASES.append(
    (
        "counters.ecn_before_pfc",  # leaf1 sent pause on priority 3 while its queue 3 marked nothing
        lambda s: _counters(
            s,
            "leaf1",
            "Ethernet0",
            s.counters["leaf1"]["Ethernet0"].model_copy(update={"pfc": PfcCounters(tx_pause={3: 5000})}),
        ),
        "leaf1: queue 3 (priority 3) - PFC pause sent but ECN marked no packet - Expected: ECN-marked packets > 0 "
        "before PFC pauses Actual: 0 marked; 5000 pause frames sent on Ethernet0",
        "Ethernet0",
        3,
    )
)
OBSERVED = sorted(i for i in CHECKS.ids() if "observed" in CHECKS.get(i).needs and not i.startswith("infiniband."))


def test_every_check_passes_on_a_fabric_running_its_intent(desired: FabricState) -> None:
    results = run_checks(desired, observed=mirror_snapshot(desired))
    bad = [
        (r.id, r.status, r.message, [str(f) for f in r.findings[:2]])
        for r in results
        if r.status not in (Status.SUCCESS, Status.SKIPPED)
    ]
    assert not bad
    assert {r.id for r in results if r.status is Status.SUCCESS} >= set(OBSERVED)


@pytest.mark.parametrize(
    ("check_id", "seed", "first", "port", "priority"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_check_catches(
    check_id: str, seed: Seed, first: str, port: str | None, priority: int | None, desired: FabricState
) -> None:
    snap = seed(mirror_snapshot(desired))
    results = {r.id: r for r in run_checks(desired, observed=snap)}
    result = results[check_id]
    assert result.status is Status.FAILURE, result.message
    assert str(result.findings[0]) == first
    assert (result.findings[0].port, result.findings[0].priority) == (port, priority)
    assert result.hint  # every built-in check says how to fix what it finds


def test_every_observed_check_has_a_failing_case() -> None:
    assert {c[0] for c in CASES} >= set(OBSERVED)


def test_observed_checks_are_skipped_offline_with_a_reason(desired: FabricState) -> None:
    results = {r.id: r for r in run_checks(desired, OBSERVED)}
    assert all(r.status is Status.SKIPPED and "needs observed state" in (r.message or "") for r in results.values())


def test_drift_tolerates_one_cell_of_asic_rounding(desired: FabricState) -> None:
    # Spectrum-4 cells are 192 bytes: a read-back rounded up to the next cell is not drift
    snap = _profile(mirror_snapshot(desired), "leaf1", "pg_lossless_400000_5m_profile", xoff=231424 + 191)
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert result.status is Status.SUCCESS
    # ... but the same difference on a field the ASIC does not round is
    snap = _iface(mirror_snapshot(desired), "leaf1", "Ethernet8", speed_mbps=400000 + 1)
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert [str(f) for f in result.findings] == [
        "leaf1: interfaces.Ethernet8.speed_mbps - differs from intent - Expected: 400000 Actual: 400001"
    ]


def test_drift_compares_only_the_fields_that_were_read(desired: FabricState) -> None:
    snap = _iface(mirror_snapshot(desired), "leaf1", "Ethernet8", mtu=1500)
    snap = snap.model_copy(update={"observed_fields": {**snap.observed_fields, "leaf1": ["bgp"]}})
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert result.status is Status.SUCCESS
    snap = snap.model_copy(update={"observed_fields": {}})
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert result.status is Status.SKIPPED and "no observed fields" in (result.message or "")


def test_drift_ignore_patterns_from_the_catalog(desired: FabricState) -> None:
    snap = _iface(mirror_snapshot(desired), "leaf1", "Ethernet8", mtu=1500)
    cls = CHECKS.get("drift.state")
    (result,) = run_checks(
        desired, ["drift.state"], observed=snap, params={"drift.state": cls.Params(ignore=("interfaces.*.mtu",))}
    )  # type: ignore[call-arg]
    assert result.status is Status.SUCCESS


def test_reordered_lists_are_not_drift(desired: FabricState) -> None:
    buffers = desired.devices["leaf1"].buffers
    assert buffers is not None
    snap = _device(
        mirror_snapshot(desired), "leaf1", buffers=buffers.model_copy(update={"pools": list(reversed(buffers.pools))})
    )
    (result,) = run_checks(desired, ["drift.state"], observed=snap)
    assert result.status is Status.SUCCESS


def test_unexpected_bgp_session_and_lldp_neighbour(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    snap = _bgp(
        snap,
        "spine1",
        [*snap.bgp_sessions["spine1"], BgpSession(address="198.18.9.9", remote_asn=64999, state="Established")],
    )
    snap = _lldp(snap, "spine1", "Ethernet56", "rogue", "eth9")
    results = {r.id: r for r in run_checks(desired, ["bgp.sessions", "cabling.lldp"], observed=snap)}
    assert [str(f) for f in results["bgp.sessions"].findings] == [
        "spine1: neighbor 198.18.9.9 - session not in the intent - Expected: absent Actual: AS64999 Established"
    ]
    assert [str(f) for f in results["cabling.lldp"].findings] == [
        "spine1: Ethernet56 - LLDP neighbour on a port the intent leaves uncabled - Expected: none Actual: rogue:eth9"
    ]


def test_host_observed_without_gpudirect_intent_is_not_judged(desired: FabricState) -> None:
    snap = mirror_snapshot(desired)
    snap = snap.model_copy(update={"hosts": {"stranger": HostObserved(acs_enabled_bridges=["0000:00:01.0"])}})
    (result,) = run_checks(desired, ["gpudirect.acs"], observed=snap)
    assert result.status is Status.SKIPPED
