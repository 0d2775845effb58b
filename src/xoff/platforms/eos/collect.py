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
from xoff.contracts.collect import Command, DeviceObservation, parse_error, read
from xoff.contracts.fib import as_routes
from xoff.contracts.observed import BgpSession, LldpNeighbor
from xoff.desired.models import Device, Vrf
from xoff.platforms.eos import counters, fib, ports
from xoff.platforms.eos.evpn_read import EosBgpVrf, route_target
from xoff.platforms.eos.parse import EosConfig, asn_number, parse_running_config

RUNNING = Command("show running-config")
LLDP = Command("show lldp neighbors | json")
BGP = Command("show ip bgp summary | json")
FIB = Command(fib.COMMAND)

INTERFACE_FIELDS = ("kind", "speed_mbps", "mtu", "admin_up", "addresses", "pfc_priorities", "pfc_watchdog", "vrf")
EOS_DEFAULT_MTU = 1500  # an Ethernet port's MTU when running-config has no ``mtu`` line (EOS omits defaults)
LAB_ONLY = "PFC/ECN counters and buffer use: the lab's EOS has no data plane (counters are what the emulator holds)"


def _kind(name: str) -> str:
    if name.startswith("Loopback"):
        return "loopback"
    if name.startswith("Management"):
        return "mgmt"
    return "ethernet"


class Collector:
    platform: ClassVar[str] = "eos"

    def commands(self, desired: Device) -> list[Command]:  # noqa: ARG002 (the same on every EOS switch)
        return [RUNNING, LLDP, BGP, FIB, counters.PFC, counters.QUEUES, counters.WATCHDOG, counters.ECN]

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        obs = DeviceObservation(device=None, lab_only=[LAB_ONLY])
        name, errors = desired.name, obs.errors
        config = read(outputs, RUNNING, parse_running_config, name, errors)
        if config is not None:
            _observe_config(obs, config, desired)
        json_errors = (ValueError, KeyError, TypeError)  # eAPI JSON read by key: a missing key is a KeyError
        obs.lldp = read(outputs, LLDP, parse_lldp, name, errors, catch=json_errors, describe=_unexpected_json)
        obs.bgp_sessions = read(outputs, BGP, parse_bgp, name, errors, catch=json_errors, describe=_unexpected_json)
        obs.fib = read(outputs, FIB, lambda text: as_routes(fib.parse_route_json(text)), name, errors)
        # each counters command read alone, so a parse error names the one command that printed it
        pfc = read(outputs, counters.PFC, counters.parse_pfc, name, errors)
        queues = read(outputs, counters.QUEUES, counters.parse_queues, name, errors)
        watchdog = read(outputs, counters.WATCHDOG, counters.parse_watchdog, name, errors)
        ecn = read(outputs, counters.ECN, counters.parse_ecn, name, errors)
        obs.counters = counters.port_counters(pfc, queues, watchdog, list(desired.interfaces), ecn)
        return obs


def _unexpected_json(exc: Exception) -> str:
    return f"unexpected JSON: {exc!r}"


def _observe_config(obs: DeviceObservation, config: EosConfig, desired: Device) -> None:
    """The running-config into ``obs``: the Device, the ports that differ, what xoff does not model, and one
    located parse error per modelled line it could not read (the rest is still read)."""
    name = desired.name
    obs.errors += [parse_error(name, RUNNING.text, message) for message in config.errors]
    obs.unmodelled = dict(sorted(config.unmodelled.items()))
    try:
        updates, obs.fields = _updates(config, desired)
        obs.device = observed_device(desired, updates)
    except ValueError as exc:  # the model refused a value the switch holds
        obs.errors.append(parse_error(name, RUNNING.text, str(exc)))
        obs.fields = []
        return
    values = ports.port_values(config, desired)
    obs.port_settings = ports.differing(values, ports.most_common(values, ports.intended(desired)))


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
            remote_asn=asn_number(str(peer["asn"])),
            state=str(peer["peerState"]),
            prefixes_received=int(peer["prefixReceived"]) if "prefixReceived" in peer else None,
        )
        for address, peer in sorted(vrf["peers"].items(), key=lambda kv: _address_order(kv[0]))
    ]


def _address_order(address: str) -> tuple[int, int, str]:
    """IPv4 peers by address, then the rest (IPv6, link-local ``fe80::1%Et3``) as EOS names them."""
    try:
        return (0, int(IPv4Address(address)), "")
    except ValueError:
        return (1, 0, address)


