"""CONFIG_DB (``config_db.json``) of a SONiC switch, built from its FabricState Device.

Follows reference/lossless.md §1.1 (tables, fields and their YANG constraints), §1.2 (the generic
QoS template: map names, per-port bindings, schedulers, WRED), §1.3 (buffer pools, profiles, PGs
and queues of the traditional model; cable lengths), §1.5 (PFC watchdog) and §6 rule 8 (SONiC's
structural rules; ``"NULL"`` lossless PGs in the dynamic model). JSON has no comments, so this
docstring is the output's citation; the template ``templates/sonic/config_db.json.j2`` points here.

One builder per Device state key: ``device_tables`` (DEVICE_METADATA), ``interface_tables``
(PORT, VRF, INTERFACE with a tenant port's ``vrf_name``, LOOPBACK_INTERFACE), ``bgp_tables`` (BGP_NEIGHBOR), ``static_route_tables``
(STATIC_ROUTE), ``evpn_tables.build`` (VXLAN_TUNNEL, VXLAN_EVPN_NVO, VXLAN_TUNNEL_MAP, the L3 VNIs' VLAN and
VLAN_INTERFACE; ``VRF`` ``vni``), ``qos_tables.build``
(maps, PORT_QOS_MAP, SCHEDULER, QUEUE, WRED_PROFILE), ``buffer_tables.build`` (BUFFER_*,
CABLE_LENGTH, dynamic-model parameters), ``qos_tables.watchdog`` (PFC_WD). Every value is a string,
as SONiC writes CONFIG_DB.

Not written: MGMT_INTERFACE. sonic-mgmt_interface.yang requires a gateway (``gwaddr``; its
``must`` fails without one) and FabricState carries none for the management network.
"""

from __future__ import annotations

import re
from itertools import pairwise

from xoff.buffers import get_asic
from xoff.desired.models import Device, FabricState, Interface
from xoff.platforms.sonic import buffer_tables, evpn_tables, hash_tables, qos_tables
from xoff.platforms.sonic.names import (
    BUFFER_MODELS,
    HWSKU_PLATFORMS,
    ROLE_TYPES,
    ROUTING_CONFIG_MODE,
    router_mac,
)
from xoff.platforms.sonic.tables import ConfigDb, Tables, ethernet_ports

__all__ = ["ConfigDb", "build_config_db", "lanes_of"]

_ETHERNET = re.compile(r"^Ethernet(\d+)$")
MAX_LANES = 8  # the widest SONiC port (8 SerDes lanes: 400G/800G on Spectrum-3/-4, Tomahawk 4/5)


def build_config_db(device: Device, fabric: FabricState) -> ConfigDb:
    """The CONFIG_DB tables of one SONiC switch, in a fixed table order."""
    del fabric  # everything a SONiC switch needs is already in its own Device state
    if device.kind != "switch":
        raise ValueError(f"{device.name}: CONFIG_DB is for switches, not {device.kind}")
    vendor = get_asic(device.asic).vendor if device.asic is not None else None
    out: ConfigDb = {}
    out.update(device_tables(device))
    out.update(interface_tables(device))
    out.update(bgp_tables(device))
    out.update(static_route_tables(device))
    out.update(qos_tables.build(device, vendor))
    out.update(buffer_tables.build(device, vendor))
    out.update(qos_tables.watchdog(device))
    out.update(hash_tables.build(device))
    out.update(evpn_tables.build(device))
    return out


def device_tables(device: Device) -> Tables:
    try:
        role_type = ROLE_TYPES[device.role]
    except KeyError:
        raise ValueError(
            f"{device.name}: no SONiC DEVICE_METADATA type for role {device.role!r} (allowed: {', '.join(ROLE_TYPES)})"
        ) from None
    meta: dict[str, str] = {"hostname": device.name}
    if device.hwsku is not None:
        meta["hwsku"] = device.hwsku
        if device.hwsku in HWSKU_PLATFORMS:
            meta["platform"] = HWSKU_PLATFORMS[device.hwsku]
    meta["mac"] = router_mac(device.name)
    meta["type"] = role_type
    if device.bgp is not None:
        meta["bgp_asn"] = str(device.bgp.asn)
        meta["docker_routing_config_mode"] = ROUTING_CONFIG_MODE
    if device.buffers is not None:
        meta["buffer_model"] = BUFFER_MODELS[device.buffers.model]
    return {"DEVICE_METADATA": {"localhost": meta}}


