"""Collect a Cumulus Linux switch: the applied NVUE configuration (``nv config show -o json``), the ports'
operational link values (``nv show interface -o json``), BGP sessions from FRR (``vtysh -c 'show bgp
summary json'``), its installed routes (``vtysh -c 'show ip route json'``) and LLDP neighbours from lldpd
(``lldpctl -f json``), both daemons Cumulus runs natively, and per Ethernet port its PFC, egress-queue and
PFC watchdog counters (``counters.py``: two NVUE commands a port, as NVUE has no all-ports form of them).

The session becomes root first (netmiko's ``sudo -s``, ``enable``): vtysh and lldpctl read their
daemons' sockets. Values read (``config_read.py``): hostname; per port kind, speed, MTU, admin state,
IPv4 addresses, PFC priorities and cable length (its PFC profile), PFC watchdog; QoS trust, DSCP ->
traffic class, lossless priorities and their queues, ECN, schedulers (per port through the profiles
it applies: the Device holds the most common value, each port that differs is in ``port_settings``);
the watchdog; BGP. What the configuration holds beyond these is counted in ``unmodelled``; a malformed
value is one located parse error and the rest is read.

Not read, so left out of ``fields`` (the Device holds desired's value, which no check may judge): QoS
class names and the maps NVUE does not hold (tc -> priority group...), buffers (switchd derives headroom
from the cable length), the watchdog's restoration time (NVUE has no knob), BGP neighbour names, and:

- ``qos.trust`` when ``nv config show`` has none (NVUE's default trust is not confirmed);
- the whole lossless plan under ``qos roce`` (NVUE derives it and ``nv config show`` does not print it);
- ``bgp.router_id`` when not set (NVUE then picks one), ``bgp.max_paths`` when ``multipaths ebgp``
  is not set (its default is not confirmed);
- schedulers are the configured ``egress-scheduler`` entries only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from xoff.contracts.collect import Command, DeviceObservation, parse_error, read
from xoff.contracts.fib import as_routes
from xoff.desired.models import Device
from xoff.platforms.cumulus import counters, parse
from xoff.platforms.cumulus.config_read import ConfigReading, read_config
from xoff.platforms.cumulus.observe import observe
from xoff.platforms.frr.fib import parse_route_json
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors

CONFIG = Command("nv config show -o json")
INTERFACES = Command("nv show interface -o json")
BGP = Command("vtysh -c 'show bgp summary json'")
FIB = Command("vtysh -c 'show ip route json'")  # FRR's installed routes: what switchd programs
LLDP = Command("lldpctl -f json")

LAB_ONLY = "PFC/ECN counters and buffer use: the lab's Cumulus has no data plane (counters are what the emulator holds)"


class Collector:
    platform: ClassVar[str] = "cumulus"

    def commands(self, desired: Device) -> list[Command]:
        per_port = [c for p in _ports(desired) for c in (counters.qos_command(p), counters.watchdog_command(p))]
        return [CONFIG, INTERFACES, BGP, FIB, LLDP, *per_port]

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        obs = DeviceObservation(device=None, lab_only=[LAB_ONLY])
        name, errors = desired.name, obs.errors
        # without it, link values are the applied configuration's
        summary = read(outputs, INTERFACES, parse.interface_summary, name, errors) or {}
        reading = read(outputs, CONFIG, lambda text: read_config(text, summary), name, errors)
        if reading is not None:
            _observe(obs, reading, desired)
        obs.bgp_sessions = read(outputs, BGP, parse_bgp_summary, name, errors, catch=(FrrParseError,))
        # swpN: Cumulus's ports are Linux's
        obs.fib = read(outputs, FIB, lambda text: as_routes(parse_route_json(text)), name, errors)
        obs.lldp = read(outputs, LLDP, parse_neighbors, name, errors, catch=(LldpParseError,))
        # each port's commands read alone, so a parse error names the one command that printed it
        ports = _ports(desired)
        qos = {p: read(outputs, counters.qos_command(p), counters.parse_qos, name, errors) for p in ports}
        wd = {p: read(outputs, counters.watchdog_command(p), counters.parse_watchdog, name, errors) for p in ports}
        obs.counters, extra = counters.port_counters(qos, wd)
        for key, count in extra.items():
            obs.unmodelled[key] = obs.unmodelled.get(key, 0) + count
        return obs


def _observe(obs: DeviceObservation, reading: ConfigReading, desired: Device) -> None:
    for message in reading.errors:
        obs.errors.append(parse_error(desired.name, CONFIG.text, message))
    obs.unmodelled.update(reading.unmodelled)
    try:
        obs.device, obs.fields, obs.port_settings = observe(reading, desired)
    except ValueError as exc:  # the model refused what was read: one error, nothing judged
        obs.errors.append(parse_error(desired.name, CONFIG.text, str(exc)))


def _ports(desired: Device) -> list[str]:
    """The switch's Ethernet ports (swpN), in intent order: the ones with queues and PFC."""
    return [n for n, i in desired.interfaces.items() if i.kind == "ethernet"]
