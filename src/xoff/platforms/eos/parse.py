"""EOS ``show running-config`` -> the FabricState values it carries (the inverse of ``render``).

EOS prints sections as a header line and children indented by three spaces per level. The parser
reads what xoff models (hostname, Ethernet / Loopback / Management interfaces, ``qos map``, the PFC
watchdog, static routes, ``router bgp``) and is faithful about the rest of a real switch's
configuration: every top-level command and interface sub-command it does not model (``transceiver``,
``spanning-tree``, ``aaa``, ``username``, ``management api``, ``interface Vlan``, ``description``,
``switchport``, ...) is counted by name in ``EosConfig.unmodelled``, never a refusal (the names carry
no values, so no secret reaches a report). A modelled line whose value xoff cannot read (``mtu
abc``, an unknown speed) is one located error in ``EosConfig.errors`` and the rest is still read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from xoff.platforms.eos import evpn_read
from xoff.platforms.eos.interfaces import LANE_SPEEDS


@dataclass
class Node:
    line: str
    number: int
    children: list[Node] = field(default_factory=list)


@dataclass
class EosInterface:
    name: str
    admin_up: bool = True
    mtu: int | None = None
    speed_mbps: int | None = None
    addresses: list[str] = field(default_factory=list)
    vrf: str | None = None  # ``vrf NAME``: the tenant VRF the port routes in (None: default)
    trust: str | None = None
    pfc_on: bool = False
    pfc_priorities: list[int] = field(default_factory=list)
    pfc_watchdog: bool = False
    # ``priority-flow-control pause watchdog port action|timer ...``: this port's own watchdog settings
    watchdog: dict[str, str] = field(default_factory=dict)
    tx_queues: dict[int, dict[str, object]] = field(default_factory=dict)
    unread: set[str] = field(default_factory=set)  # Interface fields whose line xoff could not read


@dataclass
class EosBgp:
    asn: int
    router_id: str | None = None
    max_paths: int | None = None
    neighbors: dict[str, dict[str, object]] = field(default_factory=dict)  # address -> remote_asn, description
    networks: list[str] = field(default_factory=list)
    evpn_peers: list[str] | None = None  # address-family evpn: the peers it activates (None: no such section)
    vrfs: dict[str, evpn_read.EosBgpVrf] = field(default_factory=dict)  # vrf NAME in router bgp


@dataclass
class EosConfig:
    hostname: str | None = None
    interfaces: dict[str, EosInterface] = field(default_factory=dict)
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    watchdog: dict[str, str] = field(default_factory=dict)  # timeout, recovery-time, polling-interval, action
    bgp: EosBgp | None = None
    static_routes: list[tuple[str, str, str | None]] = field(default_factory=list)  # prefix, next hop, interface
    vrf_vnis: dict[str, int] = field(default_factory=dict)  # interface Vxlan1: vxlan vrf NAME vni N
    unmodelled: Counter[str] = field(default_factory=Counter)  # command name -> how many lines
    errors: list[str] = field(default_factory=list)  # one located message per modelled line xoff could not read
    unread: set[str] = field(default_factory=set)  # Device fields shown in a form xoff cannot hold (not observed)


# ip route PREFIX [INTERFACE] [NEXT-HOP] [DISTANCE] [tag N] [name X] (default VRF)
_STATIC = re.compile(
    r"^ip route (\d+\.\d+\.\d+\.\d+/\d+)(?: ([A-Z][A-Za-z-]*[\d/.]+))?(?: (\d+\.\d+\.\d+\.\d+))?(?: .*)?$"
)
# interfaces xoff models; the others (Vlan, Port-Channel, Vxlan, subinterfaces, ...) are unmodelled
_MODELLED_INTERFACE = re.compile(r"^(Ethernet[\d/]+|Loopback\d+|Management[\d/]+)$")
# a command family whose second word names the command (``ip routing``, ``management api``, ``no aaa root``)
_FAMILIES = frozenset(
    {"aaa", "daemon", "hardware", "ip", "ipv6", "lldp", "logging", "mac", "management", "no", "ntp", "platform"}
    | {"priority-flow-control", "qos", "router", "service", "snmp-server", "spanning-tree", "system", "transceiver"}
)
_KEYWORD = re.compile(r"^[a-z][a-z-]*$")
_TRAILING_NUMBER = re.compile(r"[\d/.]+$")  # Vlan10 -> Vlan, Ethernet4.1 -> Ethernet (a subinterface)


def command_name(line: str) -> str:
    """The name of a configuration command without its values: ``transceiver qsfp default-mode 4x10G`` ->
    ``transceiver qsfp``, ``username admin privilege 15 ... secret ...`` -> ``username``."""
    words = line.split()
    name = [words[0]]
    rest = words[1:]
    while name[-1] in _FAMILIES and rest and _KEYWORD.match(rest[0]):
        name.append(rest.pop(0))
        if len(name) >= 3:
            break
    return " ".join(name)


def tree(text: str) -> list[Node]:
    """Lines -> sections by indentation (comment lines ``!`` and ``end`` dropped)."""
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for number, raw in enumerate(text.expandtabs(8).splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("!") or stripped == "end":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        node = Node(stripped, number)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((indent, node))
    return roots


class _BadValueError(Exception):
    """A modelled line xoff cannot read (becomes one located error; ``field``, the Device field it leaves
    not observed)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


