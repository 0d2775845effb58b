"""Judged only on what was seen: ``Check.reads`` against ``Snapshot.observed_fields`` (devices left out are named,
none left is skipped, a link only where both ends are judged), checks on snapshot extras skipped per device when
nothing was observed (N/A counters included), and LLDP system names compared as hostnames (FQDN, case)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.contracts.observed import LldpNeighbor, PortCounters, QueueCounters, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.intent import load_intent
from xoff.validate import CHECKS, Status, run_checks
from xoff.validate.checks.running import same_host
from xoff.validate.coverage import covers, path_error, unread
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.registry import Check, Registry

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(MINIMAL))


@pytest.mark.parametrize(
    ("observed", "read", "covered"),
    [
        ("qos.ecn", "qos.ecn", True),
        ("qos", "qos.ecn", True),  # an ancestor
        ("interfaces.*.mtu", "interfaces.*.mtu", True),
        ("interfaces.*.mtu", "interfaces.Ethernet0.mtu", True),  # * matches a key
        ("interfaces", "interfaces.*.mtu", True),
        ("qos.ecn", "qos", False),  # a child is not its parent
        ("qos.dscp_to_tc", "qos.pfc_priority_to_queue", False),
        ("interfaces.*.mtu", "interfaces.*.cable_m", False),
        ("host.nics.*.pfc", "host.nics.*.trust", False),
    ],
)
def test_covers(observed: str, read: str, covered: bool) -> None:
    assert covers(observed, read) is covered


@pytest.mark.parametrize(
    ("fields", "missing"),
    [
        (["interfaces", "interfaces.*.mtu"], ["interfaces.*.cable_m"]),  # listed beside its children: only itself
        (["interfaces"], []),  # alone: everything under it
        (["interfaces", "interfaces.*.mtu", "interfaces.*.cable_m"], []),
        ([], ["interfaces.*.mtu", "interfaces.*.cable_m"]),
    ],
)
def test_an_ancestor_listed_with_its_children_covers_only_those(
    desired: FabricState, fields: list[str], missing: list[str]
) -> None:
    dev = desired.devices["leaf1"]
    assert unread(dev, fields, ["interfaces.*.mtu", "interfaces.*.cable_m"]) == missing


def test_a_path_a_device_holds_nothing_on_is_not_asked(desired: FabricState) -> None:
    # a switch has no host part, a host no QoS: nothing there to judge, observed or not
    assert unread(desired.devices["leaf1"], [], ["host.nics.*.trust"]) == []
    assert unread(desired.devices["gpu1"], [], ["qos.pfc_priority_to_queue"]) == []
    assert unread(desired.devices["gpu1"], [], ["host.nics.*.trust"]) == ["host.nics.*.trust"]


def _fields(snap: Snapshot, drop: dict[str, set[str]]) -> Snapshot:
    """Each named device's observed fields without ``drop``, written as a collector would list them."""
    fields = dict(snap.observed_fields)
    for name, gone in drop.items():
        dev = snap.observed.devices[name]
        listed = [f"qos.{k}" for k in type(dev.qos).model_fields] if dev.qos is not None else []
        listed += [f"interfaces.*.{k}" for k in ("mtu", "pfc_priorities")] + ["interfaces"]
        listed += [f for f in fields[name] if f not in ("qos", "interfaces")]
        fields[name] = [f for f in listed if f not in gone]
    return snap.model_copy(update={"observed_fields": fields})


def _cnp_dwrr(snap: Snapshot, name: str) -> Snapshot:
    dev = snap.observed.devices[name]
    assert dev.qos is not None and dev.qos.cnp_priority is not None
    queue = dev.qos.pfc_priority_to_queue[dev.qos.cnp_priority]
    schedulers = {**dev.qos.schedulers, queue: dev.qos.schedulers[queue].model_copy(update={"type": "dwrr"})}
    qos = dev.qos.model_copy(update={"schedulers": schedulers})
    devices = {**snap.observed.devices, name: dev.model_copy(update={"qos": qos})}
    return snap.model_copy(update={"observed": snap.observed.model_copy(update={"devices": devices})})


def _strict(snap: Snapshot) -> Snapshot:
    """Every switch's CNP queue strict (the fixture's intent leaves it DWRR, a warning)."""
    for name, dev in snap.observed.devices.items():
        if dev.qos is None or dev.qos.cnp_priority is None:
            continue
        queue = dev.qos.pfc_priority_to_queue[dev.qos.cnp_priority]
        schedulers = {**dev.qos.schedulers, queue: dev.qos.schedulers[queue].model_copy(update={"type": "strict"})}
        qos = dev.qos.model_copy(update={"schedulers": schedulers})
        devices = {**snap.observed.devices, name: dev.model_copy(update={"qos": qos})}
        snap = snap.model_copy(update={"observed": snap.observed.model_copy(update={"devices": devices})})
    return snap


