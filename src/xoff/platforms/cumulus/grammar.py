"""The NVUE ``nv set`` grammar for the commands xoff writes, and a matcher for command lines.

NVIDIA does not publish NVUE's OpenAPI schema outside the switch image, but its docs print the CLI
grammar that ``nv list-commands`` derives from it. The lines below are those rules, copied as facts
(paths, identifiers and value sets), only for the commands xoff emits:

- ``nvue-5.5``: CumulusNetworks/docs content/cumulus-linux-55/System-Configuration/
  NVIDIA-User-Experience-NVUE/NVUE-Commands.md (the ``nv list-commands`` listing);
- ``whatsnew-5.6``: CumulusNetworks/docs content/cumulus-linux-56/Whats-New/_index.md, "New Commands"
  (the PFC watchdog arrived in 5.6).
- ``nvue-ref-fwd`` / ``nvue-ref-ar``: NVIDIA NVUE command reference, Set and Unset Commands / System
  Forwarding (``ecmp-hash <field> on|off``, 5.2.0; ``on|off`` through 5.14) and Adaptive Routing
  (``router adaptive-routing enable``, ``interface <id> router adaptive-routing enable``, 5.1.0);
  ``hash-seed`` 0-4294967295 as traffic.conf's ``ecmp_hash_seed`` (Cumulus Linux ECMP guide).
- ``nvue-ref-static``: NVIDIA NVUE command reference, Set and Unset Commands / Static Routing
  (``nv set vrf <vrf-id> router static <route-id> via <via-id>``, introduced in Cumulus Linux 5.0.0).

Notation: a literal token; ``<name>`` one identifier token; ``(a|b|N-M|<x>)`` one of the choices;
``N-M`` an integer in that range. Identifier tokens are checked by xoff's reading of the placeholder
(``PLACEHOLDERS``); placeholders not listed there accept any single token.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

GRAMMAR: tuple[tuple[str, str], ...] = (
    ("nv set system hostname <idn-hostname>", "nvue-5.5"),
    ("nv set interface <interface-id> type (swp|eth|bond|loopback|svi|sub|peerlink|tunnel|bridge|vrf)", "nvue-5.5"),
    ("nv set interface <interface-id> link state (up|down)", "nvue-5.5"),
    ("nv set interface <interface-id> link breakout <mode-id>", "nvue-5.5"),
    ("nv set interface <interface-id> link speed (auto|10M|100M|1G|10G|25G|40G|50G|100G|200G|400G|800G)", "nvue-5.5"),
    ("nv set interface <interface-id> link mtu 552-9216", "nvue-5.5"),
    ("nv set interface <interface-id> ip address <ip-prefix-id>", "nvue-5.5"),
    ("nv set interface <interface-id> qos pfc profile <profile-name>", "nvue-5.5"),
    ("nv set interface <interface-id> qos pfc-watchdog state (enable|disable)", "whatsnew-5.6"),
    ("nv set qos traffic-pool <traffic-pool-id> memory-percent 1-100", "nvue-5.5"),
    ("nv set qos mapping <profile-id> trust (l2|l3|port|both)", "nvue-5.5"),
    ("nv set qos mapping <profile-id> dscp <qos-dscp-id> switch-priority 0-7", "nvue-5.5"),
    ("nv set qos egress-queue-mapping <profile-id> switch-priority <qos-sp-id> traffic-class 0-7", "nvue-5.5"),
    ("nv set qos pfc <profile-id> switch-priority <qos-sp-id>", "nvue-5.5"),
    ("nv set qos pfc <profile-id> cable-length 1-100000", "nvue-5.5"),
    ("nv set qos pfc <profile-id> tx (enable|disable)", "nvue-5.5"),
    ("nv set qos pfc <profile-id> rx (enable|disable)", "nvue-5.5"),
    ("nv set qos congestion-control <profile-id> traffic-class <qos-tc-id> min-threshold <value>", "nvue-5.5"),
    ("nv set qos congestion-control <profile-id> traffic-class <qos-tc-id> max-threshold <value>", "nvue-5.5"),
    ("nv set qos congestion-control <profile-id> traffic-class <qos-tc-id> probability 0-100", "nvue-5.5"),
    ("nv set qos congestion-control <profile-id> traffic-class <qos-tc-id> ecn (enable|disable)", "nvue-5.5"),
    ("nv set qos egress-scheduler <profile-id> traffic-class <qos-tc-id> mode (dwrr|strict)", "nvue-5.5"),
    ("nv set qos egress-scheduler <profile-id> traffic-class <qos-tc-id> bw-percent 0-100", "nvue-5.5"),
    ("nv set qos pfc-watchdog polling-interval 100-5000", "whatsnew-5.6"),
    ("nv set qos pfc-watchdog robustness 1-1000", "whatsnew-5.6"),
    ("nv set router bgp enable (on|off)", "nvue-5.5"),
    ("nv set router bgp autonomous-system (1-4294967295|none|leaf|spine)", "nvue-5.5"),
    ("nv set router bgp router-id (none|<ipv4>)", "nvue-5.5"),
    ("nv set vrf <vrf-id> router static <route-id> via <via-id>", "nvue-ref-static"),
    ("nv set vrf <vrf-id> router bgp enable (on|off)", "nvue-5.5"),
    ("nv set vrf <vrf-id> router bgp address-family ipv4-unicast enable (on|off)", "nvue-5.5"),
    ("nv set vrf <vrf-id> router bgp address-family ipv4-unicast network <static-network-id>", "nvue-5.5"),
    ("nv set vrf <vrf-id> router bgp address-family ipv4-unicast multipaths ebgp 1-128", "nvue-5.5"),
    (
        "nv set vrf <vrf-id> router bgp neighbor <neighbor-id> remote-as (1-4294967295|auto|internal|external)",
        "nvue-5.5",
    ),
    ("nv set vrf <vrf-id> router bgp neighbor <neighbor-id> type (numbered|unnumbered)", "nvue-5.5"),
    (
        "nv set system forwarding ecmp-hash (source-ip|destination-ip|ip-protocol|source-port|destination-port"
        "|ipv6-label|ingress-interface) (on|off)",
        "nvue-ref-fwd",
    ),
    ("nv set system forwarding hash-seed 0-4294967295", "nvue-ref-fwd"),
    ("nv set router adaptive-routing enable (on|off)", "nvue-ref-ar"),
    ("nv set interface <interface-id> router adaptive-routing enable (on|off)", "nvue-ref-ar"),
)


def _ipv4(token: str) -> bool:
    try:
        ipaddress.IPv4Address(token)
    except ValueError:
        return False
    return True


def _ipv4_interface(token: str) -> bool:
    try:
        ipaddress.IPv4Interface(token)
    except ValueError:
        return False
    return "/" in token


def _ipv4_network(token: str) -> bool:
    try:
        ipaddress.IPv4Network(token)
    except ValueError:
        return False
    return "/" in token


def _in(lo: int, hi: int) -> Callable[[str], bool]:
    return lambda t: t.isdigit() and lo <= int(t) <= hi


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")
_INTERFACE = re.compile(r"(swp\d+(s\d+)?|lo|eth\d+)\Z")
PLACEHOLDERS: dict[str, Callable[[str], bool]] = {
    "idn-hostname": lambda t: bool(re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?", t)),
    "interface-id": lambda t: bool(_INTERFACE.match(t)),
    "mode-id": lambda t: t in {"1x", "2x", "4x", "8x", "disabled", "loopback"},
    "ip-prefix-id": _ipv4_interface,
    "static-network-id": _ipv4_network,
    "route-id": _ipv4_network,
    "via-id": _ipv4,  # xoff names next hops by address only (NVUE also takes an interface or blackhole)
    "ipv4": _ipv4,
    "neighbor-id": _ipv4,  # numbered sessions only; an interface name would be an unnumbered one
    "profile-id": lambda t: bool(_NAME.match(t)),
    "profile-name": lambda t: bool(_NAME.match(t)),
    "traffic-pool-id": lambda t: t in {"default-lossy", "default-lossless", "mc-lossy", "roce-lossy", "roce-lossless"},
    "vrf-id": lambda t: bool(_NAME.match(t)),
    "qos-dscp-id": _in(0, 63),
    "qos-sp-id": _in(0, 7),
    "qos-tc-id": _in(0, 7),
    "value": _in(0, 4_294_967_295),  # the only <value> xoff writes are byte thresholds
}
_RANGE = re.compile(r"(\d+)-(\d+)\Z")


def _choice(spec: str) -> Callable[[str], bool]:
    if spec.startswith("(") and spec.endswith(")"):
        options = [_choice(opt) for opt in spec[1:-1].split("|")]
        return lambda t: any(o(t) for o in options)
    if spec.startswith("<") and spec.endswith(">"):
        return PLACEHOLDERS.get(spec[1:-1], bool)
    m = _RANGE.match(spec)
    if m:
        return _in(int(m[1]), int(m[2]))
    return lambda t: t == spec


@dataclass(frozen=True)
class Rule:
    text: str
    source: str
    tokens: tuple[Callable[[str], bool], ...]

    def matches(self, words: list[str]) -> bool:
        return len(words) == len(self.tokens) and all(check(w) for check, w in zip(self.tokens, words, strict=True))


RULES: tuple[Rule, ...] = tuple(
    Rule(text, source, tuple(_choice(spec) for spec in text.split())) for text, source in GRAMMAR
)


def rule_for(command: str) -> Rule | None:
    """The grammar rule an ``nv set`` line matches, if any."""
    words = command.split()
    return next((r for r in RULES if r.matches(words)), None)


def unmatched(commands: Iterable[str]) -> list[str]:
    """The ``nv set`` lines no grammar rule accepts (comments and blank lines are skipped)."""
    return [c for c in commands if c.strip() and not c.startswith("#") and rule_for(c) is None]
