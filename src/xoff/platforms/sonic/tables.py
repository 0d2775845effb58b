"""CONFIG_DB content types (table -> key -> field -> string value) and the port selections the
table builders share."""

from __future__ import annotations

from typing import TypeAlias

from xoff.desired.models import Device, Interface

Fields: TypeAlias = dict[str, str]
Tables: TypeAlias = dict[str, dict[str, Fields]]
ConfigDb: TypeAlias = Tables


def ethernet_ports(device: Device) -> list[Interface]:
    return [i for i in device.interfaces.values() if i.kind == "ethernet"]


def cabled_ports(device: Device) -> list[Interface]:
    """The ports with a link: they carry traffic, so they get QoS bindings and buffers."""
    return [i for i in device.interfaces.values() if i.kind == "ethernet" and i.peer is not None]