def _iface_mtu(snap: Snapshot, name: str, port: str, mtu: int) -> Snapshot:
    dev = snap.observed.devices[name]
    interfaces = {**dev.interfaces, port: dev.interfaces[port].model_copy(update={"mtu": mtu})}
    devices = {**snap.observed.devices, name: dev.model_copy(update={"interfaces": interfaces})}
    return snap.model_copy(update={"observed": snap.observed.model_copy(update={"devices": devices})})


def _ecn_min_max(snap: Snapshot, name: str) -> Snapshot:
    dev = snap.observed.devices[name]
    assert dev.qos is not None
    ecn = {q: e.model_copy(update={"min_threshold": 2000000, "max_threshold": 2000000}) for q, e in dev.qos.ecn.items()}
    devices = {**snap.observed.devices, name: dev.model_copy(update={"qos": dev.qos.model_copy(update={"ecn": ecn})})}
    return snap.model_copy(update={"observed": snap.observed.model_copy(update={"devices": devices})})


def _na_counters(snap: Snapshot, keep: str | None = None) -> Snapshot:
    def na(ports: dict[str, PortCounters]) -> dict[str, PortCounters]:
        return {
            p: c.model_copy(update={"queues": {q: QueueCounters(packets=None) for q in c.queues}})
            for p, c in ports.items()
        }

    return snap.model_copy(update={"counters": {n: p if n == keep else na(p) for n, p in snap.counters.items()}})


Case = tuple[str, Callable[[Snapshot], Snapshot], Status, str | None, list[str]]
NOT_READ = {"qos.pfc_priority_to_queue"}
ALL_SWITCHES = {"spine1": NOT_READ, "leaf1": NOT_READ, "leaf2": NOT_READ}
# (check, the snapshot, status, message, findings)
CASES: list[Case] = [
    ("lossless.cnp_strict", _strict, Status.SUCCESS, None, []),
    (
        "lossless.cnp_strict",  # read, and wrong
        lambda s: _cnp_dwrr(_strict(s), "leaf1"),
        Status.FAILURE,
        None,
        ["leaf1: queue 6 - CNP queue is not strict - Expected: strict Actual: dwrr"],
    ),
    (
        "lossless.cnp_strict",  # not read on one switch (EOS does not show it): that one is left out, and named
        lambda s: _fields(_cnp_dwrr(_strict(s), "leaf1"), {"leaf1": NOT_READ}),
        Status.SUCCESS,
        "not judged on leaf1: qos.pfc_priority_to_queue not observed",
        [],
    ),
    (
        "lossless.cnp_strict",  # not read anywhere: skipped, never success
        lambda s: _fields(_strict(s), ALL_SWITCHES),
        Status.SKIPPED,
        "not judged on leaf1, leaf2, spine1: qos.pfc_priority_to_queue not observed",
        [],
    ),
    (
        "lossless.link_mtu",  # a hop-to-hop check judges a link only where both ends are judged
        lambda s: _fields(
            _iface_mtu(s, "leaf1", "Ethernet32", 1500), {"spine1": {"interfaces.*.mtu"}, "gpu1": set(), "gpu2": set()}
        ),
        Status.SUCCESS,
        "not judged on spine1: interfaces.*.mtu not observed",
        [],
    ),
    (
        "lossless.link_mtu",
        lambda s: _iface_mtu(s, "leaf1", "Ethernet32", 1500),
        Status.FAILURE,
        None,
        [
            "spine1: Ethernet0 - MTU differs from leaf1:Ethernet32 - Expected: 1500 Actual: 9100",
            "leaf1: Ethernet32 - MTU differs from spine1:Ethernet0 - Expected: 9100 Actual: 1500",
        ],
    ),
    (
        "counters.lossless_drops",  # N/A counters are not observed, never 0
        _na_counters,
        Status.SKIPPED,
        "not judged on leaf1, leaf2, spine1: no lossless queue drop counters observed (absent or N/A)",
        [],
    ),
    (
        "counters.lossless_drops",
        lambda s: _na_counters(s, keep="leaf2"),
        Status.SUCCESS,
        "not judged on leaf1, spine1: no lossless queue drop counters observed (absent or N/A)",
        [],
    ),
    (
        "lossless.ecn_on_lossless_queues",  # buffers not read: ECN still judged, its max against the trigger not
        lambda s: _fields(_ecn_min_max(s, "leaf1"), {"leaf1": {"buffers"}}),
        Status.FAILURE,
        "not judged on leaf1: ECN max against the PFC trigger point (buffers not observed)",
        ["leaf1: queue 3 - ECN min >= max - Expected: min < max Actual: 2000000/2000000"],
    ),
    (
        "lossless.pfc_watchdog",  # the queue map not read (EOS): ports, action and timers judged, queues not
        lambda s: _fields(s, {"leaf1": NOT_READ}),
        Status.SUCCESS,
        "not judged on leaf1: lossless queues watched (qos.pfc_priority_to_queue not observed)",
        [],
    ),
    (
        "counters.pfc_storms",  # a watchdog switch whose watchdog counters were not read: named
        lambda s: s.model_copy(
            update={
                "counters": {
                    **s.counters,
                    "leaf1": {p: c.model_copy(update={"watchdog": {}}) for p, c in s.counters["leaf1"].items()},
                }
            }
        ),
        Status.SUCCESS,
        "not judged on leaf1: no PFC watchdog counters observed",
        [],
    ),
    (
        "bgp.sessions",  # a router whose sessions were not read: named, not "no session"
        lambda s: s.model_copy(update={"bgp_sessions": {k: v for k, v in s.bgp_sessions.items() if k != "leaf2"}}),
        Status.SUCCESS,
        "not judged on leaf2: no BGP sessions observed",
        [],
    ),
    (
        "cabling.lldp",  # one switch's LLDP not collected: named
        lambda s: s.model_copy(update={"lldp": {k: v for k, v in s.lldp.items() if k != "leaf2"}}),
        Status.SUCCESS,
        "not judged on leaf2: no LLDP neighbours observed",
        [],
    ),
]