_SPEED = re.compile(r"^(?:forced |auto )?(\d+(?:\.\d+)?)(g|t|m)?(?:-(\d))?(?:full|half)?$")


def _speed(text: str) -> int | None:
    """``400g-8``, ``forced 100gfull``, ``10000full`` -> Mb/s; ``auto`` -> None (negotiated: not configured)."""
    if text == "auto":
        return None
    match = _SPEED.match(text)
    if match is None:
        raise _BadValueError(f"unknown speed {text!r}")
    number, unit, lanes = float(match[1]), match[2], match[3]
    if unit in ("g", "t") and lanes is not None and f"{match[1]}{unit}-{lanes}" not in LANE_SPEEDS:
        raise _BadValueError(f"unknown speed {text!r}")
    scale = {"t": 1_000_000, "g": 1000, "m": 1, None: 1}[unit]
    return int(number * scale)


def _error(node: Node, message: str) -> str:
    return f"line {node.number}: {node.line!r}: {message}"


_INT = r"(\d+)"
_NUMBER = r"(\d+(?:\.\d+)?)"
_IF_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^shutdown$"), "down"),
    (re.compile(r"^no shutdown$"), "up"),
    (re.compile(r"^mtu (.*)$"), "mtu"),
    (re.compile(r"^speed (.*)$"), "speed"),
    (re.compile(r"^ip address (\d+\.\d+\.\d+\.\d+/\d+)(?: secondary)?$"), "address"),
    (re.compile(r"^vrf (\S+)$"), "vrf"),
    (re.compile(r"^qos trust (dscp|cos)$"), "trust"),
    (re.compile(r"^priority-flow-control on$"), "pfc_on"),
    (re.compile(rf"^priority-flow-control priority {_INT} (no-drop|drop)$"), "pfc_priority"),
    (re.compile(r"^priority-flow-control pause watchdog$"), "watchdog"),
    (re.compile(r"^priority-flow-control pause watchdog port action (\S+)$"), "watchdog_action"),
    (re.compile(r"^priority-flow-control pause watchdog port timer (.*)$"), "watchdog_timer"),
    (re.compile(rf"^tx-queue {_INT}$"), "tx_queue"),
]
_FIELD_OF = {"speed": "speed_mbps", "watchdog_timer": "pfc_watchdog"}  # rule -> the Interface field it sets
_PORT_TIMER = re.compile(
    rf"^timeout {_NUMBER} polling-interval (auto|{_NUMBER[1:-1]}) recovery-time {_NUMBER}(?: forced)?$"
)


def _apply(iface: EosInterface, what: str, match: re.Match[str], node: Node, config: EosConfig) -> None:  # noqa: C901, PLR0912 -- one branch per interface sub-command in _IF_RULES: a table, read top to bottom
    if what in ("down", "up"):
        iface.admin_up = what == "up"
    elif what == "mtu":
        if not match[1].isdigit():
            raise _BadValueError("not an MTU in bytes")
        iface.mtu = int(match[1])
    elif what == "speed":
        iface.speed_mbps = _speed(match[1])
    elif what == "address":
        iface.addresses.append(match[1])
    elif what == "vrf":
        iface.vrf = match[1]
    elif what == "trust":
        iface.trust = match[1]
    elif what == "pfc_on":
        iface.pfc_on = True
    elif what == "pfc_priority":
        if match[2] == "no-drop":
            iface.pfc_priorities.append(int(match[1]))
    elif what == "watchdog":
        iface.pfc_watchdog = True
    elif what == "watchdog_action":
        iface.watchdog["action"] = match[1]
    elif what == "watchdog_timer":
        timer = _PORT_TIMER.match(match[1])
        if timer is None:
            raise _BadValueError("not 'timeout T polling-interval P recovery-time R [forced]'")
        iface.watchdog.update({"timeout": timer[1], "polling-interval": timer[2], "recovery-time": timer[3]})
    else:
        iface.tx_queues[int(match[1])] = _tx_queue(node, config)


