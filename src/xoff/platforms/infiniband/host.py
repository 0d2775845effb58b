"""InfiniBand state of one host, read on the host itself like any host command: ``ibstat`` (every HCA port:
state, physical state, rate, LIDs, port GUID) and ``sminfo`` (the SM the host's port points at, and whether
it is the master). The Linux collector runs them over SSH on every host with an InfiniBand interface.

Faithful to what the host prints: an attribute ``ibstat`` shows that xoff does not model (CA type,
firmware, LMC, capability mask, ...) is counted in ``unmodelled``; a value that does not convert is a
parse error of that command, and the rest of the host is still read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from xoff.contracts.collect import Command, DeviceObservation, read
from xoff.contracts.observed import IbPortState
from xoff.desired.models import Device
from xoff.platforms.infiniband.parse import IbParseError, Row, guid, parse_rows

IBSTAT = Command("ibstat")
SMINFO = Command("sminfo")
# the attributes the template reads; any other "Key: value" line of ibstat is unmodelled
_MODELLED = frozenset({"State", "Physical state", "Rate", "Base lid", "SM lid", "Port GUID", "Link layer"})
_ATTRIBUTE = re.compile(r"^\s*([A-Z][A-Za-z ]*): \S")


def wants_ib(desired: Device) -> bool:
    """A host with an InfiniBand interface (an HCA on an InfiniBand compute network)."""
    return desired.kind == "host" and any(i.kind == "infiniband" for i in desired.interfaces.values())


def commands(desired: Device) -> list[Command]:
    return [IBSTAT, SMINFO] if wants_ib(desired) else []


def _optional_int(row: Row, key: str) -> int | None:
    return row.int(key) if row[key] else None


def _rate(text: str) -> int | None:
    """Gb/s; ``2.5`` (1X SDR) has no whole number of Gb/s and is left unread (None)."""
    if not text:
        return None
    value = float(text)
    return int(value) if value.is_integer() else None


def ibstat(text: str) -> list[IbPortState]:
    """Every port ``ibstat`` lists, in its order."""
    ports = []
    for row in parse_rows("ibstat", text):
        if not row["state"] or not row["phys_state"]:
            raise IbParseError(f"ibstat: {row['ca']} port {row['port']} without its State or Physical state")
        ports.append(
            IbPortState(
                ca=row["ca"],
                port=row.int("port"),
                state=row["state"],
                physical_state=row["phys_state"],
                rate=_rate(row["rate"]),
                base_lid=_optional_int(row, "base_lid"),
                sm_lid=_optional_int(row, "sm_lid"),
                port_guid=guid(row["port_guid"]) if row["port_guid"] else None,
                link_layer=row["link_layer"] or None,
            )
        )
    return ports


def ibstat_unmodelled(text: str) -> dict[str, int]:
    """``ibstat <attribute>`` -> how many times: what ibstat printed that xoff does not model."""
    seen: Counter[str] = Counter()
    for line in text.splitlines():
        match = _ATTRIBUTE.match(line)
        if match and match[1] not in _MODELLED and not match[1].startswith("Port "):
            seen[f"ibstat {match[1]}"] += 1
    return dict(sorted(seen.items()))


@dataclass(frozen=True)
class SmInfo:
    """One ``sminfo`` answer: the SM's LID and GUID, its priority and state (3: master)."""

    lid: int
    guid: str
    activity: int
    priority: int
    state: int
    state_name: str


def sminfo(text: str) -> SmInfo:
    rows = parse_rows("sminfo", text)
    if len(rows) != 1:
        raise IbParseError(f"sminfo: {len(rows)} answers, not one")
    row = rows[0]
    return SmInfo(
        lid=row.int("lid"),
        guid=guid(row["guid"]),
        activity=row.int("activity"),
        priority=row.int("priority"),
        state=row.int("state"),
        state_name=row["state_name"],
    )


def observe(outputs: Mapping[str, str], desired: Device, obs: DeviceObservation) -> None:
    """``obs.host.ib_ports`` from ibstat and ``obs.host.sm_lid`` / ``sm_state`` from sminfo, when they ran and
    read; their parse errors and ibstat's unmodelled attributes into ``obs``."""
    if obs.host is None or not wants_ib(desired):
        return

    def attempt(command: Command, parse: Callable[[str], Any]) -> Any:
        return read(outputs, command, parse, desired.name, obs.errors, catch=(ValueError,))

    update: dict[str, Any] = {}
    ports = attempt(IBSTAT, ibstat)
    if ports is not None:
        update["ib_ports"] = ports
        for name, count in ibstat_unmodelled(outputs[IBSTAT.text]).items():
            obs.unmodelled[name] = obs.unmodelled.get(name, 0) + count
    sm = attempt(SMINFO, sminfo)
    if sm is not None:
        update.update(sm_lid=sm.lid, sm_state=sm.state_name)
    obs.host = obs.host.model_copy(update=update)
