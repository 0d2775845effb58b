"""The device's configuration as data, and the running-config text EOS prints for it.

Only what the grammar (``commands.py``, ``system_cmds.py``) can set exists here. ``render`` prints it
in EOS's order (the order of a real ``show running-config``: ``no aaa root``, ``username``,
``transceiver``, ``service routing``, ``hostname`` (with ``ip name-server`` and ``dns domain``), ``ntp``,
``logging``, ``spanning-tree``, ``system l1``, ``management api``, interfaces, ``ip routing``, ``ip route``,
``qos``, ``router bgp``) with EOS's normalisation: defaults are not shown (``no shutdown``, ``priority-flow-control priority
N drop``, an MTU of 1500), interfaces are sorted by type and number, BGP neighbours by address,
``qos map`` values are grouped one line per traffic class. ``no ip routing`` is shown, as EOS does.
Static routes (``ip route``) follow ``ip routing`` in their own section, sorted by prefix, then
interface, then next hop; the default administrative distance (1) is not shown.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from xoff.lab.emulators.eos import ifnames
from xoff.lab.emulators.eos.evpn_model import BgpVrf, Evpn, Vxlan

DEFAULT_MTU = 1500
INDENT = "   "


@dataclass
class Ecn:
    min: int
    min_unit: str
    max: int
    max_unit: str
    probability: int | None = None
    weight: int | None = None

    def line(self) -> str:
        text = f"random-detect ecn minimum-threshold {self.min} {self.min_unit} maximum-threshold {self.max} {self.max_unit}"
        if self.probability is not None:
            text += f" max-mark-probability {self.probability}"
        if self.weight is not None:
            text += f" weight {self.weight}"
        return text


@dataclass
class TxQueue:
    strict: bool | None = None  # True: "priority strict"; False: "no priority" (round robin); None: not set
    bandwidth_percent: int | None = None
    ecn: Ecn | None = None

    def lines(self) -> list[str]:
        out: list[str] = []
        if self.strict is not None:
            out.append("priority strict" if self.strict else "no priority")
        if self.bandwidth_percent is not None:
            out.append(f"bandwidth percent {self.bandwidth_percent}")
        if self.ecn is not None:
            out.append(self.ecn.line())
        return out


@dataclass
class Interface:
    name: str
    description: str | None = None
    shutdown: bool = False
    mtu: int | None = None
    speed: str | None = None
    routed: bool = False  # "no switchport" (Ethernet only; EOS Ethernet ports are switchports by default)
    load_interval: int | None = None
    fec: str | None = None  # error-correction encoding fire-code | reed-solomon
    switchport_mode: str | None = None  # access (the default, not shown) | trunk
    access_vlan: int | None = None  # 1 (the default) is not shown
    vrf: str | None = None
    lldp_off: set[str] = field(default_factory=set)  # "transmit", "receive": shown as "no lldp ..."
    ipv6_enable: bool = False
    wd_port_action: str | None = None  # priority-flow-control pause watchdog port action ...
    wd_port_timer: str | None = None  # "timeout T polling-interval P recovery-time R[ forced]"
    addresses: list[str] = field(default_factory=list)  # primary first, then secondaries
    qos_trust: str | None = None  # dscp | cos
    pfc_on: bool = False
    pfc_no_drop: set[int] = field(default_factory=set)
    pfc_watchdog: bool = False
    tx_queues: dict[int, TxQueue] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return ifnames.kind(self.name)

    def lines(self) -> list[str]:
        """The interface's body in EOS's order, defaults left out."""
        out = self._port_lines() + self._switchport_lines()
        if self.vrf is not None:
            out.append(f"vrf {self.vrf}")
        out += [f"ip address {addr}" + (" secondary" if i else "") for i, addr in enumerate(self.addresses)]
        out += ["ipv6 enable"] if self.ipv6_enable else []
        out += self._qos_lines()
        out.extend(f"no lldp {what}" for what in sorted(self.lldp_off, reverse=True))  # transmit, receive
        for qid in sorted(self.tx_queues):
            body = self.tx_queues[qid].lines()
            if body:
                out.extend(["!", f"tx-queue {qid}", *(INDENT + b for b in body)])
        return out

    def _port_lines(self) -> list[str]:
        words = [
            (self.description is not None, f"description {self.description}"),
            (self.shutdown, "shutdown"),
            (self.load_interval is not None, f"load-interval {self.load_interval}"),
            (self.mtu is not None and self.mtu != DEFAULT_MTU, f"mtu {self.mtu}"),
            (self.speed is not None, f"speed {self.speed}"),
            (self.fec is not None, f"error-correction encoding {self.fec}"),
        ]
        return [line for shown, line in words if shown]

    def _qos_lines(self) -> list[str]:
        out = [f"qos trust {self.qos_trust}"] if self.qos_trust is not None else []
        if self.pfc_on:
            out.append("priority-flow-control on")
        out.extend(f"priority-flow-control priority {p} no-drop" for p in sorted(self.pfc_no_drop))
        if self.pfc_watchdog:
            out.append("priority-flow-control pause watchdog")
        if self.wd_port_action is not None:
            out.append(f"priority-flow-control pause watchdog port action {self.wd_port_action}")
        if self.wd_port_timer is not None:
            out.append(f"priority-flow-control pause watchdog port timer {self.wd_port_timer}")
        return out

    def _switchport_lines(self) -> list[str]:
        if self.routed:
            return ["no switchport"]
        out = []
        if self.access_vlan not in (None, 1):
            out.append(f"switchport access vlan {self.access_vlan}")
        if self.switchport_mode not in (None, "access"):
            out.append(f"switchport mode {self.switchport_mode}")
        return out


@dataclass
class Watchdog:
    timeout: str | None = None
    recovery_time: str | None = None
    polling_interval: str | None = None
    action: str | None = None

    def lines(self) -> list[str]:
        pre = "priority-flow-control pause watchdog"
        out = [f"{pre} default {k} {v}" for k, v in self.defaults().items()]
        if self.action is not None:
            out.append(f"{pre} action {self.action}")
        return out

    def defaults(self) -> dict[str, str]:
        pairs = {
            "timeout": self.timeout,
            "recovery-time": self.recovery_time,
            "polling-interval": self.polling_interval,
        }
        return {k: v for k, v in pairs.items() if v is not None}


@dataclass
class Neighbor:
    remote_as: str | None = None
    description: str | None = None
    extra: dict[str, str] = field(default_factory=dict)  # password, peer group, send-community...: key -> line tail
    activate: bool = False  # "neighbor X activate" under address-family ipv4


NEIGHBOR_EXTRAS = (  # the order EOS prints a neighbour's other lines in (AVD's router-bgp.j2)
    "remove-private-as",
    "ebgp-multihop",
    "update-source",
    "bfd",
    "password",
    "send-community",
    "maximum-routes",
)


def _extra_rank(key: str) -> int:
    return NEIGHBOR_EXTRAS.index(key) if key in NEIGHBOR_EXTRAS else len(NEIGHBOR_EXTRAS)


def _peer_key(peer: str) -> tuple[int, int, str]:
    """Peer groups (names) first, as EOS prints them, then IPv4 and IPv6 addresses in numeric order."""
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return 0, 0, peer
    return address.version, int(address), ""


@dataclass
class Bgp:
    asn: str
    router_id: str | None = None
    maximum_paths: int | None = None
    ecmp: int | None = None
    neighbors: dict[str, Neighbor] = field(default_factory=dict)
    networks: set[str] = field(default_factory=set)
    settings: dict[str, str] = field(default_factory=dict)  # "bgp default ipv4-unicast", "distance bgp": line
    evpn: Evpn | None = None  # address-family evpn
    vrfs: dict[str, BgpVrf] = field(default_factory=dict)  # vrf NAME

    def lines(self) -> list[str]:
        out: list[str] = []
        if self.router_id is not None:
            out.append(f"router-id {self.router_id}")
        out.extend(self.settings[k] for k in sorted(self.settings))  # "bgp default ...", then "distance bgp"
        if self.maximum_paths is not None:
            out.append(f"maximum-paths {self.maximum_paths}" + (f" ecmp {self.ecmp}" if self.ecmp is not None else ""))
        for addr in sorted(self.neighbors, key=_peer_key):
            n = self.neighbors[addr]
            if "peer group" in n.extra:  # membership (or the group itself) comes first
                out.append(f"neighbor {addr} {n.extra['peer group']}")
            if n.remote_as is not None:
                out.append(f"neighbor {addr} remote-as {n.remote_as}")
            if n.description is not None:
                out.append(f"neighbor {addr} description {n.description}")
            out.extend(f"neighbor {addr} {n.extra[k]}" for k in sorted(n.extra, key=_extra_rank) if k != "peer group")
        if self.evpn is not None:
            out.extend(self.evpn.lines(sorted(self.neighbors, key=_peer_key)))
        active = [a for a in sorted(self.neighbors, key=_peer_key) if self.neighbors[a].activate]
        if self.networks or active:
            out.extend(["!", "address-family ipv4"])
            out.extend(f"{INDENT}neighbor {a} activate" for a in active)
            nets = sorted(self.networks, key=lambda p: ipaddress.IPv4Network(p, strict=False))
            out.extend(f"{INDENT}network {p}" for p in nets)
        for name in sorted(self.vrfs):
            out.extend(self.vrfs[name].lines(name))
        return out


@dataclass(frozen=True, order=True)
class StaticRoute:
    """One ``ip route``: prefix (network address), egress interface and/or next hop; the route's key."""

    prefix: str
    interface: str = ""
    next_hop: str = ""

    def sort_key(self) -> tuple[ipaddress.IPv4Network, str, int]:
        hop = int(ipaddress.IPv4Address(self.next_hop)) if self.next_hop else -1
        return ipaddress.IPv4Network(self.prefix), self.interface, hop

    def line(self, distance: int) -> str:
        words = ["ip route", self.prefix, self.interface, self.next_hop, "" if distance == 1 else str(distance)]
        return " ".join(w for w in words if w)


