"""Drift: desired vs observed values of one device, on the field paths its collector read.

Paths name Device fields with ``*`` for every key of a map (``interfaces.*.mtu``, ``qos.dscp_to_tc``);
a difference is reported at the leaf (``qos.dscp_to_tc.26``) with both values. Lists of models are
matched by their natural key (name, address, ...), so a reordered list is not drift. Byte quantities
an ASIC rounds to cells (buffer sizes, ECN thresholds) are equal within one cell of the device's ASIC,
as the ASIC catalog declares it (reference/lossless.md §6 rule 11).

Per-port settings (``Snapshot.port_settings``: a port whose watchdog, DSCP map, schedulers or ECN differ
from its switch's most common value) are compared with what the desired Device means for that port
(``port_expected``), at ``ports.<port>.<field>[.<queue>...]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from xoff.validate.coverage import covers

# Leaves the ASIC stores in cells: read back rounded to the device's cell size.
CELL_ROUNDED = (
    "buffers.profiles.*.xon",
    "buffers.profiles.*.xoff",
    "buffers.profiles.*.size",
    "buffers.profiles.*.xon_offset",
    "buffers.pools.*.size",
    "buffers.pools.*.xoff",
    "buffers.port_headroom_bytes.*",
    "qos.ecn.*.min_threshold",
    "qos.ecn.*.max_threshold",
    "ports.*.ecn.*.min_threshold",
    "ports.*.ecn.*.max_threshold",
)
# Leaves xoff writes only when the intent gives a value (the Linux host push skips a None, as the NIC checks do): a
# policy with no CNP class leaves the NIC firmware's CNP DSCP and priority (48 and 6) alone, so what runs is no drift;
# a host profile that does not ask for adaptive routing leaves the NIC's ROCE_ACCL adaptive-routing bit as it is.
UNSET_IS_UNMANAGED = ("host.nics.*.cnp_dscp", "host.nics.*.cnp_priority", "host.roce_adaptive_routing")
_LIST_KEYS = ("name", "address", "netdev", "destination", "source")
_MISSING = object()


@dataclass(frozen=True)
class Difference:
    path: str
    desired: Any
    observed: Any


def absent(value: Any) -> bool:
    """The value a ``Difference`` carries for a key present on one side only."""
    return value is _MISSING


def show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    if isinstance(value, str):
        return value
    return repr(value) if not isinstance(value, (dict, list)) else _compact(value)


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _keyed(items: list[Any]) -> dict[str, Any] | None:
    """A list of dicts with a natural key, as a dict by that key (None: compare the list whole)."""
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in _LIST_KEYS:
        if all(key in i for i in items):
            values = [str(i[key]) for i in items]
            if len(set(values)) == len(values):
                return dict(zip(values, items, strict=True))
    return None


def _children(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list):
        return _keyed(value)
    return None


def _leaves(path: str, desired: Any, observed: Any) -> Iterator[Difference]:
    if desired == observed:  # the common case, compared in C; descend only where something differs
        return
    d_kids, o_kids = _children(desired), _children(observed)
    if d_kids is not None and o_kids is not None:
        for key in sorted(set(d_kids) | set(o_kids), key=_natural):
            yield from _leaves(f"{path}.{key}", d_kids.get(key, _MISSING), o_kids.get(key, _MISSING))
    elif desired != observed:
        yield Difference(path, desired, observed)


def _natural(key: str) -> tuple[int, str]:
    return (int(key), "") if key.isdigit() else (1 << 30, key)


def _keys(path: str, desired: Any, observed: Any) -> Iterator[Difference]:
    """An ancestor read beside its children: only which keys it holds (a port, a pool) is compared, never the
    values below them, which the collector may not have read (the children listed beside it say what it did)."""
    d_kids, o_kids = _children(desired), _children(observed)
    if d_kids is None or o_kids is None:  # not a map on one side (None: nothing there): compared whole
        if (desired is None) != (observed is None):
            yield Difference(path, desired, observed)
        return
    for key in sorted(set(d_kids) ^ set(o_kids), key=_natural):
        yield Difference(f"{path}.{key}", d_kids.get(key, _MISSING), o_kids.get(key, _MISSING))


def _expand(
    pattern: list[str], prefix: str, desired: Any, observed: Any, keys_only: bool = False
) -> Iterator[Difference]:
    if not pattern:
        yield from (_keys if keys_only else _leaves)(prefix, desired, observed)
        return
    if desired == observed:
        return
    head, rest = pattern[0], pattern[1:]
    d_kids, o_kids = _children(desired) or {}, _children(observed) or {}
    keys = sorted(set(d_kids) | set(o_kids), key=_natural) if head == "*" else [head]
    for key in keys:
        here = f"{prefix}.{key}" if prefix else key
        d, o = d_kids.get(key, _MISSING), o_kids.get(key, _MISSING)
        if d is _MISSING and o is _MISSING:
            continue
        if d is _MISSING or o is _MISSING:
            yield Difference(here, d, o)
            continue
        yield from _expand(rest, here, d, o, keys_only)


def _unmanaged(diff: Difference) -> bool:
    return diff.desired is None and any(fnmatchcase(diff.path, p) for p in UNSET_IS_UNMANAGED)


def _within(diff: Difference, cell: int | None) -> bool:
    if not cell or not isinstance(diff.desired, int) or not isinstance(diff.observed, int):
        return False
    return abs(diff.desired - diff.observed) < cell and any(fnmatchcase(diff.path, p) for p in CELL_ROUNDED)


def device_drift(
    desired: dict[str, Any], observed: dict[str, Any], paths: list[str], cell: int | None = None
) -> list[Difference]:
    """Differences on ``paths`` between two dumped Devices (``model_dump(mode="json")``), cell-tolerant.

    A path listed beside some of its descendants (``interfaces`` beside ``interfaces.*.mtu``) is compared as the set
    of keys it holds (a port desired and not observed, or the reverse), its descendants as listed."""
    found: dict[str, Difference] = {}
    for pattern in paths:
        keys_only = any(other != pattern and covers(pattern, other) for other in paths)
        for diff in _expand(pattern.split("."), "", desired, observed, keys_only):
            if not _within(diff, cell) and not _unmanaged(diff):
                found.setdefault(diff.path, diff)
    return list(found.values())


def port_of(path: str) -> str | None:
    """The port a drift path is about, where it names one."""
    parts = path.split(".")
    if parts[0] == "interfaces" and len(parts) > 1:
        return parts[1]
    if parts[0] == "ports" and len(parts) > 1:
        return parts[1]
    if parts[:2] in (["buffers", "port_priority_groups"], ["buffers", "port_headroom_bytes"], ["host", "nics"]):
        return parts[2] if len(parts) > 2 else None
    return None


# PortSettings field -> the desired PfcWatchdog field it is judged against (for a port the watchdog covers)
_WATCHDOG = {
    "watchdog_action": "action",
    "watchdog_detection_ms": "detection_ms",
    "watchdog_restoration_ms": "restoration_ms",
}


def port_expected(desired: dict[str, Any], port: str) -> dict[str, Any]:
    """What a dumped desired Device means for one of its ports, by PortSettings field (absent: nothing)."""
    interface = desired.get("interfaces", {}).get(port) or {}
    watchdog = desired.get("pfc_watchdog") or {}
    qos = desired.get("qos") or {}
    out: dict[str, Any] = {"pfc_priorities": interface.get("pfc_priorities", _MISSING)}
    for setting, name in _WATCHDOG.items():
        out[setting] = watchdog[name] if port in watchdog.get("ports", []) else _MISSING
    for setting in ("trust", "dscp_to_tc", "schedulers", "ecn"):
        out[setting] = qos.get(setting, _MISSING)
    return out


def port_drift(
    desired: dict[str, Any], port: str, settings: dict[str, Any], cell: int | None = None
) -> list[Difference]:
    """Differences between one port's observed settings (``PortSettings.model_dump(mode="json")``; None: not
    observed, not compared) and what the dumped desired Device means for it."""
    want = port_expected(desired, port)
    found: list[Difference] = []
    for setting, value in settings.items():
        if value is None or setting not in want:
            continue
        for diff in _leaves(f"ports.{port}.{setting}", want[setting], value):
            if not _within(diff, cell):
                found.append(diff)
    return found
