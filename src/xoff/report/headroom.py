"""Required vs configured headroom per lossless port: the plan's PG profile (what the headroom rule asks for the
port's speed and cable) beside the device's own profile when a snapshot holds it. Ports of a switch with the same
numbers share a row (the ports listed, with their count)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from xoff.buffers import get_asic
from xoff.desired.models import Buffers, Device
from xoff.intent.types import speed_label
from xoff.validate.coverage import unread
from xoff.validate.run import Validation

READS = ("buffers.port_priority_groups", "buffers.profiles")
MAX_ROWS = 400  # rows shown; problems first, the rest counted
SHOWN_PORTS = 6


@dataclass(frozen=True)
class HeadroomRow:
    device: str
    ports: tuple[str, ...]
    pg: str
    speed_cable: str
    profile: str
    required_xoff: int
    planned_size: int
    source: str  # where the plan's numbers came from
    configured: str | None  # the device's profile name; None: not observed
    configured_xoff: int | None
    configured_size: int | None
    state: str  # ok | below | missing | not observed

    @property
    def port_list(self) -> str:
        more = f" \u2026 ({len(self.ports)} ports)" if len(self.ports) > SHOWN_PORTS else ""
        return ", ".join(self.ports[:SHOWN_PORTS]) + more


def _lossless_pgs(dev: Device) -> set[int]:
    return set(dev.qos.pfc_priority_to_priority_group.values()) if dev.qos is not None else set()


def _observed(validation: Validation, name: str) -> Buffers | None:
    """The device's buffers when the snapshot holds them (None: offline, or not observed)."""
    snap = validation.snapshot
    seen = snap.observed.devices.get(name) if snap is not None else None
    if seen is None or seen.buffers is None or snap is None:
        return None
    return None if unread(seen, snap.observed_fields.get(name, []), READS) else seen.buffers


def _state(required: int, xoff: int | None, observed: bool, cell: int) -> str:
    if not observed:
        return "not observed"
    if xoff is None:
        return "missing"
    return "below" if xoff + cell < required else "ok"


def _device_rows(validation: Validation, dev: Device) -> list[HeadroomRow]:
    plan = dev.buffers
    if plan is None:
        return []
    lossless = _lossless_pgs(dev)
    seen = _observed(validation, dev.name)
    cell = (get_asic(dev.asic).cell_size or 0) if dev.asic else 0
    groups: dict[HeadroomRow, list[str]] = {}
    for port, pgs in plan.port_priority_groups.items():
        iface = dev.interfaces.get(port)
        where = f"{speed_label(iface.speed_mbps or 0)} {iface.cable_m} m" if iface is not None else "?"
        for key, name in pgs.items():
            profile = plan.profiles.get(name)
            if profile is None or int(key.split("-")[0]) not in lossless:
                continue
            have_name = seen.port_priority_groups.get(port, {}).get(key) if seen is not None else None
            have = seen.profiles.get(have_name) if seen is not None and have_name is not None else None
            xoff = have.xoff if have is not None else None
            row = HeadroomRow(
                dev.name,
                (),
                key,
                where,
                name,
                profile.xoff,
                profile.size,
                profile.source,
                have_name,
                xoff,
                have.size if have is not None else None,
                _state(profile.xoff, xoff, seen is not None, cell),
            )
            groups.setdefault(row, []).append(port)
    return [replace(row, ports=tuple(ports)) for row, ports in groups.items()]


def headroom_rows(validation: Validation) -> tuple[list[HeadroomRow], int]:
    """The rows (problems first), and how many more were left out."""
    rows = [
        r
        for dev in sorted(validation.desired.devices.values(), key=lambda d: d.name)
        for r in _device_rows(validation, dev)
    ]
    rows.sort(key=lambda r: r.state not in ("below", "missing"))
    return rows[:MAX_ROWS], max(len(rows) - MAX_ROWS, 0)
