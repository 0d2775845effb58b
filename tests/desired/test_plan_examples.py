"""roce-pod and ib-pod: the larger examples plan to what their comments promise."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="module")
def ib_pod():  # type: ignore[no-untyped-def]
    intent = load_intent(INVENTORY / "ib-pod")
    return intent, build_fabric_state(intent)


@pytest.fixture(scope="module")
def roce_pod():  # type: ignore[no-untyped-def]
    intent = load_intent(INVENTORY / "roce-pod")
    return intent, build_fabric_state(intent)


def test_roce_pod_is_one_rail_optimised_scalable_unit(roce_pod) -> None:  # type: ignore[no-untyped-def]
    intent, state = roce_pod
    gpu_hosts = [h for h in intent.hosts.values() if h.profile.gpus == 8]
    assert len(gpu_hosts) == 32
    # rail r of every host lands on leaf r
    for host in gpu_hosts:
        for nic in host.nics.values():
            if nic.network == "compute":
                peer = state.devices[host.name].interfaces[nic.netdev].peer
                assert peer.device == f"leaf{nic.rail}"
    roles = Counter((lk.network, lk.role) for lk in intent.links)
    assert roles[("compute", "host_leaf")] == 256
    # storage switches took their platform from roles.storage-leaf / storage-spine, not the compute roles
    storage = {n: s for n, s in intent.switches.items() if s.network == "storage"}
    assert {(s.platform, s.asic, s.hwsku) for s in storage.values()} == {("cumulus", "spectrum3", None)}
    assert intent.provenance[("sspine1", "platform")][1] == "roles.storage-spine.platform"
    assert intent.provenance[("leaf0", "asic")][1] == "defaults.switch.asic"
    # every lossless port of every switch got a headroom profile
    for dev in state.devices.values():
        if dev.kind == "switch":
            lossless = {i.name for i in dev.interfaces.values() if i.pfc_priorities}
            assert lossless == set(dev.buffers.port_priority_groups), dev.name


def test_ib_pod_subnet_manager(ib_pod) -> None:  # type: ignore[no-untyped-def]
    _, state = ib_pod
    sm = state.devices["sm01"]
    assert sm.role == "subnet-manager"
    settings = sm.subnet_manager
    assert settings.routing_engine == ["ftree", "updn"] and settings.no_fallback
    spines = [d for d in state.devices.values() if d.kind == "ib_switch" and d.role == "spine"]
    assert settings.root_guids == [d.guid for d in spines] and len(spines) == 2
    assert len(settings.compute_node_guids) == 16 * 8  # GPU HCAs, not the SM's own port
    parts = {p.name: p for p in settings.partitions}
    gpus = [f"gpu{i:02d}" for i in range(1, 17)]
    assert sorted(parts["jobs"].members) == [*gpus, "sm01"]  # storage targets have no HCA: not members
    assert parts["tenant-a"].members == gpus[:8]
    assert settings.sl2vl[:2] == [0, 1] and settings.max_vls == 2
    env = state.devices["gpu01"].host.nccl_env
    assert env["NCCL_IB_SL"] == "0" and "NCCL_IB_TC" not in env
    assert env["NCCL_IB_HCA"] == "=" + ",".join(f"mlx5_{i}:1" for i in range(8))
    assert state.networks["compute"].kind == "infiniband"
    # IB switch ports carry no IP, no PFC: credit-based flow control
    leaf = state.devices["ibleaf1"]
    assert all(not i.addresses and not i.pfc_priorities for i in leaf.interfaces.values())
