"""Tenant checks, table-driven: each passes on a sound tenant plan, fails naming device and port (or
partition) on one seeded mistake, and is skipped, saying why, where there is no tenant to judge."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.evpn import sonic_only
from tests.support.paths import ROOT
from xoff.contracts.observed import Snapshot
from xoff.desired.build import build_fabric_state
from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import Device, FabricState
from xoff.intent import load_intent
from xoff.platforms.infiniband.observe import observation_from_dump
from xoff.validate.checks.tenants import PkeyLeak
from xoff.validate.mirror import mirror_snapshot
from xoff.validate.model import Status
from xoff.validate.registry import run_checks

TWO_ROCE = "- {name: blue, hosts: ['gpu{1..2}']}\n  - {name: red, hosts: ['gpu{3..4}']}"
SHARING = "- {name: blue, hosts: ['gpu{1..2}'], share_lossless: true}\n  - {name: red, hosts: ['gpu{3..4}'], share_lossless: true}"
OWN_CLASS = "- {name: blue, hosts: ['gpu{1..2}']}\n  - {name: red, hosts: ['gpu{3..4}'], lossless_class: roce2}"
TWO_IB = "- {name: blue, hosts: ['gpu{01..02}'], pkey: 0x0b01}\n  - {name: red, hosts: [gpu03], pkey: 0x0b02}"
# a second lossless class on priority 2 (its own PG) for a tenant of its own
ROCE2 = "      roce2:\n        dscp: [24]\n        priority: 2\n        lossless: true\n        scheduler: {type: dwrr, weight: 10}\n"

Edit = Callable[[FabricState], FabricState]


def fabric(tmp_path: Path, inventory: str, items: str | None) -> FabricState:
    target = tmp_path / inventory
    shutil.copytree(ROOT / "inventory" / inventory, target)
    if items is not None:
        (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    if inventory == "lab-mini":
        qos = target / "qos.yaml"
        qos.write_text(
            qos.read_text(encoding="utf-8").replace("      cnp:\n", ROCE2 + "      cnp:\n", 1), encoding="utf-8"
        )
    return build_fabric_state(load_intent(target))


def device(state: FabricState, name: str, **changes: object) -> FabricState:
    dev = state.devices[name].model_copy(update=changes)
    return state.model_copy(update={"devices": {**state.devices, name: dev}})


def same(state: FabricState) -> FabricState:
    return state


def leaf1(state: FabricState) -> Device:
    return state.devices["leaf1"]


def vrf_claims_red_link(state: FabricState) -> FabricState:
    blue, red = leaf1(state).vrfs
    return device(state, "leaf1", vrfs=[blue.model_copy(update={"networks": [*blue.networks, red.networks[0]]}), red])


def underlay_originates_blue(state: FabricState) -> FabricState:
    bgp = leaf1(state).bgp
    assert bgp is not None
    blue = leaf1(state).vrfs[0]
    return device(state, "leaf1", bgp=bgp.model_copy(update={"networks": [*bgp.networks, blue.networks[0]]}))


def leaf_vrf(state: FabricState, leaf: str, name: str, **changes: object) -> FabricState:
    vrfs = [v.model_copy(update=changes) if v.name == name else v for v in state.devices[leaf].vrfs]
    return device(state, leaf, vrfs=vrfs)


def red_takes_blue_vni(state: FabricState) -> FabricState:
    return leaf_vrf(state, "leaf2", "Vrf-red", vni=50001)


def leaf2_blue_other_vni(state: FabricState) -> FabricState:
    return leaf_vrf(state, "leaf2", "Vrf-blue", vni=50009)


def leaf2_blue_other_rt(state: FabricState) -> FabricState:
    return leaf_vrf(state, "leaf2", "Vrf-blue", route_target="50009:50009")


def no_vni_observed(state: FabricState) -> FabricState:
    for name, dev in state.devices.items():
        state = device(state, name, vrfs=[v.model_copy(update={"vni": None}) for v in dev.vrfs])
    return state


def sonic_spines(tmp_path: Path, items: str) -> FabricState:
    """lab-mini with both spines SONiC, which renders EVPN: its tenants get L3 VNIs."""
    return build_fabric_state(load_intent(sonic_only(tmp_path, items)))


def without_other_partitions(state: FabricState) -> FabricState:
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None
    kept = [p for p in sm.partitions if p.tenant is not None]
    return device(state, "sm01", subnet_manager=sm.model_copy(update={"partitions": kept}))


def red_full_in_blue(state: FabricState) -> FabricState:
    state = without_other_partitions(state)
    sm = state.devices["sm01"].subnet_manager
    assert sm is not None
    blue, red = sm.partitions
    blue = blue.model_copy(update={"members": [*blue.members, "gpu03"], "nics": {**blue.nics, "gpu03": ["ib0"]}})
    return device(state, "sm01", subnet_manager=sm.model_copy(update={"partitions": [blue, red]}))


CASES: list[tuple[str, str, str, str | None, Edit, Status, list[str]]] = [
    # id, check, inventory, tenants, edit, status, the first findings (or the skip reason)
    ("pg-own-class", "tenant.lossless_isolation", "lab-mini", OWN_CLASS, same, Status.SUCCESS, []),
    ("pg-allowed", "tenant.lossless_isolation", "lab-mini", SHARING, same, Status.SUCCESS, []),
    (
        "pg-shared",
        "tenant.lossless_isolation",
        "lab-mini",
        TWO_ROCE,
        same,
        Status.FAILURE,
        [
            "spine1: Ethernet0 - lossless PG 3 shared by tenants blue, red - Expected: one tenant per lossless PG,"
            " or share_lossless on each Actual: blue, red not allowed to share"
        ],
    ),
    (
        "pg-none",
        "tenant.lossless_isolation",
        "lab-mini",
        None,
        same,
        Status.SKIPPED,
        ["no tenant VRF in this fabric (no RoCE tenants in the intent, or none observed)"],
    ),
    ("route-clean", "tenant.route_isolation", "lab-mini", TWO_ROCE, same, Status.SUCCESS, []),
    (
        "route-vrf-leak",
        "tenant.route_isolation",
        "lab-mini",
        TWO_ROCE,
        vrf_claims_red_link,
        Status.FAILURE,
        ["leaf1: VRF Vrf-blue - originates 198.18.0.16/31 - Expected: only its own ports' links Actual: Vrf-red"],
    ),
    (
        "route-underlay-leak",
        "tenant.route_isolation",
        "lab-mini",
        TWO_ROCE,
        underlay_originates_blue,
        Status.FAILURE,
        [
            "leaf1: BGP (default VRF) - originates 198.18.0.8/31 of Vrf-blue - Expected: in Vrf-blue only"
            " Actual: default"
        ],
    ),
    (
        "route-none",
        "tenant.route_isolation",
        "lab-mini",
        None,
        same,
        Status.SKIPPED,
        ["no tenant VRF in this fabric (no RoCE tenants in the intent, or none observed)"],
    ),
    ("vni-clean", "tenant.vni_unique", "evpn", TWO_ROCE, same, Status.SUCCESS, []),
    (
        "vni-shared",
        "tenant.vni_unique",
        "evpn",
        TWO_ROCE,
        red_takes_blue_vni,
        Status.FAILURE,
        [
            "leaf2: VRF Vrf-red - L3 VNI 50001 also used by tenant blue (leaf1 Vrf-blue) - Expected: one tenant per"
            " VNI Actual: blue, red"
        ],
    ),
    (
        "vni-none",  # a snapshot where no VRF's VNI was observed: nothing to judge
        "tenant.vni_unique",
        "lab-mini",
        TWO_ROCE,
        no_vni_observed,
        Status.SKIPPED,
        ["no tenant VRF with an L3 VNI in this fabric (no EVPN tenants in the intent, or no VNI observed)"],
    ),
    ("evpn-clean", "tenant.evpn_consistent", "evpn", TWO_ROCE, same, Status.SUCCESS, []),
    (
        "evpn-vni",
        "tenant.evpn_consistent",
        "evpn",
        TWO_ROCE,
        leaf2_blue_other_vni,
        Status.FAILURE,
        ["leaf2: VRF Vrf-blue - L3 VNI of tenant blue - Expected: 50001 (as leaf1) Actual: 50009"],
    ),
    (
        "evpn-rt",
        "tenant.evpn_consistent",
        "evpn",
        TWO_ROCE,
        leaf2_blue_other_rt,
        Status.FAILURE,
        ["leaf2: VRF Vrf-blue - route target of tenant blue - Expected: 50001:50001 (as leaf1) Actual: 50009:50009"],
    ),
    (
        "evpn-none",
        "tenant.evpn_consistent",
        "lab-mini",
        None,
        same,
        Status.SKIPPED,
        ["no tenant VRF with an L3 VNI in this fabric (no EVPN tenants in the intent, or no VNI observed)"],
    ),
    ("pkey-clean", "tenant.pkey_leak", "ib-pod", TWO_IB, without_other_partitions, Status.SUCCESS, []),
    (
        "pkey-shared-partition",
        "tenant.pkey_leak",
        "ib-pod",
        TWO_IB,
        same,
        Status.FAILURE,
        ["sm01: PKey 0x0001 - full members of several tenants - Expected: one tenant Actual: blue, red"],
    ),
    (
        "pkey-two-tenants",
        "tenant.pkey_leak",
        "ib-pod",
        TWO_IB,
        red_full_in_blue,
        Status.FAILURE,
        ["gpu03: ib0 - full member of two tenants' partitions - Expected: one Actual: blue, red"],
    ),
    (
        "pkey-none",
        "tenant.pkey_leak",
        "ib-pod",
        None,
        same,
        Status.SKIPPED,
        ["no tenant partition in this fabric (no InfiniBand tenants in the intent)"],
    ),
    (
        "pkey-roce",
        "tenant.pkey_leak",
        "lab-mini",
        TWO_ROCE,
        same,
        Status.SKIPPED,
        ["no InfiniBand network with a subnet manager in this fabric"],
    ),
]


@pytest.mark.parametrize(
    ("check", "inventory", "items", "edit", "status", "first"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_tenant_check(
    tmp_path: Path,
    check: str,
    inventory: str,
    items: str | None,
    edit: Edit,
    status: Status,
    first: list[str],
) -> None:
    built = sonic_spines(tmp_path, items or "") if inventory == "evpn" else fabric(tmp_path, inventory, items)
    (result,) = run_checks(edit(built), [check])
    assert result.status is status, result
    if status is Status.SKIPPED:
        assert [result.message] == first
    else:
        assert [str(f) for f in result.findings][: len(first)] == first


def observed_with(state: FabricState, port: str, vrf: str | None) -> Snapshot:
    """The fabric running its intent, but leaf1's ``port`` in ``vrf``."""
    snap = mirror_snapshot(state)
    leaf = snap.observed.devices["leaf1"]
    iface = leaf.interfaces[port].model_copy(update={"vrf": vrf})
    moved = leaf.model_copy(update={"interfaces": {**leaf.interfaces, port: iface}})
    observed = snap.observed.model_copy(update={"devices": {**snap.observed.devices, "leaf1": moved}})
    return snap.model_copy(update={"observed": observed})


