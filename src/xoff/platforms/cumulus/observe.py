"""The observed Device from what ``config_read.py`` read: values over a copy of desired (the model needs
them), and the field paths actually read (``fields``), per port where one port's value could not be read.

Per-port QoS (``port_qos``): the Device holds the most common value over the Ethernet ports; each port
whose trust, DSCP map, schedulers or ECN differ from it gets a ``PortSettings`` with its own values.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

from xoff.collect.observe import (
    SWITCH_INTERFACE_FIELDS,
    observed_device,
    observed_interfaces,
    observed_static_routes,
    ordered_like,
)
from xoff.contracts.observed import PortSettings
from xoff.desired.models import Device, Vrf
from xoff.platforms.cumulus.config_read import ConfigReading

QOS_FIELDS = {"trust": "trust", "dscp_to_priority": "dscp_to_tc", "schedulers": "schedulers", "ecn": "ecn"}
BGP_FIELDS = ("asn", "neighbors", "networks")


def observe(reading: ConfigReading, desired: Device) -> tuple[Device, list[str], dict[str, PortSettings]]:
    seen = {n: dict(v) for n, v in reading.ports.items()}
    for name, values in seen.items():
        base = desired.interfaces.get(name)
        if "addresses" in values:
            values["addresses"] = ordered_like(values["addresses"], base.addresses if base is not None else [])
    updates: dict[str, Any] = {"interfaces": observed_interfaces(desired, seen)}
    fields = ["interfaces", *_interface_fields(seen)]
    if reading.hostname is not None:
        updates["name"] = reading.hostname
        fields.append("name")
    qos, qos_fields, settings = _qos(reading, seen, desired)
    if qos is not None or qos_fields == ["qos"]:
        updates["qos"] = qos
    fields += qos_fields
    if reading.roce is None and not {"watchdog", "priority_to_queue"} & set(reading.unread):
        updates["pfc_watchdog"] = _watchdog(reading, seen, desired)
        fields.append("pfc_watchdog")
    updates["bgp"], bgp_fields = _bgp(reading, seen, desired)
    fields += bgp_fields
    updates["static_routes"] = observed_static_routes(desired, reading.static_routes)
    fields.append("static_routes")
    updates["vrfs"] = _vrfs(reading, desired)
    if reading.vrfs_unread:  # a malformed VNI: that VRF is not judged, nor which VRFs there are
        fields += [f"vrfs.{name}.vni" for name in reading.vrf_vnis]
    else:
        fields += ["vrfs", "vrfs.*.vni"]
    return observed_device(desired, updates), fields, settings


def _vrfs(reading: ConfigReading, desired: Device) -> list[dict[str, Any]]:
    """The tenant VRFs NVUE holds with their L3 VNI; the rest of each (tenant, networks, lossless class) is the
    intent's where it names the VRF (not read here, so not judged)."""
    want = {v.name: v for v in desired.vrfs}
    out = [
        (want.get(name) or Vrf(name=name, tenant="")).model_copy(update={"vni": vni}).model_dump(mode="json")
        for name, vni in reading.vrf_vnis.items()
    ]
    return ordered_like(out, list(want), lambda v: v["name"])


def _interface_fields(seen: dict[str, dict[str, Any]]) -> list[str]:
    """``interfaces.*.<f>`` when every port that has the field was read, else one path per port read."""
    out = []
    for name in SWITCH_INTERFACE_FIELDS:
        applies = [p for p, v in seen.items() if v.get("kind") == "ethernet" or name in ("kind", "addresses")]
        read = [p for p in applies if name in seen[p]]
        out += [f"interfaces.*.{name}"] if read == applies else [f"interfaces.{p}.{name}" for p in read]
    return out


def _common(values: list[Any]) -> Any:
    """The most common value (the first seen among equals)."""
    counts = Counter(json.dumps(v, sort_keys=True) for v in values)
    best = max(counts.values())
    return next(v for v in values if counts[json.dumps(v, sort_keys=True)] == best)


