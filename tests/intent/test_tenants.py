"""Tenants in the intent: a RoCE tenant resolves to its NICs and VRF, an InfiniBand one to its partition;
every wrong tenant is one located line (table-driven over the shipped lab-mini and ib-pod intents)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.errors import InputError
from xoff.intent import load_intent, tenant_vni
from xoff.intent.resolved import Intent
from xoff.platforms.record import Platform

BAD: list[tuple[str, str, str]] = [
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu9]}",
        "2:26: tenants[0].hosts[0]: no host named 'gpu9' (allowed: a host of this intent)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1]}\n  - {name: red, nics: ['gpu1:eth0']}",
        "3:24: tenants[1].nics[0]: gpu1:eth0 belongs to tenant blue already (allowed: one tenant per NIC)",
    ),
    (
        "lab-mini",
        "- {name: blue, nics: [gpu1]}",
        "2:25: tenants[0].nics[0]: 'gpu1' is not host:netdev (allowed: e.g. gpu01:eth0)",
    ),
    (
        "lab-mini",
        "- {name: blue, gpus: ['gpu1:5']}",
        "2:25: tenants[0].gpus[0]: gpu1 has no compute NIC with GPU index 5 (allowed: its compute NICs)",
    ),
    ("lab-mini", "- {name: blue}", "2:5: tenants[0]: tenant blue owns nothing (allowed: hosts, nics or gpus)"),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], pkey: 0x0101}",
        "2:39: tenants[0].pkey: pkey is for an InfiniBand compute network; this one is RoCE (allowed: vrf)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], lossless_class: bulk}",
        "2:49: tenants[0].lossless_class: 'bulk' is not a lossless class of rdma (allowed: roce)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], vrf: Vrf1}\n  - {name: red, hosts: [gpu2], vrf: Vrf1}",
        "3:37: tenants[1].vrf: vrf 'Vrf1' is already used by blue (allowed: one per tenant)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], vrf: VrfAVeryLongName}",
        "2:38: tenants[0].vrf: VRF name 'VrfAVeryLongName' is not a Linux VRF device name"
        " (allowed: ^[A-Za-z][A-Za-z0-9_-]{0,14}$, 15 characters)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], colour: blue}",
        "2:33: tenants[0].colour: unknown key (allowed: gpus, hosts, lossless_class, membership, name, nics, pkey,"
        " service_level, share_lossless, vni, vrf)",
    ),
    (
        "lab-mini",
        "- {name: blue, hosts: [gpu1], vni: 0}",
        "2:38: tenants[0].vni: 0 is out of range (allowed: 1..65535)",
    ),
    (
        "ib-pod",
        "- {name: blue, hosts: [gpu01]}",
        "2:5: tenants[0]: tenant blue needs a pkey on an InfiniBand compute network (allowed: 0x0001..0x7ffe)",
    ),
    (
        "ib-pod",
        "- {name: blue, hosts: [gpu01], pkey: 0x0a01}",
        "2:40: tenants[0].pkey: pkey 0x0a01 is already used by tenant-a (allowed: one per tenant)",
    ),
    (
        "ib-pod",
        "- {name: blue, hosts: [gpu01], pkey: 0x0b01, vrf: Vrfb}",
        "2:53: tenants[0].vrf: vrf is for a RoCE compute network; this one is InfiniBand (allowed: pkey)",
    ),
    (
        "ib-pod",
        "- {name: blue, hosts: [gpu01], pkey: 0x0b01}\n  - {name: red, hosts: [gpu02], pkey: 0x0b01}",
        "3:39: tenants[1].pkey: pkey 0x0b01 is already used by blue (allowed: one per tenant)",
    ),
]


def with_tenants(tmp_path: Path, inventory: str, items: str) -> Path:
    """A copy of a shipped intent with ``tenants.yaml`` holding ``items`` (the list's entries)."""
    target = tmp_path / inventory
    shutil.copytree(ROOT / "inventory" / inventory, target)
    (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    return target


def load(tmp_path: Path, inventory: str, items: str) -> Intent:
    return load_intent(with_tenants(tmp_path, inventory, items))


@pytest.mark.parametrize(("inventory", "items", "expected"), BAD, ids=[f"{i}-{n}" for n, (i, _, _) in enumerate(BAD)])
def test_a_wrong_tenant_is_one_located_line(tmp_path: Path, inventory: str, items: str, expected: str) -> None:
    with pytest.raises(InputError) as caught:
        load(tmp_path, inventory, items)
    lines = [str(p) for p in caught.value.problems]
    assert lines == [f"{tmp_path / inventory / 'tenants.yaml'}:{expected}"]


def test_a_vni_on_a_platform_without_evpn_is_one_located_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every switch platform renders EVPN now; the refusal stays for one that would not (EOS made one here)."""
    real = tenant_vni.get_platform

    def without_eos_evpn(name: str) -> Platform:
        platform = real(name)
        return dataclasses.replace(platform, evpn=False) if name == "eos" else platform

    monkeypatch.setattr(tenant_vni, "get_platform", without_eos_evpn)
    with pytest.raises(InputError) as caught:
        load(tmp_path, "lab-mini", "- {name: blue, hosts: [gpu1], vni: 50010}")
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path / 'lab-mini' / 'tenants.yaml'}:2:38: tenants[0].vni: eos cannot carry VNI 50010 on spine2: it"
        " renders no VXLAN-EVPN (allowed: switches of a platform that renders EVPN, or no vni)"
    ]


def test_without_a_vni_a_tenant_crossing_a_platform_without_evpn_stays_leaf_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tenant_vni.get_platform
    monkeypatch.setattr(
        tenant_vni, "get_platform", lambda n: dataclasses.replace(real(n), evpn=False) if n == "eos" else real(n)
    )
    (blue,) = load(tmp_path, "lab-mini", "- {name: blue, hosts: [gpu1]}").tenants
    assert blue.vni is None


def test_roce_tenants_own_nics_by_host_nic_and_gpu(tmp_path: Path) -> None:
    items = (
        "- {name: blue, hosts: ['gpu{1..2}']}\n  - {name: red, nics: ['gpu3:eth{0..1}'], gpus: ['gpu4:0'], vrf: VrfRed}"
    )
    blue, red = load(tmp_path, "lab-mini", items).tenants
    assert blue.nics == (("gpu1", "eth0"), ("gpu1", "eth1"), ("gpu2", "eth0"), ("gpu2", "eth1"))
    assert (blue.vrf, blue.lossless_class, blue.lossless_priority, blue.pkey) == ("Vrf-blue", "roce", 3, None)
    assert red.nics == (("gpu3", "eth0"), ("gpu3", "eth1"), ("gpu4", "eth0"))
    assert red.vrf == "VrfRed"


def test_infiniband_tenant_is_a_partition(tmp_path: Path) -> None:
    (t,) = load(tmp_path, "ib-pod", "- {name: blue, gpus: ['gpu01:{0..1}'], pkey: 0x0b01, membership: limited}").tenants
    assert (t.nics, t.pkey, t.membership, t.vrf) == ((("gpu01", "ib0"), ("gpu01", "ib1")), 0x0B01, "limited", None)
