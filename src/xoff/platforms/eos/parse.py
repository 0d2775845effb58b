"""EOS ``show running-config`` -> the FabricState values it carries (the inverse of ``render``).

EOS prints sections as a header line and children indented by three spaces per level. The parser
reads the sections xoff renders (hostname, interfaces, ``qos map``, the PFC watchdog, ``router
bgp``) and skips the rest of a real switch's configuration (aaa, users, spanning-tree, ...). Inside
what it reads it is strict: a line of a known kind in an unexpected form is an ``EosParseError``
naming the line, never skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xoff.platforms.eos.interfaces import LANE_SPEEDS


class EosParseError(ValueError):
    pass


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
    trust: str | None = None
    pfc_on: bool = False
    pfc_priorities: list[int] = field(default_factory=list)
    pfc_watchdog: bool = False
    tx_queues: dict[int, dict[str, object]] = field(default_factory=dict)


@dataclass
class EosBgp:
    asn: int
    router_id: str | None = None
    max_paths: int | None = None
    neighbors: dict[str, dict[str, object]] = field(default_factory=dict)  # address -> remote_asn, description
    networks: list[str] = field(default_factory=list)


@dataclass
class EosConfig:
    hostname: str | None = None
    interfaces: dict[str, EosInterface] = field(default_factory=dict)
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    watchdog: dict[str, str] = field(default_factory=dict)  # timeout, recovery-time, polling-interval, action
    bgp: EosBgp | None = None
    static_routes: list[tuple[str, str, str | None]] = field(default_factory=list)  # prefix, next hop, interface


# ip route PREFIX [INTERFACE] [NEXT-HOP] [DISTANCE] [tag N] [name X] (default VRF)
_STATIC = re.compile(
    r"^ip route (\d+\.\d+\.\d+\.\d+/\d+)(?: ([A-Z][A-Za-z-]*[\d/.]+))?(?: (\d+\.\d+\.\d+\.\d+))?(?: .*)?$"
)


def tree(text: str) -> list[Node]:
    """Lines -> sections by indentation (comment lines ``!`` and ``end`` dropped)."""
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for number, raw in enumerate(text.splitlines(), 1):
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


def _speed(word: str, node: Node) -> int:
    if word not in LANE_SPEEDS:
        raise _error(node, f"unknown speed {word!r}")
    base = word.split("-", 1)[0]
    if base.endswith("t"):
        return int(float(base[:-1]) * 1_000_000)
    return int(base[:-1]) * 1000


def _error(node: Node, message: str) -> EosParseError:
    return EosParseError(f"line {node.number}: {node.line!r}: {message}")


_INT = r"(\d+)"
_IF_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^shutdown$"), "down"),
    (re.compile(r"^no shutdown$"), "up"),
    (re.compile(rf"^mtu {_INT}$"), "mtu"),
    (re.compile(r"^speed (?:forced )?(\S+)$"), "speed"),
    (re.compile(r"^ip address (\d+\.\d+\.\d+\.\d+/\d+)$"), "address"),
    (re.compile(r"^qos trust (dscp|cos)$"), "trust"),
    (re.compile(r"^priority-flow-control on$"), "pfc_on"),
    (re.compile(rf"^priority-flow-control priority {_INT} no-drop$"), "pfc_priority"),
    (re.compile(r"^priority-flow-control pause watchdog$"), "watchdog"),
    (re.compile(rf"^tx-queue {_INT}$"), "tx_queue"),
]
_KNOWN_IF_WORDS = ("shutdown", "mtu", "speed", "ip address", "qos", "priority-flow-control", "tx-queue")
_ECN = re.compile(
    rf"^random-detect ecn minimum-threshold {_INT} bytes maximum-threshold {_INT} bytes max-mark-probability {_INT}$"
)


def _interface(node: Node, name: str) -> EosInterface:  # noqa: C901, PLR0912 -- one branch per interface sub-command in _IF_RULES: a table, read top to bottom
    iface = EosInterface(name=name)
    for child in node.children:
        for pattern, what in _IF_RULES:
            match = pattern.match(child.line)
            if match is None:
                continue
            if what in ("down", "up"):
                iface.admin_up = what == "up"
            elif what == "mtu":
                iface.mtu = int(match[1])
            elif what == "speed":
                iface.speed_mbps = _speed(match[1], child)
            elif what == "address":
                iface.addresses.append(match[1])
            elif what == "trust":
                iface.trust = match[1]
            elif what == "pfc_on":
                iface.pfc_on = True
            elif what == "pfc_priority":
                iface.pfc_priorities.append(int(match[1]))
            elif what == "watchdog":
                iface.pfc_watchdog = True
            else:
                iface.tx_queues[int(match[1])] = _tx_queue(child)
            break
        else:
            if child.line.startswith(_KNOWN_IF_WORDS) and not child.line.startswith("no "):
                raise _error(child, "not a form xoff reads")
    return iface


def _tx_queue(node: Node) -> dict[str, object]:
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
        else:
            raise _error(child, "not a tx-queue form xoff reads")
    return queue


def _bgp(node: Node, asn: int) -> EosBgp:
    bgp = EosBgp(asn=asn)
    for child in node.children:
        line = child.line
        if match := re.match(r"^router-id (\S+)$", line):
            bgp.router_id = match[1]
        elif match := re.match(rf"^maximum-paths {_INT}(?: ecmp {_INT})?$", line):
            bgp.max_paths = int(match[1])
        elif match := re.match(rf"^neighbor (\S+) remote-as {_INT}$", line):
            bgp.neighbors.setdefault(match[1], {})["remote_asn"] = int(match[2])
        elif match := re.match(r"^neighbor (\S+) description (.+)$", line):
            bgp.neighbors.setdefault(match[1], {})["description"] = match[2]
        elif line.startswith("address-family ipv4"):
            for inner in child.children:
                if match := re.match(r"^network (\S+)$", inner.line):
                    bgp.networks.append(match[1])
    return bgp


_WATCHDOG = re.compile(
    r"^priority-flow-control pause watchdog (?:default )?(timeout|recovery-time|polling-interval|action) (\S+)$"
)


def parse_running_config(text: str) -> EosConfig:  # noqa: C901 -- one branch per top-level EOS statement xoff reads (hostname, interface, qos map, PFC watchdog, ...)
    config = EosConfig()
    for node in tree(text):
        line = node.line
        if match := re.match(r"^hostname (\S+)$", line):
            config.hostname = match[1]
        elif match := re.match(r"^interface (\S+)$", line):
            config.interfaces[match[1]] = _interface(node, match[1])
        elif line.startswith("qos map dscp "):
            match = re.match(r"^qos map dscp ([\d ]+) to traffic-class (\d+)$", line)
            if match is None:
                raise _error(node, "not a 'qos map dscp ... to traffic-class N' line")
            for dscp in match[1].split():
                config.dscp_to_tc[int(dscp)] = int(match[2])
        elif line.startswith("priority-flow-control pause watchdog"):
            match = _WATCHDOG.match(line)
            if match is None:
                raise _error(node, "not a PFC watchdog form xoff reads")
            config.watchdog[match[1]] = match[2]
        elif line.startswith("ip route "):
            match = _STATIC.match(line)
            if match is None or (match[2] is None and match[3] is None):
                raise _error(node, "not an 'ip route PREFIX [INTERFACE] [NEXT-HOP]' line")
            config.static_routes.append((match[1], match[3] or "", match[2]))
        elif match := re.match(rf"^router bgp {_INT}$", line):
            if config.bgp is not None:
                raise _error(node, "a second router bgp")
            config.bgp = _bgp(node, int(match[1]))
    return config
