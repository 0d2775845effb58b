"""Which observed devices a check may judge: those whose collector read every Device field it ``reads``.

A field path a collector reports (``Snapshot.observed_fields``) covers a path a check reads when they are
equal, when it is an ancestor (``qos`` covers ``qos.ecn``), or segment by segment with ``*`` matching any key
(``interfaces.*.mtu`` covers ``interfaces.*.mtu``). An ancestor a collector lists together with some of its
descendants (``interfaces`` beside ``interfaces.*.mtu``: the set of ports, and which of their fields) covers only
itself; the descendants it lists say what was read below it. A path is not asked of a device that holds nothing on the
way to it (a switch has no ``host``, a host no ``qos``): there is nothing there to judge, observed or not.
Every other device that lacks a path is left out of the check's subject and named in the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from xoff.contracts.observed import Snapshot
from xoff.desired.models import Device, FabricState


def covers(observed: str, read: str) -> bool:
    """``observed`` (a collector's field path) covers ``read`` (a path a check judges)."""
    have, want = observed.split("."), read.split(".")
    if len(have) > len(want):
        return False
    return all(a == b or "*" in (a, b) for a, b in zip(have, want, strict=False))


def _children(value: Any, segment: str) -> list[Any]:
    if segment == "*":
        return list(value.values()) if isinstance(value, dict) else []
    if isinstance(value, BaseModel):
        return [getattr(value, segment, None)]
    if isinstance(value, dict):
        return [value.get(segment)]
    return [None]


def holds(device: Device, read: str) -> bool:
    """The device has something on the way to ``read``: every segment before the last resolves (to a value
    that is not None, and for ``*`` to at least one key)."""
    level: list[Any] = [device]
    for segment in read.split(".")[:-1]:
        level = [c for v in level for c in _children(v, segment) if c is not None]
        if not level:
            return False
    return True


def _covered(have: list[str], read: str) -> bool:
    depth = read.count(".")
    for f in have:
        if not covers(f, read):
            continue
        if f.count(".") == depth or not any(g != f and covers(f, g) for g in have):
            return True
    return False


@cache
def _uncovered(fields: tuple[str, ...], reads: tuple[str, ...]) -> tuple[str, ...]:
    """The reads ``fields`` do not cover (devices of one platform list the same fields: computed once for them)."""
    have = list(fields)
    return tuple(r for r in reads if not _covered(have, r))


def unread(device: Device, fields: Iterable[str], reads: Sequence[str]) -> list[str]:
    """The paths of ``reads`` this device holds and its collector did not read."""
    return [r for r in _uncovered(tuple(fields), tuple(reads)) if holds(device, r)]


@dataclass
class Coverage:
    """A check's subject cut down to the devices it may judge, and those left out with the paths they lack."""

    snapshot: Snapshot
    judged: list[str] = field(default_factory=list)
    left_out: dict[str, list[str]] = field(default_factory=dict)  # device -> the read paths not observed

    def reason(self) -> str | None:
        """``not judged on eos1, eos2: qos.pfc_priority_to_queue not observed`` (grouped by what they lack)."""
        if not self.left_out:
            return None
        groups: dict[tuple[str, ...], list[str]] = {}
        for name, paths in sorted(self.left_out.items()):
            groups.setdefault(tuple(paths), []).append(name)
        parts = [f"{', '.join(names)}: {', '.join(paths)} not observed" for paths, names in groups.items()]
        return "not judged on " + "; on ".join(parts)


def cover(
    snapshot: Snapshot,
    reads: Sequence[str],
    desired: FabricState | None = None,
    selected: frozenset[str] | None = None,
) -> Coverage:
    """The snapshot with only the devices that may be judged on ``reads`` (the others are named).

    ``reads[0]`` is what the check is about (the NIC setting, the queue's scheduler): a device is counted as judged
    when it holds that path, so a check whose every such device was left out is skipped, even where other devices
    (the switch side of a NIC check) could be read. A device of ``desired`` that is not in the snapshot at all (not
    reached, no capture) is named as such. With ``selected`` (``validate --limit``), only selected devices are named
    or counted as judged (not selected is not "not observed"); the others stay in the subject, as the peers of the
    selected ones. Devices are named only where they hold ``reads[0]`` (a host is no subject
    of a watchdog check), and left out of the subject wherever they lack a path they hold.
    """
    result = Coverage(snapshot)
    kept: dict[str, Device] = {}
    for name, device in snapshot.observed.devices.items():
        chosen = selected is None or name in selected
        missing = unread(device, snapshot.observed_fields.get(name, ()), reads)
        if missing:  # named only where it is the check's subject (a host is not a watchdog check's)
            if holds(device, reads[0]) and chosen:
                result.left_out[name] = missing
            continue
        kept[name] = device
        if holds(device, reads[0]) and chosen:
            result.judged.append(name)
    for name, device in desired.devices.items() if desired is not None else ():
        if selected is not None and name not in selected:
            continue
        if name not in snapshot.observed.devices and holds(device, reads[0]):
            result.left_out[name] = ["device"]  # "not judged on gpu1: device not observed"
    if len(kept) != len(snapshot.observed.devices):
        observed = snapshot.observed.model_copy(update={"devices": kept})
        result.snapshot = snapshot.model_copy(update={"observed": observed})
    return result


def lacking(snapshot: Snapshot | None, device: Device, paths: Sequence[str]) -> list[str]:
    """The paths of ``paths`` a snapshot did not observe on ``device`` (none without a snapshot: the intent is judged
    whole). For a part of a check that needs more than its ``reads`` (the ECN check's PFC trigger point needs the
    buffers): that part is judged only where they were observed."""
    if snapshot is None:
        return []
    return unread(device, snapshot.observed_fields.get(device.name, ()), paths)


def _unwrapped(annotation: Any) -> Any:
    """``X | None`` -> ``X``."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    return args[0] if get_origin(annotation) in (Union, UnionType) and len(args) == 1 else annotation


def path_error(path: str) -> str | None:
    """Why ``path`` names no Device field (``qos.ecm``, ``interfaces.mtu`` without ``*``), None when it does."""
    current: Any = Device
    for segment in path.split("."):
        current = _unwrapped(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            if segment not in current.model_fields:
                return f"{segment!r} is not a field of {current.__name__}"
            current = current.model_fields[segment].annotation
        elif get_origin(current) is dict:
            if segment != "*":
                return f"{segment!r}: a map's keys are written *"
            current = get_args(current)[1]
        else:
            return f"{segment!r}: nothing below a {getattr(current, '__name__', current)}"
    return None
