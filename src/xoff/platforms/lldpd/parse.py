"""``lldpcli -f json show neighbors`` (= ``lldpctl -f json``) -> LldpNeighbor list.

lldpd's JSON writer (src/client/json_writer.c) collapses a one-element list into the element, so
``interface`` is an object for one neighbour and a list of one-key objects for several; ``chassis``
is keyed by the system name (or is the bare chassis when the neighbour sends none). The port the
neighbour names is its port id when that is an interface name (``local``/``ifname``), else its
port description. A neighbour that announces no system name is named by its chassis id (``mac
b8:59:9f:00:00:21``), one whose port has neither an interface name nor a description by its port id:
what it said, never a reason to drop the other neighbours (sources: tests/fixtures/real/lldpd/README.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from xoff.contracts.observed import LldpNeighbor

_NAMED_PORT_IDS = {"local", "ifname", "ifalias"}


class LldpParseError(ValueError):
    pass


def _items(value: Any) -> list[tuple[str, Any]]:
    entries = value if isinstance(value, list) else [value]
    out: list[tuple[str, Any]] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise LldpParseError(f"lldp.interface: expected objects, got {type(entry).__name__}")
        out.extend(entry.items())
    return out


def _system_name(chassis: Any, port: str) -> str:
    if not isinstance(chassis, dict) or not chassis:
        raise LldpParseError(f"lldp.interface.{port}.chassis: missing")
    name, body = next(iter(chassis.items()))
    if name == "id" or not isinstance(body, dict):  # no system name announced: the bare chassis
        return _id_text(chassis.get("id"), f"lldp.interface.{port}.chassis")
    return str(name)


def _id_text(ident: Any, where: str) -> str:
    """A chassis or port id as ``<type> <value>`` (``mac 0c:42:a1:00:00:02``)."""
    if not isinstance(ident, dict) or not ident.get("value"):
        raise LldpParseError(f"{where}: neither a name nor an id")
    return f"{ident.get('type', 'id')} {ident['value']}"


def _port_name(port_data: Any, port: str) -> str:
    if not isinstance(port_data, dict):
        raise LldpParseError(f"lldp.interface.{port}.port: missing")
    ident = port_data.get("id", {})
    if isinstance(ident, dict) and ident.get("type") in _NAMED_PORT_IDS and ident.get("value"):
        return str(ident["value"])
    if port_data.get("descr"):
        return str(port_data["descr"])
    return _id_text(ident, f"lldp.interface.{port}.port")


def parse_neighbors(text: str, local_name: Callable[[str], str] = lambda n: n) -> list[LldpNeighbor]:
    """Every neighbour, sorted by local port; ``local_name`` maps lldpd's interface names to the intent's."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LldpParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or "lldp" not in data:
        raise LldpParseError("no top-level 'lldp' object")
    lldp = data["lldp"]
    if lldp in ({}, [], None):
        return []
    if not isinstance(lldp, dict) or "interface" not in lldp:
        raise LldpParseError("lldp: no 'interface' entries")
    neighbors = []
    for port, body in _items(lldp["interface"]):
        if not isinstance(body, dict):
            raise LldpParseError(f"lldp.interface.{port}: not an object")
        neighbors.append(
            LldpNeighbor(
                port=local_name(port),
                neighbor=_system_name(body.get("chassis"), port),
                neighbor_port=_port_name(body.get("port"), port),
            )
        )
    return sorted(neighbors, key=lambda n: (n.port, n.neighbor))