def _interface(node: Node, name: str, config: EosConfig) -> EosInterface:
    iface = EosInterface(name=name)
    for child in node.children:
        rule = next(((what, m) for pattern, what in _IF_RULES if (m := pattern.match(child.line))), None)
        if rule is None or (rule[0] == "vrf" and not name.startswith("Ethernet")):  # a management VRF: unmodelled
            config.unmodelled[f"interface.{command_name(child.line)}"] += 1
            continue
        try:
            _apply(iface, rule[0], rule[1], child, config)
        except _BadValueError as exc:
            config.errors.append(_error(child, str(exc)))
            iface.unread.add(_FIELD_OF.get(rule[0], rule[0]))
    return iface


_ECN = re.compile(
    rf"^random-detect ecn minimum-threshold {_INT} bytes maximum-threshold {_INT} bytes max-mark-probability {_INT}$"
)


def _tx_queue(node: Node, config: EosConfig) -> dict[str, object]:
    queue: dict[str, object] = {}
    for child in node.children:
        if child.line == "priority strict":
            queue["type"] = "strict"
        elif child.line == "no priority":
            queue["type"] = "dwrr"
        elif match := re.match(rf"^bandwidth percent {_INT}$", child.line):
            queue["percent"] = int(match[1])
        elif match := _ECN.match(child.line):
            queue["ecn"] = (int(match[1]), int(match[2]), int(match[3]))
        elif child.line.startswith("random-detect ecn "):
            # thresholds in kbytes, mbytes, segments or time, or without a probability: FabricState holds
            # bytes and a probability, so the switch's ECN marking is not observed (never a guessed unit)
            config.unread.add("qos.ecn")
            config.unmodelled["interface.tx-queue.random-detect ecn (other units)"] += 1
        else:
            # other units (kbytes, mbytes, milliseconds), guaranteed bandwidth, shape rate, ...
            config.unmodelled[f"interface.tx-queue.{command_name(child.line)}"] += 1
    return queue


_V4 = re.compile(r"^\d+\.\d+\.\d+\.\d+$")


def _bgp_neighbor(bgp: EosBgp, groups: dict[str, dict[str, object]], line: str) -> bool:
    """A ``neighbor`` line of an IPv4 peer or a peer group xoff reads; False: not one (unmodelled)."""
    value: object
    if match := re.match(r"^neighbor (\S+) remote-as (\d+(?:\.\d+)?)$", line):
        name, key, value = match[1], "remote_asn", asn_number(match[2])
    elif match := re.match(r"^neighbor (\S+) description (.+)$", line):
        name, key, value = match[1], "description", match[2]
    elif match := re.match(r"^neighbor (\S+) peer[- ]group (\S+)$", line):
        name, key, value = match[1], "group", match[2]
    else:
        return False
    if _V4.match(name):
        bgp.neighbors.setdefault(name, {})[key] = value
    elif re.match(r"^[A-Za-z][\w-]*$", name) and key != "group":
        groups.setdefault(name, {})[key] = value
    else:
        return False  # an IPv6 or interface peer: FabricState's BGP is IPv4
    return True


