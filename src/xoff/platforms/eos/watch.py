"""EOS's counters for ``xoff watch``: PFC frames, egress queues, ECN marks and the PFC watchdog (``counters``),
FEC codewords, pre-FEC BER and the optics' receive power and temperature (``optics``), the egress queue lengths LANZ
reported (``lanz``, the slow drain's growing queue), all ``| json``, in one batch, into readings. No PFC pause
duration is read: none was found in Arista's documentation or ANTA's vectors."""

from __future__ import annotations

from collections.abc import Mapping

from xoff.contracts.collect import Command, read
from xoff.contracts.observed import CollectError
from xoff.desired.models import Device
from xoff.platforms.eos import counters, lanz, optics
from xoff.watch.readings import (
    Read,
    error_lines,
    fec_readings,
    optic_readings,
    port_readings,
    queue_length_readings,
)

COMMANDS = (counters.PFC, counters.QUEUES, counters.WATCHDOG, counters.ECN, optics.PHY, optics.DOM, lanz.QUEUE_MONITOR)


class Reader:
    def commands(self, device: Device) -> list[Command]:  # noqa: ARG002 (the same on every EOS switch)
        return list(COMMANDS)

    def read(self, outputs: Mapping[str, str], device: Device) -> Read:
        errors: list[CollectError] = []
        name = device.name
        pfc = read(outputs, counters.PFC, counters.parse_pfc, name, errors)
        queues = read(outputs, counters.QUEUES, counters.parse_queues, name, errors)
        watchdog = read(outputs, counters.WATCHDOG, counters.parse_watchdog, name, errors)
        ecn = read(outputs, counters.ECN, counters.parse_ecn, name, errors)
        ports = counters.port_counters(pfc, queues, watchdog, list(device.interfaces), ecn)
        unmodelled: dict[str, int] = {}
        fec = read(outputs, optics.PHY, lambda t: optics.parse_phy(t, unmodelled), name, errors)
        dom = read(outputs, optics.DOM, lambda t: optics.parse_dom(t, unmodelled), name, errors)
        lengths = read(outputs, lanz.QUEUE_MONITOR, lambda t: lanz.parse_queue_monitor(t, unmodelled), name, errors)
        readings = (
            port_readings(ports)
            + fec_readings(fec or {})
            + optic_readings(dom or {})
            + queue_length_readings(lengths or {})
        )
        return Read(readings, unmodelled, error_lines(errors))


READER = Reader()