def lanes_of(ports: list[str]) -> dict[str, list[int]]:
    """Deterministic SerDes lanes per port (PORT.lanes is mandatory in sonic-port.yang).

    SONiC numbers ``EthernetN`` by its first lane, so a port gets lanes N .. N+k-1 with k the
    smallest gap between port numbers (at most 8). Other names are numbered in order, 8 lanes each.
    """
    numbers = [_ETHERNET.match(p) for p in ports]
    if ports and all(numbers):
        firsts = [int(m.group(1)) for m in numbers if m is not None]
        ordered = sorted(firsts)
        gaps = [b - a for a, b in pairwise(ordered) if b > a]
        width = min([*gaps, MAX_LANES])
    else:
        firsts = [i * MAX_LANES for i in range(len(ports))]
        width = MAX_LANES
    return {p: list(range(first, first + width)) for p, first in zip(ports, firsts, strict=True)}


def interface_tables(device: Device) -> Tables:
    ethernet = ethernet_ports(device)
    lanes = lanes_of([i.name for i in ethernet])
    front_panel = {name: n for n, name in enumerate(sorted(lanes, key=lambda p: lanes[p][0]), start=1)}
    port: dict[str, dict[str, str]] = {}
    for iface in ethernet:
        if iface.speed_mbps is None:
            raise ValueError(f"{device.name}:{iface.name}: a SONiC PORT needs a speed")
        fields = {
            "admin_status": "up" if iface.admin_up else "down",
            "alias": f"etp{front_panel[iface.name]}",
            "lanes": ",".join(map(str, lanes[iface.name])),
        }
        if iface.mtu is not None:
            fields["mtu"] = str(iface.mtu)
        fields["speed"] = str(iface.speed_mbps)
        port[iface.name] = fields
    out: Tables = {"PORT": port} if port else {}
    if device.vrfs:  # sonic-vrf.yang VRF_LIST: a tenant's VRF; its BGP instance is in frr.conf
        out["VRF"] = evpn_tables.vrf_fields(device)
    routed = _addressed(ethernet)
    if routed:
        out["INTERFACE"] = routed
    loopbacks = _addressed([i for i in device.interfaces.values() if i.kind == "loopback"])
    if loopbacks:
        out["LOOPBACK_INTERFACE"] = loopbacks
    return out


def _addressed(interfaces: list[Interface]) -> dict[str, dict[str, str]]:
    """``<if>: {}`` then ``<if>|<a.b.c.d/len>: {}`` per address, for interfaces with addresses."""
    out: dict[str, dict[str, str]] = {}
    for iface in interfaces:
        if not iface.addresses:
            continue
        out[iface.name] = {"vrf_name": iface.vrf} if iface.vrf is not None else {}
        for address in iface.addresses:
            out[f"{iface.name}|{address}"] = {}
    return out


def bgp_tables(device: Device) -> Tables:
    """BGP_NEIGHBOR|<address> (the one-key form, sonic-bgp-neighbor.yang BGP_NEIGHBOR_TEMPLATE_LIST):
    the peer's ASN, name and our address on the link. With docker_routing_config_mode split-unified
    FRR runs xoff's frr.conf; SONiC's CLI still names neighbours from this table."""
    if device.bgp is None or not device.bgp.neighbors:
        return {}
    neighbors: dict[str, dict[str, str]] = {}
    for nbr in device.bgp.neighbors:
        neighbors[nbr.address] = {
            "asn": str(nbr.remote_asn),
            "local_addr": _local_address(device, nbr.interface, nbr.address),
            "name": nbr.peer,
        }
    return {"BGP_NEIGHBOR": neighbors}


def static_route_tables(device: Device) -> Tables:
    """STATIC_ROUTE|<prefix> (the one-key form, sonic-static-route.yang STATIC_ROUTE_TEMPLATE_LIST): next
    hops and interfaces comma-separated, in order (ECMP). FRR (staticd) installs them from frr.conf."""
    by_prefix: dict[str, list[tuple[str, str]]] = {}
    for route in device.static_routes:
        by_prefix.setdefault(route.prefix, []).append((route.next_hop, route.interface))
    if not by_prefix:
        return {}
    table = {
        prefix: {"nexthop": ",".join(h for h, _ in hops), "ifname": ",".join(i for _, i in hops)}
        for prefix, hops in by_prefix.items()
    }
    return {"STATIC_ROUTE": table}


def _local_address(device: Device, interface: str, neighbor: str) -> str:
    """Our address on the neighbour's subnet (plain integer arithmetic: ipaddress objects cost
    more than the rest of the table at 10k-GPU scale; FabricState addresses are validated IPv4)."""
    iface = device.interfaces.get(interface)
    theirs = _ipv4(neighbor)
    for address in iface.addresses if iface is not None else []:
        ip, _, length = address.partition("/")
        shift = 32 - int(length)
        if _ipv4(ip) >> shift == theirs >> shift:
            return ip
    raise ValueError(f"{device.name}: BGP neighbour {neighbor} is not on a subnet of {interface}")


def _ipv4(address: str) -> int:
    a, b, c, d = (int(octet) for octet in address.split("."))
    return (a << 24) | (b << 16) | (c << 8) | d