def _bgp(node: Node, asn: int, config: EosConfig) -> EosBgp:
    bgp = EosBgp(asn=asn)
    groups: dict[str, dict[str, object]] = {}
    for child in node.children:
        line = child.line
        if match := re.match(r"^router-id (\S+)$", line):
            bgp.router_id = match[1]
        elif match := re.match(rf"^maximum-paths {_INT}(?: ecmp {_INT})?$", line):
            bgp.max_paths = int(match[1])
        elif _bgp_neighbor(bgp, groups, line):
            pass
        elif line == "address-family ipv4":
            for inner in child.children:
                if match := re.match(r"^network (\S+)$", inner.line):
                    bgp.networks.append(match[1])
                else:
                    config.unmodelled[f"router bgp.address-family ipv4.{command_name(inner.line)}"] += 1
        elif line == "address-family evpn":
            bgp.evpn_peers = evpn_read.read_address_family_evpn(child, config.unmodelled)
        elif match := re.match(r"^vrf (\S+)$", line):
            bgp.vrfs[match[1]] = evpn_read.read_bgp_vrf(child, config.unmodelled)
        else:
            config.unmodelled[f"router bgp.{command_name(line)}"] += 1
    _resolve_groups(bgp, groups, node, config)
    return bgp


def _resolve_groups(bgp: EosBgp, groups: dict[str, dict[str, object]], node: Node, config: EosConfig) -> None:
    """A peer group's remote-as for its members that have none; a neighbour left without one is an error and
    BGP neighbours are then not observed."""
    for address, values in list(bgp.neighbors.items()):
        group = groups.get(str(values.pop("group", "")), {})
        if "remote_asn" not in values and "remote_asn" in group:
            values["remote_asn"] = group["remote_asn"]
        if "remote_asn" not in values:
            config.errors.append(_error(node, f"neighbor {address} has no remote-as (itself or its peer group)"))
            config.unread.add("bgp.neighbors")
            del bgp.neighbors[address]


def asn_number(text: str) -> int:
    """An AS number as EOS prints it: ``65001`` or asdot ``65001.1028`` (= 65001 * 65536 + 1028)."""
    high, _, low = text.partition(".")
    return int(high) * 65536 + int(low) if low else int(high)


_WATCHDOG = re.compile(
    r"^priority-flow-control pause watchdog (?:default )?(timeout|recovery-time|polling-interval|action) (\S+)$"
)


def _top(node: Node, config: EosConfig) -> None:
    line = node.line
    if match := re.match(r"^hostname (\S+)$", line):
        config.hostname = match[1]
    elif line.startswith("qos map dscp "):
        match = re.match(r"^qos map dscp ([\d ]+) to traffic-class (\d+)$", line)
        if match is None:
            raise _BadValueError("not a 'qos map dscp ... to traffic-class N' line", "qos.dscp_to_tc")
        for dscp in match[1].split():
            config.dscp_to_tc[int(dscp)] = int(match[2])
    elif match := _WATCHDOG.match(line):
        config.watchdog[match[1]] = match[2]
    elif line.startswith("ip route ") and not line.startswith("ip route vrf "):
        match = _STATIC.match(line)
        if match is None or (match[2] is None and match[3] is None):
            raise _BadValueError("not an 'ip route PREFIX [INTERFACE] [NEXT-HOP]' line", "static_routes")
        config.static_routes.append((match[1], match[3] or "", match[2]))
    elif match := re.match(r"^router bgp (\d+(?:\.\d+)?)$", line):
        if config.bgp is not None:
            raise _BadValueError("a second router bgp")
        config.bgp = _bgp(node, asn_number(match[1]), config)
    elif line.startswith("interface "):
        _interface_section(node, config)
    else:
        config.unmodelled[command_name(line)] += 1


def _interface_section(node: Node, config: EosConfig) -> None:
    line = node.line
    if (match := re.match(r"^interface (\S+)$", line)) and _MODELLED_INTERFACE.match(match[1]):
        config.interfaces[match[1]] = _interface(node, match[1], config)
    elif line == "interface Vxlan1":
        errors: list[str] = []
        config.vrf_vnis = evpn_read.read_vxlan(node, config.unmodelled, errors)
        config.errors += errors
        if errors:
            config.unread.add("vrfs")
    else:
        kind = _TRAILING_NUMBER.sub("", line.split()[1])
        config.unmodelled[f"interface {kind}" + (" subinterface" if "." in line else "")] += 1


def parse_running_config(text: str) -> EosConfig:
    """Every top-level section read; what xoff does not model counted, what it cannot read located."""
    config = EosConfig()
    for node in tree(text):
        try:
            _top(node, config)
        except _BadValueError as exc:
            config.errors.append(_error(node, str(exc)))
            if exc.field is not None:
                config.unread.add(exc.field)
    return config