@dataclass
class Stanza:
    """A global statement the lab keeps but does not act on (NTP, logging, users, spanning-tree,
    management APIs...): one line, or a block (``management api http-commands`` and its body, by
    key). ``rank`` is its place in EOS's order (``RANKS``)."""

    rank: int
    line: str
    body: dict[str, str] | None = None  # key -> line, for a block

    def lines(self) -> list[str]:
        if self.body is None:
            return [self.line]
        return [self.line, *(INDENT + ln for line in self.body.values() for ln in line.split("\n"))]  # as entered


# where each kind of statement stands in show running-config (a real switch's order)
RANKS: dict[str, int] = {
    "aaa root": 10,
    "username": 20,
    "transceiver": 30,
    "service routing": 40,
    "hostname": 50,
    "dns": 50,  # ip name-server, dns domain: in hostname's section
    "ntp": 56,
    "logging": 58,
    "spanning-tree": 60,
    "system l1": 70,
    "clock": 75,
    "management api http-commands": 80,
    "management api gnmi": 81,
    "management api netconf": 82,
    "vrf instance": 78,
    "aaa": 90,
    "service interface": 25,
    "management ssh": 400,
    "interfaces": 100,
    "ip routing": 200,
    "ip load-sharing": 205,
    "ip route": 210,
    "qos": 230,
    "priority-flow-control": 235,
    "router bgp": 300,
}


