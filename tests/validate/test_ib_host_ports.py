"""``infiniband.host_ports``, table-driven on the ib-ring intent: every host's ibstat/sminfo as a healthy
fabric shows them passes; each seeded fault fails naming the host and its port; with no host's ibstat in
the snapshot the check is skipped, saying why."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.paths import ROOT
from xoff.contracts.infiniband import IbObservation
from xoff.contracts.observed import HostObserved, IbPortState, Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.ib_guids import hca_port_guids
from xoff.intent import load_intent
from xoff.validate import Status, run_checks
from xoff.validate.checks.ib_hosts import want_rate
from xoff.validate.mirror import mirror_snapshot

CHECK = "infiniband.host_ports"
SM_LID = 1


@pytest.fixture(scope="module")
def desired() -> FabricState:
    return build_fabric_state(load_intent(ROOT / "tests" / "fixtures" / "intents" / "ib-ring"))


def healthy(desired: FabricState) -> dict[str, HostObserved]:
    """Every host's ibstat: its HCA port Active / LinkUp at 400 Gb/s, following the master SM at LID 1."""
    hosts: dict[str, HostObserved] = {}
    for lid, ((host, _netdev), guid) in enumerate(sorted(hca_port_guids(desired).items()), start=2):
        port = IbPortState(
            ca="mlx5_0",
            port=1,
            state="Active",
            physical_state="LinkUp",
            rate=400,
            base_lid=SM_LID if host == "sm01" else lid,  # the SM host's HCA holds the master SM's LID
            sm_lid=SM_LID,
            port_guid=guid,
            link_layer="InfiniBand",
        )
        hosts[host] = HostObserved(ib_ports=[port], sm_lid=SM_LID, sm_state="SMINFO_MASTER")
    return hosts


def _port(seen: HostObserved, **changes: object) -> HostObserved:
    assert seen.ib_ports is not None
    return seen.model_copy(update={"ib_ports": [seen.ib_ports[0].model_copy(update=changes)]})


Seed = Callable[[dict[str, HostObserved]], None]


def _set(host: str, **changes: object) -> Seed:
    def seed(hosts: dict[str, HostObserved]) -> None:
        hosts[host] = _port(hosts[host], **changes)

    return seed


def _standby(hosts: dict[str, HostObserved]) -> None:
    hosts["gpu2"] = hosts["gpu2"].model_copy(update={"sm_state": "SMINFO_STANDBY"})


def _second_master(hosts: dict[str, HostObserved]) -> None:
    hosts["gpu4"] = _port(hosts["gpu4"], sm_lid=9).model_copy(update={"sm_lid": 9})


def _stale_sm_lid(hosts: dict[str, HostObserved]) -> None:
    """gpu3's port points at LID 11, where no SM answers: its sminfo failed (not observed)."""
    hosts["gpu3"] = _port(hosts["gpu3"], sm_lid=11).model_copy(update={"sm_lid": None, "sm_state": None})


def _rogue_master(hosts: dict[str, HostObserved]) -> None:
    """Every host follows an SM at LID 12 that took mastership; the intent runs it on sm01 (LID 1)."""
    for name, seen in list(hosts.items()):
        hosts[name] = _port(seen, sm_lid=12).model_copy(update={"sm_lid": 12})


def _other_ca(hosts: dict[str, HostObserved]) -> None:
    hosts["gpu5"] = _port(hosts["gpu5"], port_guid="0x0000000000abcdef")


def _snapshot(desired: FabricState, hosts: dict[str, HostObserved]) -> Snapshot:
    return mirror_snapshot(desired).model_copy(update={"hosts": hosts})