@pytest.mark.parametrize(("check_id", "seed", "status", "message", "findings"), CASES)
def test_judged_only_on_what_was_seen(
    desired: FabricState, check_id: str, seed: Any, status: Status, message: str | None, findings: list[str]
) -> None:
    (result,) = run_checks(desired, [check_id], observed=seed(mirror_snapshot(desired)))
    assert (result.status, result.message, [str(f) for f in result.findings]) == (status, message, findings)


def test_offline_reads_change_nothing(desired: FabricState) -> None:
    """Without a snapshot the intent is judged whole (it is all 'observed')."""
    wrong = _cnp_dwrr(mirror_snapshot(desired), "leaf1").observed.model_copy(update={"source": "desired"})
    (result,) = run_checks(wrong, ["lossless.cnp_strict"])
    assert result.status is Status.FAILURE


def test_every_check_that_judges_device_fields_declares_them() -> None:
    judges_devices = {
        "lossless.pfc_symmetry",
        "lossless.link_mtu",
        "lossless.host_mtu",
        "lossless.ecn_on_lossless_queues",
        "lossless.pfc_watchdog",
        "lossless.cnp_strict",
        "lossless.qos_mapping",
        "lossless.class_limit",
        "lossless.nic_trust_pfc",
        "lossless.roce_tos",
        "lossless.nic_dcqcn",
        "lossless.headroom",
        "gpudirect.peermem",
        "gpudirect.acs",
    }
    assert [c for c in sorted(judges_devices) if not CHECKS.get(c).reads] == []


def test_reads_must_be_device_field_paths() -> None:
    class Bad(Check):
        id = "t.bad"
        title = "bad"
        reads = ("qos_maps.ecn",)

        def check(self, ctx: Any) -> list[Any]:
            return []

    with pytest.raises(ValueError, match="not Device field paths"):
        Registry().register(Bad)


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("qos.ecn", None),
        ("interfaces.*.mtu", None),
        ("host.nics.*.trust", None),
        ("buffers.profiles.*.dynamic_th", None),
        ("qos.ecm", "'ecm' is not a field of Qos"),
        ("interfaces.mtu", "'mtu': a map's keys are written *"),
        ("interfaces.*.mtu.x", "'x': nothing below a int"),
    ],
)
def test_path_error(path: str, error: str | None) -> None:
    assert path_error(path) == error


def test_every_declared_read_is_a_device_field_path() -> None:
    assert [(c, r) for c in CHECKS.ids() for r in CHECKS.get(c).reads if path_error(r)] == []


@pytest.mark.parametrize(
    ("announced", "intended", "same"),
    [
        ("spine1", "spine1", True),
        ("SPINE1", "spine1", True),  # hostnames are case-insensitive
        ("DC1-SPINE1.example.net", "dc1-spine1", True),  # an FQDN: its first label
        ("dc1-spine1.example.net", "DC1-SPINE1", True),
        ("dc1-spine10.example.net", "dc1-spine1", False),
        ("spine1.example.net", "spine1.other.net", False),  # the intent names a domain: compared whole
        ("leaf1", "spine1", False),
    ],
)
def test_lldp_system_names(announced: str, intended: str, same: bool) -> None:
    assert same_host(announced, intended) is same


@pytest.mark.parametrize(
    ("announced", "status"),
    [("SPINE1.example.net", Status.SUCCESS), ("Spine1", Status.SUCCESS), ("spine9.example.net", Status.FAILURE)],
)
def test_lldp_cabling_matches_an_fqdn(desired: FabricState, announced: str, status: Status) -> None:
    snap = mirror_snapshot(desired)
    heard = [
        LldpNeighbor(
            port=n.port, neighbor=announced if n.neighbor == "spine1" else n.neighbor, neighbor_port=n.neighbor_port
        )
        for n in snap.lldp["leaf1"]
    ]
    (result,) = run_checks(
        desired, ["cabling.lldp"], observed=snap.model_copy(update={"lldp": {**snap.lldp, "leaf1": heard}})
    )
    assert result.status is status