@dataclass
class RunningConfig:
    hostname: str = "localhost"
    interfaces: dict[str, Interface] = field(default_factory=dict)
    ip_routing: bool = False
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    cos_to_tc: dict[int, int] = field(default_factory=dict)
    watchdog: Watchdog = field(default_factory=Watchdog)
    bgp: Bgp | None = None
    static_routes: dict[StaticRoute, int] = field(default_factory=dict)  # route -> administrative distance
    stanzas: dict[str, Stanza] = field(default_factory=dict)  # key ("spanning-tree mode", "username admin") -> stanza
    vxlan: Vxlan | None = None  # interface Vxlan1

    def interface(self, name: str) -> Interface:
        """The interface, created on first use (a physical port, once seen, stays)."""
        if name not in self.interfaces:
            self.interfaces[name] = Interface(name)
        return self.interfaces[name]


def map_lines(values: dict[int, int], target: str) -> list[str]:
    """``{dscp: tc}`` -> one ``"v1 v2 to traffic-class tc"`` line per class, ordered by the lowest value."""
    by_tc: dict[int, list[int]] = {}
    for value in sorted(values):
        by_tc.setdefault(values[value], []).append(value)
    groups = sorted(by_tc.items(), key=lambda item: item[1][0])
    return [f"{' '.join(map(str, vs))} to {target} {tc}" for tc, vs in groups]


