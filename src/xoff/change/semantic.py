"""The semantic diff of two desired states of one device: every leaf value that differs, grouped by what it
governs (QoS maps, PFC, ECN, buffers/headroom, watchdog, interfaces, BGP, host RDMA/NCCL)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

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


def _plain(value: Any) -> Any:
    """Models, mappings and sequences as JSON-like data (what ``model_dump(mode="json")`` gives)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _differing(before: Device, after: Device) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both sides' leaves, flattened only where the values differ: a field, or one entry of a mapping field
    (an interface, a NIC), equal on both sides is skipped without being dumped (a QoS change on 10,000 GPUs'
    devices dumps their QoS, not their 64 interfaces each)."""
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    for name in type(before).model_fields:
        a, b = getattr(before, name), getattr(after, name)
        if a == b:
            continue
        if isinstance(a, BaseModel) and isinstance(b, BaseModel) and type(a) is type(b):
            parts = [(f"{name}.{f}", getattr(a, f), getattr(b, f)) for f in type(a).model_fields]
        else:
            parts = [(name, a, b)]
        for path, x, y in parts:
            if x == y:
                continue
            if isinstance(x, dict) and isinstance(y, dict):
                for key in x.keys() | y.keys():
                    if x.get(key) != y.get(key):
                        for side, value in ((old, x), (new, y)):
                            if key in value:
                                flatten(_plain(value[key]), f"{path}.{key}", side)
            else:
                flatten(_plain(x), path, old)
                flatten(_plain(y), path, new)
    return old, new


def device_changes(before: Device, after: Device) -> list[ValueChange]:
    """Every leaf that differs, in path order."""
    old, new = _differing(before, after)
    paths = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p) or (p in old) != (p in new))
    # an empty container on one side whose items appear on the other is said by those items
    parents = {p.rsplit(".", 1)[0] for p in paths if "." in p}
    paths = [p for p in paths if not (p in parents and old.get(p) in ([], {}, None) and new.get(p) in ([], {}, None))]
    return [ValueChange(group=group_of(p), path=p, before=old.get(p), after=new.get(p)) for p in paths]