def _updates(config: EosConfig, desired: Device) -> tuple[dict[str, Any], list[str]]:
    seen = {
        n: {
            "kind": _kind(n),
            "speed_mbps": i.speed_mbps,
            "mtu": i.mtu if i.mtu is not None or _kind(n) != "ethernet" or "mtu" in i.unread else EOS_DEFAULT_MTU,
            "admin_up": i.admin_up,
            "addresses": i.addresses,
            "pfc_priorities": sorted(i.pfc_priorities) if i.pfc_on else [],
            "pfc_watchdog": i.pfc_watchdog and i.pfc_on,
            "vrf": i.vrf,
        }
        for n, i in config.interfaces.items()
    }
    updates: dict[str, Any] = {"interfaces": observed_interfaces(desired, seen, keep_kinds=())}
    unread = {f for i in config.interfaces.values() for f in i.unread}  # a line xoff could not read: not observed
    fields = ["interfaces", *interface_paths(f for f in INTERFACE_FIELDS if f not in unread)]
    if config.hostname is not None:
        updates["name"] = config.hostname
        fields.append("name")
    common = ports.most_common(ports.port_values(config, desired), ports.intended(desired))
    qos, qos_fields = _qos(config, desired, common)
    if qos is not None:
        updates["qos"] = qos
    fields += qos_fields
    watchdog, watchdog_fields = _watchdog(config, desired, common)
    if watchdog_fields:
        updates["pfc_watchdog"] = watchdog
    fields += watchdog_fields
    if "static_routes" not in config.unread:
        updates["static_routes"] = observed_static_routes(desired, config.static_routes)
        fields.append("static_routes")
    updates["bgp"] = _bgp(config, desired)
    fields += (
        ["bgp"]
        if config.bgp is None
        else [
            f"bgp.{f}"
            for f in ("asn", "router_id", "max_paths", "neighbors", "networks", "evpn")
            if f"bgp.{f}" not in config.unread
        ]
    )
    updates["vrfs"], vrf_fields = observed_vrfs(config, desired)
    fields += vrf_fields
    return updates, fields


def observed_vrfs(config: EosConfig, desired: Device) -> tuple[list[dict[str, Any]], list[str]]:
    """The tenant VRFs the switch routes for: those with a BGP instance (``router bgp`` ``vrf NAME``) or an L3
    VNI (``interface Vxlan1``), each with its VNI, evpn route target and originated networks as read (absent:
    None / none); the rest of each (tenant, lossless class) is the intent's where it names the VRF, and is
    not judged. A ``vrf instance`` with neither (a management VRF) is not a tenant's."""
    bgp_vrfs = config.bgp.vrfs if config.bgp is not None else {}
    want = {v.name: v for v in desired.vrfs}
    out = []
    for name in sorted(set(bgp_vrfs) | set(config.vrf_vnis)):
        read = bgp_vrfs.get(name, EosBgpVrf())
        update = {
            "vni": config.vrf_vnis.get(name),
            "route_target": route_target(read),
            "networks": ordered_like(read.networks, want[name].networks if name in want else []),
        }
        out.append((want.get(name) or Vrf(name=name, tenant="")).model_copy(update=update).model_dump(mode="json"))
    out = ordered_like(out, list(want), lambda v: v["name"])
    if "vrfs" in config.unread:  # a VNI line xoff could not read: which VRFs have which VNI is not observed
        return out, ["vrfs.*.route_target", "vrfs.*.networks"]
    return out, ["vrfs", "vrfs.*.vni", "vrfs.*.route_target", "vrfs.*.networks"]


def _qos(config: EosConfig, desired: Device, common: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The switch's QoS: its maps and the most common per-port values (the differing ports: ``ports.py``).
    QoS configured on a switch whose intent has none cannot be held in a Device: not observed."""
    fabric_ports = [i for i in config.interfaces.values() if i.trust is not None or i.tx_queues]
    if not config.dscp_to_tc and not fabric_ports:
        return None, ["qos"]
    if desired.qos is None:
        return None, []
    lossless = sorted({p for i in config.interfaces.values() if i.pfc_on for p in i.pfc_priorities})
    qos: dict[str, Any] = {
        "dscp_to_tc": dict(sorted(config.dscp_to_tc.items())),
        "schedulers": common.get("schedulers", {}),
        "ecn": common.get("ecn", {}),
        "lossless_priorities": lossless,
    }
    fields = [
        f for f in ("qos.dscp_to_tc", "qos.schedulers", "qos.ecn", "qos.lossless_priorities") if f not in config.unread
    ]
    if "trust" in common:
        qos["trust"] = common["trust"]
        fields.append("qos.trust")
    return qos, fields


WATCHDOG_NEEDS = ("watchdog_action", "watchdog_detection_ms", "watchdog_restoration_ms", "watchdog_poll_ms")


def _watchdog(config: EosConfig, desired: Device, common: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """The PFC watchdog as most ports run it; not observed where the switch does not show all of it
    (a timer left at EOS's default, ``polling-interval auto``, an action FabricState has no name for)."""
    enabled = [n for n, i in config.interfaces.items() if i.pfc_on and i.pfc_watchdog]
    if not config.watchdog and not enabled:
        return None, ["pfc_watchdog"]
    values = (
        {**ports.watchdog_settings(config.watchdog), **common} if enabled else ports.watchdog_settings(config.watchdog)
    )
    if any(k not in values for k in WATCHDOG_NEEDS):
        return None, []
    reference = desired.pfc_watchdog.ports if desired.pfc_watchdog is not None else list(desired.interfaces)
    return {
        "poll_interval_ms": values["watchdog_poll_ms"],
        "detection_ms": values["watchdog_detection_ms"],
        "restoration_ms": values["watchdog_restoration_ms"],
        "action": values["watchdog_action"],
        "ports": ordered_like(enabled, reference),
        # EOS watches the no-drop priorities, and priority N is queue N on EOS
        "queues": sorted({p for n in enabled for p in config.interfaces[n].pfc_priorities}),
    }, ["pfc_watchdog"]


def _bgp(config: EosConfig, desired: Device) -> dict[str, Any] | None:
    bgp = config.bgp
    if bgp is None:
        return None
    local = {IPv4Interface(a).network: n for n, i in config.interfaces.items() for a in i.addresses}
    neighbors = []
    for address, values in bgp.neighbors.items():
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
        "evpn": bool(bgp.evpn_peers),
    }