def _stanza_chunks(stanzas: dict[str, Stanza]) -> list[tuple[int, list[str]]]:
    """Single lines of one kind together in one ``!`` section (sorted), each block in its own."""
    chunks: list[tuple[int, list[str]]] = []
    singles: dict[int, list[str]] = {}
    for key in sorted(stanzas):
        st = stanzas[key]
        if st.body is None:
            singles.setdefault(st.rank, []).append(st.line)
        else:
            chunks.append((st.rank, st.lines()))
    chunks += list(singles.items())
    return chunks


ATTACHED = ("hostname", "ip routing", "ip route")  # sections whose stanzas of the same rank print inside them


def _chunks(cfg: RunningConfig) -> list[tuple[int, list[str]]]:
    dns = [st.line for k, st in sorted(cfg.stanzas.items(), key=lambda kv: (kv[0].startswith("dns"), kv[0]))]
    dns = [line for line in dns if line.startswith(("ip name-server", "dns domain"))]
    out: list[tuple[int, list[str]]] = [(RANKS["hostname"], [f"hostname {cfg.hostname}", *dns])]
    for name in ifnames.sort_names(list(cfg.interfaces)):
        body = [INDENT + line for line in cfg.interfaces[name].lines()]
        out.append((RANKS["interfaces"], [f"interface {name}", *body]))
    if cfg.vxlan is not None:  # after Ethernet, Loopback and Management, as EOS prints it
        out.append((RANKS["interfaces"], cfg.vxlan.lines()))
    vrf_routing = [st.line for k, st in sorted(cfg.stanzas.items()) if st.rank == RANKS["ip routing"]]
    out.append((RANKS["ip routing"], ["ip routing" if cfg.ip_routing else "no ip routing", *vrf_routing]))
    routes = [r.line(cfg.static_routes[r]) for r in sorted(cfg.static_routes, key=StaticRoute.sort_key)]
    routes += [st.line for k, st in sorted(cfg.stanzas.items()) if st.rank == RANKS["ip route"]]
    if routes:
        out.append((RANKS["ip route"], routes))
    qos = [f"qos map cos {line}" for line in map_lines(cfg.cos_to_tc, "traffic-class")]
    qos += [f"qos map dscp {line}" for line in map_lines(cfg.dscp_to_tc, "traffic-class")]
    if qos:
        out.append((RANKS["qos"], qos))
    if cfg.watchdog.lines():
        out.append((RANKS["priority-flow-control"], cfg.watchdog.lines()))
    if cfg.bgp is not None:
        out.append((RANKS["router bgp"], [f"router bgp {cfg.bgp.asn}", *(INDENT + ln for ln in cfg.bgp.lines())]))
    attached = {RANKS[k] for k in ATTACHED}
    return out + _stanza_chunks({k: st for k, st in cfg.stanzas.items() if st.rank not in attached})


def render(cfg: RunningConfig) -> str:
    """The body of ``show running-config`` (from the first ``!`` to ``end``), with trailing newline."""
    out: list[str] = []
    for _, lines in sorted(_chunks(cfg), key=lambda chunk: chunk[0]):  # stable: within a rank, as built
        out.extend(["!", *lines])
    out.extend(["!", "end"])
    return "\n".join(out) + "\n"
