"""Building an observed Device: the values a collector read, over a copy of desired for the rest.

FabricState requires fields no running device shows (the intent's peers, link roles, QoS class
names, buffer profile sources, ...). The observed Device takes those from desired so it validates,
and the collector lists the paths it did read (``DeviceObservation.fields``); checks compare only
those. Interfaces are the device's own set: one it has that intent lacks appears (with only the
observed values), one intent has that it lacks is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xoff.desired.models import Device, Interface

# Interface fields no device reports: copied from the intent's interface of the same name.
INTENT_ONLY_INTERFACE_FIELDS = ("peer", "link_role", "network")
# Interface fields a switch's running configuration shows, so its collector reads them (the rest of Interface:
# its name, and the intent-only ones above). Listed, not derived: a new field is read only once a collector does.
SWITCH_INTERFACE_FIELDS = (
    "kind",
    "speed_mbps",
    "mtu",
    "admin_up",
    "addresses",
    "cable_m",
    "pfc_priorities",
    "pfc_watchdog",
    "vrf",
)


def observed_interfaces(
    desired: Device, seen: Mapping[str, Mapping[str, Any]], keep_kinds: Iterable[str] = ("mgmt",)
) -> dict[str, dict[str, Any]]:
    """Interface name -> fields: ``seen``'s values over desired's, plus desired's interfaces of
    ``keep_kinds`` the collector does not read (the management port: it answered, so it is there)."""
    out: dict[str, dict[str, Any]] = {}
    for name, values in seen.items():
        base = desired.interfaces.get(name)
        data: dict[str, Any] = base.model_dump() if base is not None else {"name": name}
        if base is None:
            for field in INTENT_ONLY_INTERFACE_FIELDS:
                data.pop(field, None)
        data.update(values)
        data["name"] = name
        out[name] = data
    kinds = set(keep_kinds)
    for name, interface in desired.interfaces.items():
        if name not in out and interface.kind in kinds:
            out[name] = interface.model_dump()
    return out


def observed_device(desired: Device, updates: Mapping[str, Any]) -> Device:
    """desired with ``updates`` (field -> value, or for model fields a dict merged over desired's)."""
    data = desired.model_dump()
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict) and key != "interfaces":
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return Device.model_validate(data)


def interface_paths(fields: Iterable[str]) -> list[str]:
    return [f"interfaces.*.{f}" for f in fields]


def dumped(value: Any) -> Any:
    """pydantic models inside plain structures -> dicts (for ``observed_device`` updates)."""
    if isinstance(value, Interface) or hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: dumped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [dumped(v) for v in value]
    return value


def ordered_like(items: list[Any], reference: Iterable[Any], key: Any = None) -> list[Any]:
    """``items`` in the order of ``reference`` (keys: ``key(item)`` or the item itself); items whose
    key it lacks come after, in their own order.

    A device lists sets (ports, pools, neighbours) in its own order (CONFIG_DB dumps sort keys); the
    order carries no meaning, so observed lists follow desired's and a value diff sees only real changes.
    """
    get = key or (lambda v: v)
    rank = {r: i for i, r in enumerate(reference)}
    return sorted(items, key=lambda v: (0, rank[get(v)]) if get(v) in rank else (1, 0))


def observed_static_routes(desired: Device, seen: Iterable[tuple[str, str, str | None]]) -> list[dict[str, str]]:
    """Static routes read from a device, ``(prefix, next hop, interface or None)`` one per next hop, as
    FabricState ``static_routes`` in desired's order (the rest after). A platform that does not show the
    egress interface (SONiC without ``ifname``, NVUE ``via`` an address) gets desired's interface for the
    same prefix and next hop, else ""."""
    known = {(r.prefix, r.next_hop): r.interface for r in desired.static_routes}
    routes = [
        {"prefix": p, "next_hop": h, "interface": i if i is not None else known.get((p, h), "")} for p, h, i in seen
    ]
    return ordered_like(
        routes, [(r.prefix, r.next_hop) for r in desired.static_routes], lambda r: (r["prefix"], r["next_hop"])
    )