@pytest.mark.parametrize(
    ("items", "port", "vrf", "status", "expected"),
    [
        (TWO_ROCE, "Ethernet0", "Vrf-blue", Status.SUCCESS, []),
        (
            TWO_ROCE,
            "Ethernet0",
            None,
            Status.FAILURE,
            ["leaf1: Ethernet0 - tenant port not in its VRF - Expected: Vrf-blue Actual: default"],
        ),
        (
            TWO_ROCE,
            "Ethernet0",
            "Vrf-red",
            Status.FAILURE,
            ["leaf1: Ethernet0 - tenant port not in its VRF - Expected: Vrf-blue Actual: Vrf-red"],
        ),
        (
            TWO_ROCE,
            "Ethernet32",
            "Vrf-red",
            Status.FAILURE,
            ["leaf1: Ethernet32 - port in a tenant's VRF - Expected: default Actual: Vrf-red"],
        ),
        (None, "Ethernet0", None, Status.SUCCESS, []),
        (
            None,
            "Ethernet0",
            "Vrf-x",
            Status.FAILURE,
            ["leaf1: Ethernet0 - port in a tenant's VRF - Expected: default Actual: Vrf-x"],
        ),
    ],
    ids=["in-its-vrf", "left-in-default", "in-another-tenants", "uplink-in-a-tenants", "no-tenants", "stray-vrf"],
)
def test_port_vrf_on_running_switches(
    tmp_path: Path, items: str | None, port: str, vrf: str | None, status: Status, expected: list[str]
) -> None:
    state = fabric(tmp_path, "lab-mini", items)
    (result,) = run_checks(state, ["tenant.port_vrf"], observed=observed_with(state, port, vrf))
    assert result.status is status, result
    assert [str(f) for f in result.findings] == expected


