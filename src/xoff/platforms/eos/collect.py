"""Collect an Arista EOS switch: ``show running-config`` (read by ``parse.py`` into FabricState
values), LLDP neighbours, BGP sessions, and PFC / queue / PFC watchdog counters (``counters.py``) as
eAPI JSON (``| json``).

EOS fixes traffic class N -> tx-queue N and PFC priority N -> traffic class N (see ``qos.py``), so
those maps, QoS class names and buffers are not observable here: they are copied from desired and
left out of ``fields``. ``bandwidth percent`` is what EOS keeps of a DWRR weight; where it equals the
percentages xoff renders from the intent's weights, the intent's weights are the observed ones.
"""

from __future__ import annotations

import json
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
from xoff.contracts.observed import BgpSession, LldpNeighbor
from xoff.desired.models import Device
from xoff.platforms.eos import counters, fib
from xoff.platforms.eos.parse import EosConfig, EosParseError, parse_running_config
from xoff.platforms.eos.qos import bandwidth_percents

RUNNING = Command("show running-config")
LLDP = Command("show lldp neighbors | json")
BGP = Command("show ip bgp summary | json")
FIB = Command(fib.COMMAND)

INTERFACE_FIELDS = ("kind", "speed_mbps", "mtu", "admin_up", "addresses", "pfc_priorities", "pfc_watchdog")
TRUST = {"dscp": "dscp", "cos": "pcp"}
EOS_DEFAULT_MTU = 1500  # an Ethernet port's MTU when running-config has no ``mtu`` line (EOS omits defaults)
LAB_ONLY = "PFC/ECN counters and buffer use: the lab's EOS has no data plane (counters are what the emulator holds)"


def _kind(name: str) -> str:
    if name.startswith("Loopback"):
        return "loopback"
    if name.startswith("Management"):
        return "mgmt"
    return "ethernet"


def _ms(value: str) -> int:
    return round(float(value) * 1000)


class Collector:
    platform: ClassVar[str] = "eos"

    def commands(self, desired: Device) -> list[Command]:  # noqa: ARG002 (the same on every EOS switch)
        return [RUNNING, LLDP, BGP, FIB, counters.PFC, counters.QUEUES, counters.WATCHDOG]

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        obs = DeviceObservation(device=None, lab_only=[LAB_ONLY])
        name, errors = desired.name, obs.errors
        # EosParseError and the model's ValidationError are ValueErrors
        device = read(outputs, RUNNING, lambda text: _device(parse_running_config(text), desired), name, errors)
        if device is not None:
            obs.device, obs.fields = device
        json_errors = (ValueError, KeyError, TypeError)  # eAPI JSON read by key: a missing key is a KeyError
        obs.lldp = read(outputs, LLDP, parse_lldp, name, errors, catch=json_errors, describe=_unexpected_json)
        obs.bgp_sessions = read(outputs, BGP, parse_bgp, name, errors, catch=json_errors, describe=_unexpected_json)
        obs.fib = read(outputs, FIB, lambda text: as_routes(fib.parse_route_json(text)), name, errors)
        # each counters command read alone, so a parse error names the one command that printed it
        pfc = read(outputs, counters.PFC, counters.parse_pfc, name, errors)
        queues = read(outputs, counters.QUEUES, counters.parse_queues, name, errors)
        watchdog = read(outputs, counters.WATCHDOG, counters.parse_watchdog, name, errors)
        obs.counters = counters.port_counters(pfc, queues, watchdog, list(desired.interfaces))
        return obs


def _unexpected_json(exc: Exception) -> str:
    return f"unexpected JSON: {exc!r}"


def _device(config: EosConfig, desired: Device) -> tuple[Device, list[str]]:
    updates, fields = _updates(config, desired)
    return observed_device(desired, updates), fields


def parse_lldp(text: str) -> list[LldpNeighbor]:
    data = json.loads(text)
    return sorted(
        (
            LldpNeighbor(port=n["port"], neighbor=n["neighborDevice"], neighbor_port=n["neighborPort"])
            for n in data["lldpNeighbors"]
        ),
        key=lambda n: (n.port, n.neighbor),
    )


def parse_bgp(text: str) -> list[BgpSession]:
    data = json.loads(text)
    vrf = data["vrfs"].get("default")
    if vrf is None:
        return []
    return [
        BgpSession(
            address=address,
            remote_asn=int(peer["asn"]),
            state=str(peer["peerState"]),
            prefixes_received=int(peer["prefixReceived"]) if "prefixReceived" in peer else None,
        )
        for address, peer in sorted(vrf["peers"].items(), key=lambda kv: IPv4Address(kv[0]))
    ]


