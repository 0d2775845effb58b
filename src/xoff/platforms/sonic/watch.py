"""SONiC's counters for ``xoff watch``: the collector's counter and watermark commands (``counters``) and
``show interfaces counters fec-stats`` (``fec``) and ``show interfaces transceiver eeprom --dom`` (``optics``), in one batch, into readings. Nothing of the running config."""

from __future__ import annotations

from collections.abc import Mapping

from xoff.contracts.collect import Command, read
from xoff.contracts.observed import CollectError
from xoff.desired.models import Device
from xoff.platforms.sonic import counters, fec, optics
from xoff.watch.readings import Read, error_lines, fec_readings, optic_readings, pool_readings, port_readings

COMMANDS = (*counters.COMMANDS, fec.FEC_STATS, optics.TRANSCEIVER_DOM)


class Reader:
    def commands(self, device: Device) -> list[Command]:  # noqa: ARG002 (the same on every SONiC switch)
        return list(COMMANDS)

    def read(self, outputs: Mapping[str, str], device: Device) -> Read:
        errors: list[CollectError] = []
        unmodelled: dict[str, int] = {}
        ports, pools = counters.read_counters(outputs, device.name, errors, unmodelled)
        fec_ports = read(outputs, fec.FEC_STATS, lambda t: fec.parse_fec_stats(t, unmodelled), device.name, errors)
        dom = read(
            outputs, optics.TRANSCEIVER_DOM, lambda t: optics.parse_transceiver_dom(t, unmodelled), device.name, errors
        )
        readings = (
            port_readings(ports) + pool_readings(pools) + fec_readings(fec_ports or {}) + optic_readings(dom or {})
        )
        return Read(readings, unmodelled, error_lines(errors))


READER = Reader()