def test_port_vrf_needs_the_running_switches(tmp_path: Path) -> None:
    (result,) = run_checks(fabric(tmp_path, "lab-mini", TWO_ROCE), ["tenant.port_vrf"])
    assert result.status is Status.SKIPPED
    assert result.message is not None and "observed" in result.message


def test_pkey_leak_judges_the_pkey_tables_read_back(tmp_path: Path) -> None:
    """On an InfiniBand fabric read back by infiniband-diags (the fat-tree capture), a partition every HCA holds
    as a full member joins the tenants; an HCA port holding two tenants' PKeys as full is a leak of its own."""
    target = tmp_path / "ib-fattree"
    shutil.copytree(ROOT / "tests" / "fixtures" / "intents" / "ib-fattree", target)
    items = "- {name: blue, hosts: ['gpu{1..2}'], pkey: 0x0b01}\n  - {name: red, hosts: ['gpu{3..4}'], pkey: 0x0b02}"
    (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    desired = build_fabric_state(load_intent(target))
    observed = observation_from_dump(ROOT / "tests" / "fixtures" / "deadlock" / "ib" / "fattree_ftree")
    check = PkeyLeak()
    assert [str(f) for f in check.judge(desired, observed)] == [
        "sm01: PKey 0x0001 - full members of several tenants - Expected: one tenant Actual: blue, red"
    ]
    guid = hca_port_guids(desired)[("gpu1", "ib0")]
    ref = observed.port_by_guid()[guid]
    tables = {g: dict(ports) for g, ports in observed.pkeys.items()}
    tables[ref.guid][ref.port] = [0xFFFF, 0x8B01, 0x8B02]  # gpu1 a full member of blue and of red, nothing else
    seeded = observed.model_copy(update={"pkeys": tables})
    assert [str(f) for f in check.judge(desired, seeded)][:1] == [
        "gpu1: ib0 - full member of two tenants' partitions - Expected: one Actual: blue, red"
    ]