def _updates(config: EosConfig, desired: Device) -> tuple[dict[str, Any], list[str]]:
    seen = {
        n: {
            "kind": _kind(n),
            "speed_mbps": i.speed_mbps,
            "mtu": i.mtu if i.mtu is not None or _kind(n) != "ethernet" else EOS_DEFAULT_MTU,
            "admin_up": i.admin_up,
            "addresses": i.addresses,
            "pfc_priorities": sorted(i.pfc_priorities) if i.pfc_on else [],
            "pfc_watchdog": i.pfc_watchdog and i.pfc_on,
        }
        for n, i in config.interfaces.items()
    }
    updates: dict[str, Any] = {"interfaces": observed_interfaces(desired, seen, keep_kinds=())}
    fields = ["interfaces", *interface_paths(INTERFACE_FIELDS)]
    if config.hostname is not None:
        updates["name"] = config.hostname
        fields.append("name")
    qos, qos_fields = _qos(config, desired)
    if qos_fields:
        updates["qos"] = qos
        fields += qos_fields
    updates["pfc_watchdog"] = _watchdog(config, desired)
    fields.append("pfc_watchdog")
    updates["static_routes"] = observed_static_routes(desired, config.static_routes)
    fields.append("static_routes")
    updates["bgp"] = _bgp(config, desired)
    fields += (
        ["bgp"]
        if config.bgp is None
        else [f"bgp.{f}" for f in ("asn", "router_id", "max_paths", "neighbors", "networks")]
    )
    return updates, fields


def _qos(config: EosConfig, desired: Device) -> tuple[dict[str, Any] | None, list[str]]:
    fabric_ports = [i for i in config.interfaces.values() if i.trust is not None or i.tx_queues]
    if not config.dscp_to_tc and not fabric_ports:
        return None, ["qos"]
    if desired.qos is None:
        raise EosParseError("QoS is configured but the intent has none for this device (not representable)")
    trusts = {i.trust for i in fabric_ports if i.trust is not None}
    queue_sets = {json.dumps(i.tx_queues, sort_keys=True) for i in fabric_ports}
    if len(trusts) > 1 or len(queue_sets) > 1:
        raise EosParseError("ports differ in qos trust or tx-queue settings (FabricState holds one per switch)")
    queues: dict[int, dict[str, Any]] = fabric_ports[0].tx_queues if fabric_ports else {}
    percents = {q: int(v["percent"]) for q, v in queues.items() if v.get("type") == "dwrr" and "percent" in v}
    intent_weights = {q: s.weight for q, s in desired.qos.schedulers.items() if s.type == "dwrr"}
    same_shares = percents == bandwidth_percents(desired.qos)
    schedulers = {
        q: {"type": v["type"], "weight": (intent_weights.get(q) if same_shares else percents.get(q))}
        for q, v in queues.items()
        if "type" in v
    }
    ecn = {
        q: {"min_threshold": v["ecn"][0], "max_threshold": v["ecn"][1], "probability": v["ecn"][2]}
        for q, v in queues.items()
        if "ecn" in v
    }
    lossless = sorted({p for i in config.interfaces.values() if i.pfc_on for p in i.pfc_priorities})
    qos: dict[str, Any] = {
        "dscp_to_tc": dict(sorted(config.dscp_to_tc.items())),
        "schedulers": schedulers,
        "ecn": ecn,
        "lossless_priorities": lossless,
    }
    fields = ["qos.dscp_to_tc", "qos.schedulers", "qos.ecn", "qos.lossless_priorities"]
    if trusts:
        qos["trust"] = TRUST[trusts.pop()]
        fields.append("qos.trust")
    return qos, fields


def _watchdog(config: EosConfig, desired: Device) -> dict[str, Any] | None:
    ports = [n for n, i in config.interfaces.items() if i.pfc_on and i.pfc_watchdog]
    if not config.watchdog and not ports:
        return None
    wd = config.watchdog
    missing = [k for k in ("timeout", "recovery-time", "polling-interval", "action") if k not in wd]
    if missing:
        raise EosParseError(f"PFC watchdog without {', '.join(missing)} (xoff renders all four)")
    reference = desired.pfc_watchdog.ports if desired.pfc_watchdog is not None else list(desired.interfaces)
    return {
        "poll_interval_ms": _ms(wd["polling-interval"]),
        "detection_ms": _ms(wd["timeout"]),
        "restoration_ms": _ms(wd["recovery-time"]),
        "action": wd["action"],
        "ports": ordered_like(ports, reference),
        # EOS watches the no-drop priorities, and priority N is queue N on EOS
        "queues": sorted({p for n in ports for p in config.interfaces[n].pfc_priorities}),
    }


def _bgp(config: EosConfig, desired: Device) -> dict[str, Any] | None:
    bgp = config.bgp
    if bgp is None:
        return None
    local = {IPv4Interface(a).network: n for n, i in config.interfaces.items() for a in i.addresses}
    neighbors = []
    for address, values in bgp.neighbors.items():
        if "remote_asn" not in values:
            raise EosParseError(f"router bgp: neighbor {address} has no remote-as")
        network = next((net for net in local if IPv4Address(address) in net), None)
        description = str(values.get("description", ""))
        neighbors.append(
            {
                "address": address,
                "remote_asn": values["remote_asn"],
                # xoff describes a neighbour as "<device>:<port>"; that is all EOS keeps of its name
                "peer": description.split(":", 1)[0],
                "interface": local[network] if network is not None else "",
            }
        )
    want = desired.bgp
    return {
        "asn": bgp.asn,
        "router_id": bgp.router_id or "",
        "max_paths": bgp.max_paths if bgp.max_paths is not None else 1,  # EOS default: no ECMP
        "neighbors": ordered_like(
            neighbors, [n.address for n in want.neighbors] if want else [], lambda n: n["address"]
        ),
        "networks": ordered_like(bgp.networks, want.networks if want else []),
    }
