"""The semantic diff of two desired states of one device: every leaf value that differs, grouped by what it
governs (QoS maps, PFC, ECN, buffers/headroom, watchdog, interfaces, BGP, host RDMA/NCCL)."""

from __future__ import annotations

from typing import Any

from xoff.change.model import Group, ValueChange
from xoff.desired.models import Device

# list items are keyed by the first of these fields they have (else by position)
_ITEM_KEYS = ("name", "address", "prefix", "destination", "netdev", "source")
# (path prefix, group): the first match wins, so the specific prefixes come first
_GROUPS: tuple[tuple[str, Group], ...] = (
    ("qos.ecn", "ecn"),
    ("qos.lossless_priorities", "pfc"),
    ("qos.pfc_", "pfc"),
    ("qos.", "qos maps"),
    ("buffers.", "buffers/headroom"),
    ("pfc_watchdog.", "watchdog"),
    ("bgp.", "bgp"),
    ("static_routes.", "bgp"),
    ("host.", "host rdma/nccl"),
    ("interfaces.", "interfaces"),
)


def group_of(path: str) -> Group:
    if path.startswith("interfaces."):
        leaf = path.rsplit(".", 1)[-1]
        if leaf == "pfc_priorities":
            return "pfc"
        if leaf == "pfc_watchdog":
            return "watchdog"
        if leaf == "cable_m":
            return "buffers/headroom"
    for prefix, group in _GROUPS:
        if path.startswith(prefix) or path == prefix.rstrip("."):
            return group
    return "other"


def _item_key(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in _ITEM_KEYS:
            if isinstance(item.get(key), str | int):
                return str(item[key])
    return str(index)


def flatten(value: Any, prefix: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Leaf path -> value. Mappings recurse by key, lists of mappings by their item key; other lists are one
    value (a PFC vector, a DSCP list)."""
    out = {} if out is None else out
    if isinstance(value, dict):
        if not value and prefix:
            out[prefix] = {}
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            flatten(item, f"{prefix}.{_item_key(item, i)}", out)
    else:
        out[prefix] = value
    return out


def device_changes(before: Device, after: Device) -> list[ValueChange]:
    """Every leaf that differs, in path order."""
    old = flatten(before.model_dump(mode="json"))
    new = flatten(after.model_dump(mode="json"))
    paths = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p) or (p in old) != (p in new))
    # an empty container on one side whose items appear on the other is said by those items
    parents = {p.rsplit(".", 1)[0] for p in paths if "." in p}
    paths = [p for p in paths if not (p in parents and old.get(p) in ([], {}, None) and new.get(p) in ([], {}, None))]
    return [ValueChange(group=group_of(p), path=p, before=old.get(p), after=new.get(p)) for p in paths]
