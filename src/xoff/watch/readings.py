"""Counters as the collector reads them (``PortCounters``, pool watermarks) and the watch's own port tables
(FEC, optics) turned into ``Reading``s named by the metric catalogue (``xoff.watch.metrics``).

A value the device did not print is None in what the parsers give, so it is None here (not observed), never 0. The
platform modules (``xoff.platforms.<nos>.watch``) parse their NOS's output into these shapes and call these.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from xoff.contracts.observed import CollectError, PortCounters
from xoff.watch.sample import Reading

if TYPE_CHECKING:
    from xoff.contracts.collect import Command
    from xoff.desired.models import Device


@dataclass(frozen=True, slots=True)
class PortFec:
    """One port's FEC counters: codewords corrected and uncorrectable since the counters were cleared, and the
    pre-FEC bit error rate the switch computed over its last interval (None: not printed, or N/A)."""

    corrected: int | None = None
    uncorrectable: int | None = None
    pre_ber: float | None = None


@dataclass(frozen=True, slots=True)
class PortOptic:
    """One port's transceiver: receive power per lane (dBm; ``-inf``: no light, as the module says) and its
    temperature (Celsius); None: not printed (N/A, Unknown)."""

    rx_power_dbm: Mapping[int, float | None]
    temperature_c: float | None = None


def _num(value: int | None) -> float | None:
    return None if value is None else float(value)


def port_readings(counters: Mapping[str, PortCounters]) -> list[Reading]:
    """PFC frames per priority, queue packets/bytes/drops/ECN marks, watchdog storms, PG watermarks."""
    out: list[Reading] = []
    for port, c in counters.items():
        for priority, frames in c.pfc.rx_pause.items():
            out.append(Reading.of("xoff_pfc_rx_pause_frames_total", float(frames), port=port, priority=priority))
        for priority, frames in c.pfc.tx_pause.items():
            out.append(Reading.of("xoff_pfc_tx_pause_frames_total", float(frames), port=port, priority=priority))
        for queue, q in c.queues.items():
            out += [
                Reading.of("xoff_queue_tx_packets_total", _num(q.packets), port=port, queue=queue),
                Reading.of("xoff_queue_tx_bytes_total", _num(q.bytes), port=port, queue=queue),
                Reading.of("xoff_queue_dropped_packets_total", _num(q.dropped_packets), port=port, queue=queue),
                Reading.of("xoff_queue_ecn_marked_packets_total", _num(q.ecn_marked_packets), port=port, queue=queue),
            ]
        for queue, w in c.watchdog.items():
            out += [
                Reading.of("xoff_pfc_watchdog_storms_detected_total", _num(w.storms_detected), port=port, queue=queue),
                Reading.of("xoff_pfc_watchdog_storms_restored_total", _num(w.storms_restored), port=port, queue=queue),
            ]
        if c.watermarks is not None:
            for pg, used in c.watermarks.pg_headroom.items():
                out.append(Reading.of("xoff_pg_headroom_watermark_bytes", float(used), port=port, pg=pg))
            for pg, used in c.watermarks.pg_shared.items():
                out.append(Reading.of("xoff_pg_shared_watermark_bytes", float(used), port=port, pg=pg))
    return out


def queue_length_readings(lengths: Mapping[tuple[str, int], int]) -> list[Reading]:
    """Egress queue lengths (bytes) a switch reported, per (port, queue); a queue it did not report is absent."""
    return [Reading.of("xoff_queue_length_bytes", float(v), port=p, queue=q) for (p, q), v in lengths.items()]


def pool_readings(pools: Mapping[str, int] | None) -> list[Reading]:
    """Buffer-pool watermarks (``<pool>:headroom``, a pool's shared headroom, as its own pool label)."""
    return [Reading.of("xoff_buffer_pool_watermark_bytes", float(v), pool=p) for p, v in (pools or {}).items()]


def fec_readings(fec: Mapping[str, PortFec]) -> list[Reading]:
    out: list[Reading] = []
    for port, f in fec.items():
        out += [
            Reading.of("xoff_fec_corrected_codewords_total", _num(f.corrected), port=port),
            Reading.of("xoff_fec_uncorrectable_codewords_total", _num(f.uncorrectable), port=port),
            Reading.of("xoff_pre_fec_ber", f.pre_ber, port=port),
        ]
    return out


def optic_readings(optics: Mapping[str, PortOptic]) -> list[Reading]:
    out: list[Reading] = []
    for port, o in optics.items():
        out += [Reading.of("xoff_optic_rx_power_dbm", v, port=port, lane=lane) for lane, v in o.rx_power_dbm.items()]
        out.append(Reading.of("xoff_optic_temperature_celsius", o.temperature_c, port=port))
    return out


@dataclass
class Read:
    """What one device's counter commands gave: the readings, the fields printed that xoff does not model, and a
    line per command whose output could not be read (the other commands' readings stand)."""

    readings: list[Reading]
    unmodelled: dict[str, int]
    errors: list[str]


class CounterReader(Protocol):
    """A platform's counter commands for ``xoff watch`` (``Platform.watch``): which to run on a device, and its
    outputs (command text -> output) into readings."""

    def commands(self, device: Device) -> list[Command]: ...

    def read(self, outputs: Mapping[str, str], device: Device) -> Read: ...


def error_lines(errors: list[CollectError]) -> list[str]:
    return [f"{e.command}: {e.message}" if e.command else e.message for e in errors]
