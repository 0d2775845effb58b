"""Collect a Cumulus Linux switch: the applied NVUE configuration (``nv config show -o json``), the ports'
operational link values (``nv show interface -o json``), BGP sessions from FRR (``vtysh -c 'show bgp
summary json'``) and LLDP neighbours from lldpd (``lldpctl -f json``), both daemons Cumulus runs natively,
and per Ethernet port its PFC, egress-queue and PFC watchdog counters (``counters.py``: two NVUE commands
a port, as NVUE has no all-ports form of them).

The session becomes root first (netmiko's ``sudo -s``, ``enable``): vtysh and lldpctl read their
daemons' sockets. Values read (``parse.py``): hostname; per port kind, speed, MTU, admin state, IPv4
addresses, PFC priorities and cable length (its PFC profile), PFC watchdog; QoS trust, DSCP -> traffic
class, lossless priorities and their queues, ECN, schedulers; the watchdog; BGP.

Not read, so copied from desired and left out of ``fields``: QoS class names and the other maps NVUE
does not hold (tc -> priority group...), buffers (switchd derives headroom from the cable length),
the watchdog's restoration time (NVUE has no knob: one polling interval), BGP neighbour names, and:

- ``qos.trust`` when ``nv config show`` has none (NVUE's default trust is not confirmed);
- ``bgp.router_id`` when not set (NVUE then picks one), ``bgp.max_paths`` when ``multipaths ebgp``
  is not set (its default is not confirmed);
- schedulers are the configured ``egress-scheduler default-global`` entries only (whether the
  documented 12/13 % defaults stay on the queues a profile does not name is not confirmed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from ipaddress import IPv4Address, IPv4Interface
from typing import Any, ClassVar

from xoff.collect.observe import (
    interface_paths,
    observed_device,
    observed_interfaces,
    observed_static_routes,
    ordered_like,
)
from xoff.contracts.collect import Command, DeviceObservation, read
from xoff.contracts.fib import as_routes
from xoff.desired.models import Device
from xoff.platforms.cumulus import counters, parse
from xoff.platforms.cumulus.nvue import Tree
from xoff.platforms.cumulus.parse import NvueParseError
from xoff.platforms.frr.fib import parse_route_json
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors

CONFIG = Command("nv config show -o json")
INTERFACES = Command("nv show interface -o json")
BGP = Command("vtysh -c 'show bgp summary json'")
FIB = Command("vtysh -c 'show ip route json'")  # FRR's installed routes: what switchd programs
LLDP = Command("lldpctl -f json")

INTERFACE_FIELDS = ("kind", "speed_mbps", "mtu", "admin_up", "addresses", "cable_m", "pfc_priorities", "pfc_watchdog")
BGP_FIELDS = ("asn", "neighbors", "networks")
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
        summary = read(outputs, INTERFACES, parse.interface_summary, name, errors, catch=(NvueParseError,)) or {}
        # NvueParseError and the model's ValidationError are ValueErrors
        device = read(outputs, CONFIG, lambda text: observe(parse.config_tree(text), summary, desired), name, errors)
        if device is not None:
            obs.device, obs.fields = device
        obs.bgp_sessions = read(outputs, BGP, parse_bgp_summary, name, errors, catch=(FrrParseError,))
        # swpN: Cumulus's ports are Linux's
        obs.fib = read(outputs, FIB, lambda text: as_routes(parse_route_json(text)), name, errors)
        obs.lldp = read(outputs, LLDP, parse_neighbors, name, errors, catch=(LldpParseError,))
        # each port's commands read alone, so a parse error names the one command that printed it
        ports = _ports(desired)
        qos = {p: read(outputs, counters.qos_command(p), counters.parse_qos, name, errors) for p in ports}
        wd = {p: read(outputs, counters.watchdog_command(p), counters.parse_watchdog, name, errors) for p in ports}
        obs.counters = counters.port_counters(qos, wd)
        return obs


def _ports(desired: Device) -> list[str]:
    """The switch's Ethernet ports (swpN), in intent order: the ones with queues and PFC."""
    return [n for n, i in desired.interfaces.items() if i.kind == "ethernet"]


def observe(tree: Tree, summary: dict[str, dict[str, Any]], desired: Device) -> tuple[Device, list[str]]:
    """The observed Device and the field paths read, from the applied tree and the interface summary."""
    seen = parse.interface_values(tree, summary)
    for name, values in seen.items():
        base = desired.interfaces.get(name)
        values["addresses"] = ordered_like(values["addresses"], base.addresses if base is not None else [])
    updates: dict[str, Any] = {"interfaces": observed_interfaces(desired, seen)}
    fields = ["interfaces", *interface_paths(INTERFACE_FIELDS)]
    hostname = parse.get(tree, "system", "hostname")
    if hostname is not None:
        updates["name"] = str(hostname)
        fields.append("name")
    qos, qos_fields = _qos(tree, seen, desired)
    updates["qos"] = qos
    fields += qos_fields
    updates["pfc_watchdog"] = _watchdog(tree, seen, desired)
    fields.append("pfc_watchdog")
    updates["bgp"], bgp_fields = _bgp(tree, seen, desired)
    fields += bgp_fields
    updates["static_routes"] = observed_static_routes(desired, _static_routes(tree))
    fields.append("static_routes")
    return observed_device(desired, updates), fields