CASES: list[tuple[str, Seed | None, list[str]]] = [
    ("clean", None, []),
    (
        "cable pulled",
        _set("gpu3", state="Down", physical_state="Polling", sm_lid=0, base_lid=65535),
        ["gpu3: ib0 - mlx5_0 port 1 not up - Expected: Active / LinkUp Actual: Down / Polling"],
    ),
    (
        "no subnet manager",
        _set("gpu1", state="Initializing"),
        ["gpu1: ib0 - mlx5_0 port 1 not up - Expected: Active / LinkUp Actual: Initializing / LinkUp"],
    ),
    (
        "trained slower",
        _set("gpu2", rate=200),
        ["gpu2: ib0 - mlx5_0 port 1 below the intended rate - Expected: 400 Gb/s Actual: 200 Gb/s"],
    ),
    (
        "port follows another SM",
        _set("sm01", sm_lid=7),
        ["sm01: ib0 - mlx5_0 port 1 SM LID is not the fabric's master SM - Expected: SM lid 1 Actual: SM lid 7"],
    ),
    (
        "SM is standby",
        _standby,
        ["gpu2: ib0 - the SM at LID 1 is not the master - Expected: SMINFO_MASTER Actual: SMINFO_STANDBY"],
    ),
    (
        "two masters",
        _second_master,
        [
            "gpu4: ib0 - mlx5_0 port 1 SM LID is not the fabric's master SM - Expected: SM lid 1 Actual: SM lid 9",
            "gpu4: sminfo - host follows another master SM - Expected: SM lid 1 Actual: SM lid 9",
        ],
    ),
    (
        "stale SM LID, sminfo unanswered",
        _stale_sm_lid,
        ["gpu3: ib0 - mlx5_0 port 1 SM LID is not the fabric's master SM - Expected: SM lid 1 Actual: SM lid 11"],
    ),
    (
        "another SM took mastership",
        _rogue_master,
        [
            f"{h}: {line} - Expected: SM lid 1 Actual: SM lid 12"
            for h in ("gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01")
            for line in ("ib0 - mlx5_0 port 1 SM LID is not the fabric's master SM",)
        ]
        + [
            f"{h}: sminfo - host follows another master SM - Expected: SM lid 1 Actual: SM lid 12"
            for h in ("gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "sm01")
        ],
    ),
    (
        "HCA not there",
        _other_ca,
        ["gpu5: ib0 - HCA port not in ibstat - Expected: port GUID 0x0002c90400000005 Actual: absent"],
    ),
]


@pytest.mark.parametrize(("name", "seed", "want"), CASES, ids=[c[0] for c in CASES])
def test_host_ports(desired: FabricState, name: str, seed: Seed | None, want: list[str]) -> None:
    hosts = healthy(desired)
    if seed is not None:
        seed(hosts)
    (result,) = run_checks(desired, [CHECK], observed=_snapshot(desired, hosts))
    assert [str(f) for f in result.findings] == want, name
    assert result.status is (Status.FAILURE if want else Status.SUCCESS)
    if want:
        assert all(f.device and f.object for f in result.findings)


def test_skipped_when_no_host_ibstat_was_read(desired: FabricState) -> None:
    unread = {name: HostObserved() for name in healthy(desired)}  # ibstat did not run or did not parse
    (result,) = run_checks(desired, [CHECK], observed=_snapshot(desired, unread))
    assert result.status is Status.SKIPPED
    assert "ibstat" in (result.message or "")


def test_skipped_without_observed_state(desired: FabricState) -> None:
    (result,) = run_checks(desired, [CHECK])
    assert result.status is Status.SKIPPED


def test_a_host_not_read_is_named_not_judged(desired: FabricState) -> None:
    hosts = healthy(desired)
    hosts["gpu3"] = HostObserved()
    (result,) = run_checks(desired, [CHECK], observed=_snapshot(desired, hosts))
    assert result.status is Status.SUCCESS
    assert "ibstat not read on gpu3" in (result.message or "")


@pytest.mark.parametrize(("speed", "rate"), [(400_000, 400), (200_000, 200), (56_000, 56)])
def test_want_rate(speed: int, rate: int) -> None:
    assert want_rate(speed) == rate


def test_rate_not_judged_on_a_simulated_fabric(desired: FabricState) -> None:
    hosts = healthy(desired)
    _set("gpu2", rate=104)(hosts)
    snap = _snapshot(desired, hosts).model_copy(
        update={"infiniband": IbObservation(source="lab", nodes={}, speed_cap="HDR")}
    )
    (result,) = run_checks(desired, [CHECK], observed=snap)
    assert result.status is Status.SUCCESS


def test_skipped_when_only_hosts_without_a_cabled_hca_were_read(desired: FabricState) -> None:
    cabled = {host for host, _ in hca_port_guids(desired)}
    read = healthy(desired)["gpu1"]
    hosts = {name: HostObserved() for name in cabled} | {
        "stray-host": read
    }  # ibstat of a host the intent cables none on
    (result,) = run_checks(desired, [CHECK], observed=_snapshot(desired, hosts))
    assert (result.status, result.findings) == (Status.SKIPPED, [])
    assert "no host with a cabled HCA port had its ibstat read" in (result.message or "")


def test_an_sm_lid_ibstat_did_not_print_is_not_judged(desired: FabricState) -> None:
    hosts = healthy(desired)
    _set("gpu2", sm_lid=None)(hosts)
    (result,) = run_checks(desired, [CHECK], observed=_snapshot(desired, hosts))
    assert (result.status, result.findings) == (Status.SUCCESS, [])
