"""The semantic diff of a device's desired state: leaf paths, list items keyed by name, groups."""

from __future__ import annotations

import pytest

from tests.support.paths import INVENTORY
from xoff.api import load
from xoff.change.semantic import device_changes, flatten, group_of


@pytest.mark.parametrize(
    ("path", "group"),
    [
        ("qos.dscp_to_tc.26", "qos maps"),
        ("qos.classes.roce.dscp", "qos maps"),
        ("qos.pfc_priority_to_queue.3", "pfc"),
        ("qos.lossless_priorities", "pfc"),
        ("interfaces.Ethernet0.pfc_priorities", "pfc"),
        ("qos.ecn.3.min_threshold", "ecn"),
        ("buffers.profiles.pg_lossless_400000_40m_profile.xoff", "buffers/headroom"),
        ("interfaces.Ethernet0.cable_m", "buffers/headroom"),
        ("pfc_watchdog.detection_ms", "watchdog"),
        ("interfaces.Ethernet0.pfc_watchdog", "watchdog"),
        ("interfaces.Ethernet0.mtu", "interfaces"),
        ("bgp.neighbors.198.18.0.1.remote_asn", "bgp"),
        ("static_routes.0.0.0.0/0.next_hop", "bgp"),
        ("host.nccl_env.NCCL_IB_TC", "host rdma/nccl"),
        ("mgmt_address", "other"),
    ],
)
def test_group_of(path: str, group: str) -> None:
    assert group_of(path) == group


def test_flatten_keys_list_items_by_name_and_keeps_scalar_lists_whole() -> None:
    data = {"classes": [{"name": "roce", "dscp": [26]}, {"name": "bulk", "dscp": []}], "pfc": [0, 0, 0, 1], "e": {}}
    assert flatten(data) == {
        "classes.roce.name": "roce",
        "classes.roce.dscp": [26],
        "classes.bulk.name": "bulk",
        "classes.bulk.dscp": [],
        "pfc": [0, 0, 0, 1],
        "e": {},
    }


def test_device_changes_none_for_the_same_device_and_each_leaf_for_a_changed_one() -> None:
    state = load(INVENTORY / "lab-mini").state
    leaf = state.devices["leaf1"]
    assert device_changes(leaf, leaf) == []
    assert leaf.pfc_watchdog is not None
    changed = leaf.model_copy(update={"pfc_watchdog": leaf.pfc_watchdog.model_copy(update={"detection_ms": 400})})
    [change] = device_changes(leaf, changed)
    assert (change.group, change.path, change.before, change.after) == (
        "watchdog",
        "pfc_watchdog.detection_ms",
        200,
        400,
    )