def _static_routes(tree: Tree) -> list[tuple[str, str, str | None]]:
    """``vrf default router static <prefix> via <via>``: a ``via`` is an address (the next hop) or a port;
    NVUE shows one ``via`` as a scalar and several as a map."""
    out: list[tuple[str, str, str | None]] = []
    routes = parse.get(tree, "vrf", "default", "router", "static")
    for prefix, body in (routes if isinstance(routes, dict) else {}).items():
        vias = body.get("via") if isinstance(body, dict) else None
        for via in vias if isinstance(vias, dict) else [vias] if vias is not None else []:
            try:
                out.append((str(prefix), str(IPv4Address(str(via))), None))
            except ValueError:
                out.append((str(prefix), "", str(via)))
    return out


def _qos(tree: Tree, seen: dict[str, dict[str, Any]], desired: Device) -> tuple[dict[str, Any] | None, list[str]]:
    lossless = sorted({p for values in seen.values() for p in values.get("pfc_priorities", [])})
    if parse.get(tree, "qos") is None and not lossless:
        return None, ["qos"]  # nothing of the lossless plan: a factory switch
    if desired.qos is None:
        raise NvueParseError("qos is configured but the intent has none for this device (not representable)")
    to_queue = parse.priority_to_queue(tree)
    qos: dict[str, Any] = {
        "lossless_priorities": lossless,
        "pfc_priority_to_queue": to_queue,  # switch priority -> egress queue, all 8 (egress-queue-mapping)
        "ecn": parse.ecn(tree),
        "schedulers": parse.schedulers(tree),
    }
    fields = ["qos.lossless_priorities", "qos.pfc_priority_to_queue", "qos.ecn", "qos.schedulers"]
    trust = parse.get(tree, "qos", "mapping", parse.PROFILE, "trust")
    if trust is not None:
        if trust not in parse.TRUST:
            raise NvueParseError(f"qos mapping {parse.PROFILE} trust: {trust!r} (FabricState has: l3, l2)")
        qos["trust"] = parse.TRUST[trust]
        fields.append("qos.trust")
        if trust == "l3":  # DSCP -> switch priority -> the intent's traffic class carrying that priority
            tc_of = {cls.priority: cls.traffic_class for cls in desired.qos.classes}
            qos["dscp_to_tc"] = {d: tc_of.get(p, p) for d, p in parse.dscp_to_priority(tree).items()}
            fields.append("qos.dscp_to_tc")
    return qos, fields


def _watchdog(tree: Tree, seen: dict[str, dict[str, Any]], desired: Device) -> dict[str, Any] | None:
    ports = [n for n, v in seen.items() if v.get("pfc_watchdog") and v.get("pfc_priorities")]
    config = parse.get(tree, "qos", "pfc-watchdog")
    if not ports:
        return None
    body = parse.as_dict(config, "qos pfc-watchdog")
    poll = parse.as_int(body.get("polling-interval", parse.DEFAULT_POLL_MS), "qos pfc-watchdog polling-interval")
    polls = parse.as_int(body.get("robustness", parse.DEFAULT_ROBUSTNESS), "qos pfc-watchdog robustness")
    want = desired.pfc_watchdog
    # xoff writes robustness = ceil(detection / poll): the intent's detection time is what runs when it rounds so
    same = want is not None and max(1, math.ceil(want.detection_ms / poll)) == polls
    to_queue = parse.priority_to_queue(tree)
    return {
        "poll_interval_ms": poll,
        "detection_ms": want.detection_ms if same and want is not None else polls * poll,
        "restoration_ms": want.restoration_ms if want is not None else poll,
        "action": "drop",  # the only mitigation NVUE has
        "ports": ordered_like(ports, want.ports if want is not None else list(desired.interfaces)),
        "queues": sorted({to_queue[p] for n in ports for p in seen[n]["pfc_priorities"]}),
    }


def _bgp(tree: Tree, seen: dict[str, dict[str, Any]], desired: Device) -> tuple[dict[str, Any] | None, list[str]]:
    values = parse.bgp_values(tree)
    if values is None:
        return None, ["bgp"]
    want = desired.bgp
    peers = {n.address: n.peer for n in want.neighbors} if want is not None else {}
    local = {IPv4Interface(a).network: n for n, v in seen.items() for a in v["addresses"]}
    neighbors = []
    for address, asn in values["neighbors"].items():
        network = next((net for net in local if IPv4Address(address) in net), None)
        neighbors.append(
            {
                "address": address,
                "remote_asn": asn,
                "peer": peers.get(address, ""),  # NVUE keeps no neighbour name xoff writes
                "interface": local[network] if network is not None else "",
            }
        )
    data: dict[str, Any] = {
        "asn": values["asn"],
        "neighbors": ordered_like(neighbors, list(peers), lambda n: n["address"]),
        "networks": ordered_like(values["networks"], want.networks if want is not None else []),
    }
    fields = [f"bgp.{f}" for f in BGP_FIELDS]
    for key, value in (("router_id", values["router_id"]), ("max_paths", values["max_paths"])):
        if value is not None:
            data[key] = value
            fields.append(f"bgp.{key}")
        elif want is None:  # observed BGP intent does not have: the model needs a value
            data[key] = "" if key == "router_id" else 0
    return data, fields
