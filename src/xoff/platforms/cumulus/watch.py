"""Cumulus' counters for ``xoff watch``: per Ethernet port (NVUE has no all-ports form of these) its QoS counters
and PFC watchdog (``counters``, ``-o json``), its PHY's FEC and pre-FEC BER (``optics``, NVUE's text) and its priority
groups' peak buffer use (``buffers``, NVUE's table: the slow drain's and the headroom's watermarks); the modules'
receive power and temperature for every port at once (``transceivers``, one command a round, not one per port); in
one batch, into readings.

The pause durations NVUE's ``counters qos`` prints are not read: NVIDIA states no unit for them there (its gNMI
streaming page does, microseconds, and the gNMI source reads them)."""

from __future__ import annotations

from collections.abc import Mapping

from xoff.contracts.collect import Command, read
from xoff.contracts.observed import BufferWatermarks, CollectError, PortCounters
from xoff.desired.models import Device
from xoff.platforms.cumulus import buffers, counters, optics, transceivers
from xoff.watch.readings import PortFec, Read, error_lines, fec_readings, optic_readings, port_readings


def _ports(device: Device) -> list[str]:
    return [n for n, i in device.interfaces.items() if i.kind == "ethernet"]


def _port_commands(port: str) -> tuple[Command, ...]:
    return (
        counters.qos_command(port),
        counters.watchdog_command(port),
        optics.phy_command(port),
        buffers.buffer_command(port),
    )


def _fec(
    outputs: Mapping[str, str], ports: list[str], name: str, errors: list[CollectError], unmodelled: dict[str, int]
) -> dict[str, PortFec]:
    """Each port's FEC (left out: the command did not run or could not be read)."""
    fec = {}
    for p in ports:
        f = read(outputs, optics.phy_command(p), lambda t: optics.parse_phy_detail(t, unmodelled), name, errors)
        if f is not None:
            fec[p] = f
    return fec


def _with_watermarks(
    ports: dict[str, PortCounters], marks: dict[str, BufferWatermarks | None]
) -> dict[str, PortCounters]:
    """Each port's counters with its PG watermarks where they were read (a port read for nothing else too)."""
    out = dict(ports)
    for port, wm in marks.items():
        if wm is not None:
            out[port] = out.get(port, PortCounters()).model_copy(update={"watermarks": wm})
    return out


class Reader:
    def commands(self, device: Device) -> list[Command]:
        return [*(c for p in _ports(device) for c in _port_commands(p)), transceivers.TRANSCEIVERS]

    def read(self, outputs: Mapping[str, str], device: Device) -> Read:
        errors: list[CollectError] = []
        name, ports = device.name, _ports(device)
        qos = {p: read(outputs, counters.qos_command(p), counters.parse_qos, name, errors) for p in ports}
        wd = {p: read(outputs, counters.watchdog_command(p), counters.parse_watchdog, name, errors) for p in ports}
        port_counters, extra = counters.port_counters(qos, wd)
        marks = {
            p: read(outputs, buffers.buffer_command(p), lambda t: buffers.parse_ingress_pg(t, extra), name, errors)
            for p in ports
        }
        port_counters = _with_watermarks(port_counters, marks)
        fec = _fec(outputs, ports, name, errors, extra)
        dom = read(
            outputs, transceivers.TRANSCEIVERS, lambda t: transceivers.parse_transceivers(t, extra), name, errors
        )
        wanted = set(ports)  # the intent's ports: a module in a port the intent does not name is not watched
        optics_read = {p: o for p, o in (dom or {}).items() if p in wanted}
        readings = port_readings(port_counters) + fec_readings(fec) + optic_readings(optics_read)
        return Read(readings, extra, error_lines(errors))


READER = Reader()
