"""The part of NVUE's object model the emulator accepts with ``nv set`` / ``nv unset``: paths, identifiers
and value types as NVIDIA documents them, including the many commands xoff never writes but a real
switch accepts (services, descriptions, FEC, bonds, RoCE mode, per-port QoS profiles, ...).

NVIDIA does not publish NVUE's OpenAPI schema outside the switch image; its documentation prints the
``nv list-commands`` rules and each command's value range. Sources (CumulusNetworks/docs):

- ``cl55``: content/cumulus-linux-55/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-Commands.md
  (the ``nv list-commands`` listing) and the NVUE command reference (content/nvue-reference/);
- ``cl56``: content/cumulus-linux-56/Whats-New/_index.md, "New Commands" (PFC watchdog);
- ``qos``: content/cumulus-linux-59/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md (RoCE mode,
  profiles applied per port, traffic pools, ECN/RED);
- ``ports``: content/cumulus-linux-59/Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/
  Switch-Port-Attributes.md (speed, MTU 552-9216, FEC, auto-negotiation, breakout);
- ``sys``: content/cumulus-linux-59/System-Configuration/ (hostname, timezone, NTP, DNS, syslog);
- ``fwd`` / ``ar``: the NVUE command reference, Set and Unset Commands, "System Forwarding" (ecmp-hash
  fields on/off through 5.14, lag-hash; hash-seed 0-4294967295 as traffic.conf's ecmp_hash_seed) and
  "Adaptive Routing" (global and per-interface ``enable``, 5.1.0);
- ``evpn``: content/cumulus-linux-514/Network-Virtualization/Ethernet-Virtual-Private-Network-EVPN/
  Inter-subnet-Routing.md (symmetric routing: ``vrf X evpn vni``, the tenant VRF's ``rd``, ``route-import
  from-evpn route-target``, ``route-export to-evpn route-target``, ``address-family ipv4-unicast route-export
  to-evpn``; its downstream-VNI example and that example's startup.yaml: ``evpn enable``, ``nve vxlan source
  address``, ``nve vxlan arp-nd-suppress``, ``address-family l2vpn-evpn enable`` per VRF and per peer, ``vrf X
  evpn enable``, the VNI and route targets as collection members).

Notation: a literal word; ``<name>`` one identifier (checked by ``PLACEHOLDERS`` when listed, any word
otherwise); ``(a|b|N-M|<x>)`` one of the choices; ``N-M`` an integer in that range. ``MEMBERS`` are the
rules whose last word adds a member to a collection (``ip address 198.18.0.1/31: {}``) rather than
giving a leaf its value.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

SPEED = "(auto|10M|100M|1G|10G|25G|40G|50G|100G|200G|400G|800G)"
ON_OFF = "(on|off)"
ENABLE = "(enable|disable)"
_QOS_PROFILE = "(default-global|<profile-id>)"
RULES_TEXT: tuple[tuple[str, str], ...] = (
    ("system hostname <idn-hostname>", "cl55"),
    ("system timezone <timezone>", "sys"),
    ("service ntp <vrf-id> server <server-id>", "sys"),
    ("service ntp <vrf-id> server <server-id> iburst (on|off)", "sys"),
    ("service dns <vrf-id> server <ipv4>", "sys"),
    ("service syslog <vrf-id> server <server-id> port 1-32767", "sys"),
    ("service syslog <vrf-id> server <server-id> protocol (udp|tcp)", "sys"),
    ("interface <interface-id> type (swp|eth|bond|loopback|svi|sub|peerlink|tunnel|bridge|vrf)", "cl55"),
    ("interface <interface-id> description <text>", "cl55"),
    ("interface <interface-id> link state (up|down)", "cl55"),
    ("interface <interface-id> link breakout <mode-id>", "ports"),
    (f"interface <interface-id> link speed {SPEED}", "ports"),
    ("interface <interface-id> link mtu 552-9216", "ports"),
    ("interface <interface-id> link fec (auto|baser|off|rs|driver-auto)", "ports"),
    (f"interface <interface-id> link auto-negotiate {ON_OFF}", "ports"),
    ("interface <interface-id> ip address <ip-prefix-id>", "cl55"),
    ("interface <interface-id> ip vrf <vrf-id>", "cl55"),
    ("interface <interface-id> bond member <interface-id>", "cl55"),
    (f"interface <interface-id> qos pfc profile {_QOS_PROFILE}", "qos"),
    (f"interface <interface-id> qos mapping profile {_QOS_PROFILE}", "qos"),
    (f"interface <interface-id> qos egress-scheduler profile {_QOS_PROFILE}", "qos"),
    (f"interface <interface-id> qos congestion-control profile {_QOS_PROFILE}", "qos"),
    (f"interface <interface-id> qos pfc-watchdog state {ENABLE}", "cl56"),
    ("qos roce mode (lossless|lossy)", "qos"),
    (f"qos roce enable {ON_OFF}", "qos"),
    ("qos traffic-pool <traffic-pool-id> memory-percent 0-100", "qos"),
    ("qos traffic-pool <traffic-pool-id> switch-priority <qos-sp-id>", "qos"),
    ("qos mapping <profile-id> trust (l2|l3|port|both)", "cl55"),
    ("qos mapping <profile-id> dscp <qos-dscp-id> switch-priority 0-7", "cl55"),
    ("qos mapping <profile-id> pcp <qos-sp-id> switch-priority 0-7", "cl55"),
    ("qos mapping <profile-id> port-default-sp 0-7", "qos"),
    ("qos egress-queue-mapping <profile-id> switch-priority <qos-sp-id> traffic-class 0-7", "cl55"),
    ("qos pfc <profile-id> switch-priority <qos-sp-id>", "cl55"),
    ("qos pfc <profile-id> cable-length 1-100000", "cl55"),
    ("qos pfc <profile-id> port-buffer <value>", "qos"),
    ("qos pfc <profile-id> xoff-threshold <value>", "qos"),
    ("qos pfc <profile-id> xon-threshold <value>", "qos"),
    (f"qos pfc <profile-id> tx {ENABLE}", "cl55"),
    (f"qos pfc <profile-id> rx {ENABLE}", "cl55"),
    ("qos congestion-control <profile-id> traffic-class <qos-tc-id> min-threshold <value>", "cl55"),
    ("qos congestion-control <profile-id> traffic-class <qos-tc-id> max-threshold <value>", "cl55"),
    ("qos congestion-control <profile-id> traffic-class <qos-tc-id> probability 0-100", "cl55"),
    (f"qos congestion-control <profile-id> traffic-class <qos-tc-id> ecn {ENABLE}", "cl55"),
    (f"qos congestion-control <profile-id> traffic-class <qos-tc-id> red {ENABLE}", "qos"),
    ("qos egress-scheduler <profile-id> traffic-class <qos-tc-id> mode (dwrr|strict)", "cl55"),
    ("qos egress-scheduler <profile-id> traffic-class <qos-tc-id> bw-percent 0-100", "cl55"),
    ("qos pfc-watchdog polling-interval 100-5000", "cl56"),
    ("qos pfc-watchdog robustness 1-1000", "cl56"),
    (f"router bgp enable {ON_OFF}", "cl55"),
    ("router bgp autonomous-system (1-4294967295|none|leaf|spine)", "cl55"),
    ("router bgp router-id (none|<ipv4>)", "cl55"),
    ("vrf <vrf-id> router static <route-id> via <via-id>", "cl55"),
    ("vrf <vrf-id> table (auto|1001-1255)", "cl55"),  # Virtual-Routing-and-Forwarding-VRF.md: table ID range
    (f"vrf <vrf-id> router bgp enable {ON_OFF}", "cl55"),
    (f"vrf <vrf-id> router bgp address-family ipv4-unicast enable {ON_OFF}", "cl55"),
    ("vrf <vrf-id> router bgp address-family ipv4-unicast network <static-network-id>", "cl55"),
    ("vrf <vrf-id> router bgp address-family ipv4-unicast multipaths ebgp 1-128", "cl55"),
    (f"vrf <vrf-id> router bgp address-family ipv4-unicast redistribute connected enable {ON_OFF}", "cl55"),
    ("vrf <vrf-id> router bgp neighbor <neighbor-id> remote-as (1-4294967295|auto|internal|external)", "cl55"),
    ("vrf <vrf-id> router bgp neighbor <neighbor-id> type (numbered|unnumbered)", "cl55"),
    (
        "system forwarding ecmp-hash (source-ip|destination-ip|ip-protocol|source-port|destination-port|ipv6-label"
        "|ingress-interface|gtp-teid|inner-source-ip|inner-destination-ip|inner-ip-protocol|inner-source-port"
        f"|inner-destination-port|inner-ipv6-label) {ON_OFF}",
        "fwd",
    ),
    ("system forwarding hash-seed 0-4294967295", "fwd"),
    (f"router adaptive-routing enable {ON_OFF}", "ar"),
    (f"interface <interface-id> router adaptive-routing enable {ON_OFF}", "ar"),
    (f"evpn enable {ON_OFF}", "evpn"),
    (f"nve vxlan enable {ON_OFF}", "evpn"),
    ("nve vxlan source address <ipv4>", "evpn"),
    (f"nve vxlan arp-nd-suppress {ON_OFF}", "evpn"),
    (f"vrf <vrf-id> evpn enable {ON_OFF}", "evpn"),
    ("vrf <vrf-id> evpn vni 1-16777214", "evpn"),
    ("vrf <vrf-id> router bgp rd <rd-id>", "evpn"),
    ("vrf <vrf-id> router bgp route-import from-evpn route-target <route-target-id>", "evpn"),
    ("vrf <vrf-id> router bgp route-export to-evpn route-target <route-target-id>", "evpn"),
    (f"vrf <vrf-id> router bgp address-family ipv4-unicast route-export to-evpn enable {ON_OFF}", "evpn"),
    (f"vrf <vrf-id> router bgp address-family l2vpn-evpn enable {ON_OFF}", "evpn"),
    (f"vrf <vrf-id> router bgp neighbor <neighbor-id> address-family l2vpn-evpn enable {ON_OFF}", "evpn"),
    (f"vrf <vrf-id> router bgp peer-group <profile-id> address-family l2vpn-evpn enable {ON_OFF}", "evpn"),
)
MEMBERS = frozenset(
    {
        "service ntp <vrf-id> server <server-id>",
        "service dns <vrf-id> server <ipv4>",
        "interface <interface-id> link state (up|down)",
        "interface <interface-id> link breakout <mode-id>",
        "interface <interface-id> ip address <ip-prefix-id>",
        "interface <interface-id> bond member <interface-id>",
        "qos traffic-pool <traffic-pool-id> switch-priority <qos-sp-id>",
        "qos pfc <profile-id> switch-priority <qos-sp-id>",
        "vrf <vrf-id> router bgp address-family ipv4-unicast network <static-network-id>",
        "vrf <vrf-id> evpn vni 1-16777214",
        "vrf <vrf-id> router bgp route-import from-evpn route-target <route-target-id>",
        "vrf <vrf-id> router bgp route-export to-evpn route-target <route-target-id>",
    }
)


def _parses(kind: type) -> Callable[[str], bool]:
    def check(token: str) -> bool:
        try:
            kind(token)
        except ValueError:
            return False
        return kind is ipaddress.IPv4Address or "/" in token

    return check


def _in(lo: int, hi: int) -> Callable[[str], bool]:
    return lambda t: t.isdigit() and lo <= int(t) <= hi


def _match(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda t: bool(compiled.fullmatch(t))


_NAME = r"[A-Za-z][A-Za-z0-9_.-]*"
PLACEHOLDERS: dict[str, Callable[[str], bool]] = {
    "idn-hostname": _match(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"),
    "interface-id": _match(r"swp\d+(s\d+)?|lo|eth\d+|bond[A-Za-z0-9_-]*|vlan\d+|peerlink(\.4094)?|vxlan\d+|br_\w+"),
    "mode-id": lambda t: t in {"1x", "2x", "4x", "8x", "disabled", "loopback"},
    "ip-prefix-id": lambda t: _parses(ipaddress.IPv4Interface)(t) or t == "dhcp",
    "static-network-id": _parses(ipaddress.IPv4Network),
    "route-id": _parses(ipaddress.IPv4Network),
    "via-id": lambda t: _parses(ipaddress.IPv4Address)(t) or t == "blackhole" or bool(re.fullmatch(r"swp\d+", t)),
    "ipv4": _parses(ipaddress.IPv4Address),
    "neighbor-id": lambda t: _parses(ipaddress.IPv4Address)(t) or bool(re.fullmatch(r"swp\d+(s\d+)?|peerlink", t)),
    "profile-id": _match(_NAME),
    "vrf-id": _match(_NAME),
    "server-id": _match(r"[A-Za-z0-9][A-Za-z0-9_.:-]*"),
    "timezone": _match(r"[A-Za-z_]+(/[A-Za-z0-9_+-]+)*"),
    "text": bool,
    "traffic-pool-id": lambda t: t in {"default-lossy", "default-lossless", "mc-lossy", "roce-lossy", "roce-lossless"},
    "qos-dscp-id": _in(0, 63),
    "qos-sp-id": _in(0, 7),
    "qos-tc-id": _in(0, 7),
    "value": _in(0, 4_294_967_295),  # byte thresholds
    "rd-id": _match(r"(\d{1,3}(\.\d{1,3}){3}|\d+):\d+"),  # ASN:nn or IPv4:nn
    "route-target-id": _match(r"(\d+|ANY):\d+"),  # <asn>:<vni>; ANY on import (downstream VNI section)
}
_RANGE = re.compile(r"(\d+)-(\d+)\Z")


def choice(spec: str) -> Callable[[str], bool]:
    """The check for one word of a rule."""
    if spec.startswith("(") and spec.endswith(")"):
        options = [choice(opt) for opt in spec[1:-1].split("|")]
        return lambda t: any(o(t) for o in options)
    if spec.startswith("<") and spec.endswith(">"):
        return PLACEHOLDERS.get(spec[1:-1], bool)
    if m := _RANGE.match(spec):
        return _in(int(m[1]), int(m[2]))
    return lambda t: t == spec
