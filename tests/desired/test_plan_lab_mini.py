"""The desired state of lab-mini, value by value, against the reference (reference/lossless.md)."""

from __future__ import annotations

from typing import Any

from xoff.desired import FabricState


def test_plan_round_trips_through_json(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    text = state.model_dump_json(indent=2)
    assert FabricState.model_validate_json(text) == state
    assert FabricState.model_validate_json(text).model_dump_json(indent=2) == text


def test_switch_qos_maps_follow_the_policy(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    qos = state.devices["leaf1"].qos
    assert qos.trust == "dscp"
    assert qos.dscp_to_tc[26] == 3  # the intent's map wins over SONiC's stock DSCP 26 -> TC1
    assert qos.dscp_to_tc[48] == 6
    assert qos.dscp_to_tc[0] == 0 and qos.dscp_to_tc[3] == 0  # unlisted DSCPs go to the default class
    assert len(qos.dscp_to_tc) == 64
    assert qos.lossless_priorities == [3]
    assert qos.tc_to_priority_group[3] == 3 and qos.tc_to_priority_group[6] == 0
    assert qos.pfc_priority_to_priority_group == {3: 3}
    assert qos.schedulers[6].type == "strict"
    assert qos.schedulers[3].weight == 50
    assert qos.ecn[3].min_threshold == 150000 and qos.ecn[3].max_threshold == 1500000
    assert set(qos.ecn) == {3}
    storage = state.devices["sleaf1"].qos
    assert storage.lossless_priorities == [4] and storage.ecn[4].max_threshold == 1500000


def test_pfc_and_watchdog_only_on_cabled_ports(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    leaf = state.devices["leaf1"]
    cabled = [i for i in leaf.interfaces.values() if i.peer is not None]
    spare = [i for i in leaf.interfaces.values() if i.kind == "ethernet" and i.peer is None]
    assert len(cabled) == 6 and len(spare) == 2
    assert all(i.pfc_priorities == [3] and i.pfc_watchdog and i.admin_up for i in cabled)
    assert all(not i.pfc_priorities and not i.admin_up for i in spare)
    wd = leaf.pfc_watchdog
    assert wd is not None
    assert (wd.poll_interval_ms, wd.detection_ms, wd.restoration_ms, wd.action) == (200, 200, 400, "drop")
    assert wd.ports == [i.name for i in cabled] and wd.queues == [3]


def test_headroom_uses_the_sn5600_lookup_rows(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    buffers = state.devices["leaf1"].buffers
    assert buffers.model == "static"
    host_side = buffers.profiles["pg_lossless_400000_5m_profile"]
    assert (host_side.xon, host_side.xoff, host_side.size) == (19456, 231424, 250880)
    spine_side = buffers.profiles["pg_lossless_400000_40m_profile"]
    assert (spine_side.xon, spine_side.xoff, spine_side.size) == (19456, 283648, 303104)
    assert "ACS-SN5600/pg_profile_lookup.ini" in spine_side.source
    assert buffers.port_priority_groups["Ethernet0"] == {"3": "pg_lossless_400000_5m_profile"}
    assert buffers.port_priority_groups["Ethernet32"] == {"3": "pg_lossless_400000_40m_profile"}
    assert "Ethernet48" not in buffers.port_priority_groups
    # Tomahawk-5 on spine2: its own vendor row, not the Mellanox formula
    th5 = state.devices["spine2"].buffers.profiles["pg_lossless_400000_40m_profile"]
    assert (th5.xoff, th5.size, th5.xon_offset) == (612140, 18796, 3556)


def test_bgp_follows_the_asn_plan(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    asns = {n: d.bgp.asn for n, d in state.devices.items() if d.bgp}
    assert asns == {"spine1": 65100, "spine2": 65100, "leaf1": 65101, "leaf2": 65102, "sleaf1": 65201}
    leaf1 = state.devices["leaf1"].bgp
    assert {(n.peer, n.remote_asn, n.address) for n in leaf1.neighbors} == {
        ("spine1", 65100, "198.18.0.0"),
        ("spine2", 65100, "198.18.0.2"),
    }
    assert leaf1.router_id == "198.18.255.3"
    assert "198.18.255.3/32" in leaf1.networks and "198.18.0.8/31" in leaf1.networks  # host /31 originated
    assert state.devices["sleaf1"].bgp.neighbors == []


def test_host_rdma_settings(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    host = state.devices["gpu1"].host
    eth0 = host.nics["eth0"]
    assert eth0.trust == "dscp"
    assert eth0.pfc == [0, 0, 0, 1, 0, 0, 0, 0]
    assert eth0.dscp_to_priority == {**dict.fromkeys(range(64), 0), 26: 3, 48: 6}  # all 64, as on the switches
    assert eth0.roce_tos == 106  # DSCP 26 << 2 | ECT(0)
    assert eth0.ecn_np_priorities == [3] and eth0.ecn_rp_priorities == [3]
    assert (eth0.cnp_dscp, eth0.cnp_priority) == (48, 6)
    assert eth0.mtu == 9000 and eth0.roce_active_mtu == 4096
    assert eth0.address == "198.18.0.9/31" and eth0.gateway == "198.18.0.8"
    storage = host.nics["eth2"]
    assert storage.pfc == [0, 0, 0, 0, 1, 0, 0, 0] and storage.roce_tos == 74
    assert host.nccl_env == {
        "NCCL_IB_ADDR_FAMILY": "AF_INET",
        "NCCL_IB_GID_INDEX": "-1",
        "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1",
        "NCCL_IB_ROCE_VERSION_NUM": "2",
        "NCCL_IB_TC": "106",
        "NCCL_NET_GDR_LEVEL": "PXB",
        "NCCL_SOCKET_IFNAME": "=eno1",
    }
    assert host.gpudirect.gpu_nic == {0: "mlx5_0", 1: "mlx5_1"}
    assert {(r.source, r.table) for r in host.rules} == {
        ("198.18.0.9/32", 100),
        ("198.18.0.11/32", 101),
        ("198.19.0.1/32", 102),
    }


def test_links_and_network_plans(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    assert len(state.links) == 16
    roles = sorted({(lk.role, lk.cable_m) for lk in state.links})
    assert roles == [("host_leaf", 5), ("host_leaf", 10), ("leaf_spine", 40)]
    compute = state.networks["compute"]
    assert (compute.roce_dscp, compute.roce_tos, compute.cnp_dscp, compute.lossless_priorities) == (26, 106, 48, [3])
    assert state.networks["management"].lossless_priorities == []
    # every cable's two ends point at each other
    for lk in state.links:
        a = state.devices[lk.a.device].interfaces[lk.a.port]
        b = state.devices[lk.b.device].interfaces[lk.b.port]
        assert (a.peer.device, a.peer.port) == (lk.b.device, lk.b.port)
        assert (b.peer.device, b.peer.port) == (lk.a.device, lk.a.port)
