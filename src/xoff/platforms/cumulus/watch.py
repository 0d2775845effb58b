"""Cumulus' counters for ``xoff watch``: per Ethernet port (NVUE has no all-ports form) its QoS counters and PFC
watchdog (``counters``, ``-o json``), in one batch, into readings."""

from __future__ import annotations

from collections.abc import Mapping

from xoff.contracts.collect import Command, read
from xoff.contracts.observed import CollectError
from xoff.desired.models import Device
from xoff.platforms.cumulus import counters
from xoff.watch.readings import Read, error_lines, port_readings


def _ports(device: Device) -> list[str]:
    return [n for n, i in device.interfaces.items() if i.kind == "ethernet"]


class Reader:
    def commands(self, device: Device) -> list[Command]:
        return [c for p in _ports(device) for c in (counters.qos_command(p), counters.watchdog_command(p))]

    def read(self, outputs: Mapping[str, str], device: Device) -> Read:
        errors: list[CollectError] = []
        name, ports = device.name, _ports(device)
        qos = {p: read(outputs, counters.qos_command(p), counters.parse_qos, name, errors) for p in ports}
        wd = {p: read(outputs, counters.watchdog_command(p), counters.parse_watchdog, name, errors) for p in ports}
        port_counters, extra = counters.port_counters(qos, wd)
        return Read(port_readings(port_counters), extra, error_lines(errors))


READER = Reader()