def _qos(
    reading: ConfigReading, seen: dict[str, dict[str, Any]], desired: Device
) -> tuple[dict[str, Any] | None, list[str], dict[str, PortSettings]]:
    lossless = sorted({p for values in seen.values() for p in values.get("pfc_priorities", [])})
    if reading.roce is not None:
        return None, [], {}  # NVUE's RoCE mode holds the plan; nv config show does not print it
    if not reading.qos_configured and not lossless:
        return None, ["qos"], {}  # nothing of the lossless plan: a factory switch
    if desired.qos is None:
        raise ValueError("nv config show: qos is configured but the intent has none for this device")
    tc_of = {cls.priority: cls.traffic_class for cls in desired.qos.classes}
    per_port = {p: _port_values(q, tc_of) for p, q in reading.port_qos.items()}
    qos: dict[str, Any] = {"lossless_priorities": lossless}
    fields = ["qos.lossless_priorities"]
    if reading.priority_to_queue is not None:
        qos["pfc_priority_to_queue"] = reading.priority_to_queue  # switch priority -> egress queue
        fields.append("qos.pfc_priority_to_queue")
    common: dict[str, Any] = {}
    for key in QOS_FIELDS.values():
        values = [v[key] for v in per_port.values() if key in v]
        if values and len(values) == len(per_port):
            common[key] = qos[key] = _common(values)
            fields.append(f"qos.{key}")
    settings = {
        port: PortSettings.model_validate({k: v for k, v in values.items() if k in common})
        for port, values in per_port.items()
        if any(values.get(k) != common[k] for k in common)
    }
    return qos, fields, settings


def _port_values(read: dict[str, Any], tc_of: dict[int, int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if read.get("trust") is not None:
        out["trust"] = read["trust"]
        if read["trust"] == "dscp" and "dscp_to_priority" in read:
            # DSCP -> switch priority -> the intent's traffic class carrying that priority
            out["dscp_to_tc"] = {d: tc_of.get(p, p) for d, p in read["dscp_to_priority"].items()}
    for key in ("schedulers", "ecn"):
        if key in read:
            out[key] = read[key]
    return out


def _watchdog(reading: ConfigReading, seen: dict[str, dict[str, Any]], desired: Device) -> dict[str, Any] | None:
    ports = [n for n, v in seen.items() if v.get("pfc_watchdog") and v.get("pfc_priorities")]
    if not ports or reading.watchdog is None or reading.priority_to_queue is None:
        return None
    poll, polls = reading.watchdog["polling-interval"], reading.watchdog["robustness"]
    want = desired.pfc_watchdog
    # xoff writes robustness = ceil(detection / poll): the intent's detection time is what runs when it rounds so
    same = want is not None and max(1, math.ceil(want.detection_ms / poll)) == polls
    to_queue = reading.priority_to_queue
    return {
        "poll_interval_ms": poll,
        "detection_ms": want.detection_ms if same and want is not None else polls * poll,
        "restoration_ms": want.restoration_ms if want is not None else poll,
        "action": "drop",  # the only mitigation NVUE has
        "ports": ordered_like(ports, want.ports if want is not None else list(desired.interfaces)),
        "queues": sorted({to_queue[p] for n in ports for p in seen[n]["pfc_priorities"]}),
    }


def _bgp(
    reading: ConfigReading, seen: dict[str, dict[str, Any]], desired: Device
) -> tuple[dict[str, Any] | None, list[str]]:
    values = reading.bgp
    if values is None:
        return None, [] if "bgp" in reading.unread else ["bgp"]
    want = desired.bgp
    peers = {n.address: n.peer for n in want.neighbors} if want is not None else {}
    local = {IPv4Interface(a).network: n for n, v in seen.items() for a in v.get("addresses", [])}
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
    for key in ("router_id", "max_paths"):
        if values[key] is not None:
            data[key] = values[key]
            fields.append(f"bgp.{key}")
        elif want is None:  # observed BGP intent does not have: the model needs a value
            data[key] = "" if key == "router_id" else 0
    return data, fields
