"""The configuration grammar: EOS's documented CLI for the configuration a GPU fabric's switch carries
(interfaces: description, shutdown, mtu, speed, switchport, ip address; QoS maps and trust, PFC, the PFC
watchdog, tx-queue scheduling and ECN; static routes; ``router bgp``) with the ``no`` forms, and the
global statements around it (``system_cmds``: users, NTP, logging, spanning-tree, management APIs...).
Anything else is refused as EOS refuses it (``% Invalid input``, ``% Incomplete command``,
``% Ambiguous command``).

Each mode has its table; a line that no command of the current mode takes is tried in the parent
modes (as EOS does: ``interface Ethernet2/1`` typed under ``tx-queue 3`` moves to that interface),
which is also how a running-config file is read back, indentation or not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

from xoff.lab.emulators.eos import bgp_cmds, evpn_cmds, ifnames, system_cmds
from xoff.lab.emulators.eos.grammar import Args, Command, CommandError, ParseError, Tokens, match
from xoff.lab.emulators.eos.model import Bgp, Ecn, Neighbor, RunningConfig, StaticRoute, TxQueue


@dataclass(frozen=True)
class Mode:
    """A configuration mode: ``config``, ``if`` (an interface), ``txq`` (a tx-queue of it), ``bgp``, ``af``,
    ``block`` (a global block such as ``management api http-commands``, named by ``block``); for VXLAN-EVPN
    ``vxlan`` (interface Vxlan1), ``af-evpn``, ``bgp-vrf`` and ``vrf-af`` (a VRF of router bgp, named by ``sub``)."""

    kind: str
    intf: str | None = None
    txq: int | None = None
    block: str | None = None  # the stanza key: "management api http-commands", "vrf instance MGMT"
    sub: str | None = None  # a VRF inside the block (management api http-commands -> vrf MGMT)

    @property
    def parent(self) -> Mode | None:
        return {
            "config": None,
            "if": CONFIG,
            "bgp": CONFIG,
            "txq": Mode("if", self.intf),
            "af": Mode("bgp"),
            "vxlan": CONFIG,
            "bgp-vrf": Mode("bgp"),
            "af-evpn": Mode("bgp"),
            "vrf-af": Mode("bgp-vrf", sub=self.sub),
            "block": Mode("block", block=self.block) if self.sub is not None else CONFIG,
        }[self.kind]

    def prompt_suffix(self) -> str:
        """What follows ``config`` in the prompt: ``-if-Et1/1``, ``-if-Et1/1-txq-3``, ``-router-bgp-af``."""
        if self.kind in {"if", "txq"}:
            assert self.intf is not None
            txq = f"-txq-{self.txq}" if self.kind == "txq" else ""
            return f"-if-{ifnames.short(self.intf)}{txq}"
        if self.kind == "block":
            assert self.block is not None
            return system_cmds.prompt_of(self.block) + (f"-vrf-{self.sub}" if self.sub is not None else "")
        return {
            "config": "",
            "bgp": "-router-bgp",
            "af": "-router-bgp-af",
            "af-evpn": "-router-bgp-af",
            "vxlan": "-if-Vx1",
            "bgp-vrf": f"-router-bgp-vrf-{self.sub}",
            "vrf-af": f"-router-bgp-vrf-{self.sub}-af",
        }[self.kind]


CONFIG = Mode("config")
Handler = Callable[[RunningConfig, Mode, Args], Mode | None]


def _bgp(cfg: RunningConfig) -> Bgp:
    assert cfg.bgp is not None  # the bgp and af modes exist only while router bgp does
    return cfg.bgp


# --- global configuration -----------------------------------------------------------------------


def _hostname(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    cfg.hostname = a["name"]


def _interface(cfg: RunningConfig, _m: Mode, a: Args) -> Mode:
    cfg.interface(a["name"])
    return Mode("if", a["name"])


def _vxlan_interface(cfg: RunningConfig, _m: Mode, _a: Args) -> Mode:
    evpn_cmds.vxlan(cfg)
    return Mode("vxlan")


def _no_vxlan_interface(cfg: RunningConfig, _m: Mode, _a: Args) -> None:
    cfg.vxlan = None


def _no_interface(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    name = a["name"]
    if ifnames.kind(name) == "Loopback":
        cfg.interfaces.pop(name, None)
    elif name in cfg.interfaces:  # a physical port cannot go away: it returns to its defaults
        cfg.interfaces[name] = type(cfg.interfaces[name])(name)


def _ip_routing(on: bool) -> Handler:
    def run(cfg: RunningConfig, _m: Mode, _a: Args) -> None:
        cfg.ip_routing = on

    return run


def _network_of(prefix: str) -> str:
    """EOS keeps a static route's prefix as its network (``10.0.0.1/24`` is stored as ``10.0.0.0/24``)."""
    return str(ipaddress.IPv4Network(prefix, strict=False))


def _ip_route(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    route = StaticRoute(_network_of(a["prefix"]), a.get("intf", ""), a.get("nh", ""))
    cfg.static_routes[route] = a.get("distance", 1)


def _no_ip_route(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    """Every route of the prefix that matches what was given (``no ip route P`` removes them all)."""
    prefix = _network_of(a["prefix"])
    for route in list(cfg.static_routes):
        same_hop = a.get("intf", route.interface) == route.interface and a.get("nh", route.next_hop) == route.next_hop
        if route.prefix == prefix and same_hop:
            del cfg.static_routes[route]


def _qos_map(table: str, remove: bool) -> Handler:
    def run(cfg: RunningConfig, _m: Mode, a: Args) -> None:
        target = cfg.dscp_to_tc if table == "dscp" else cfg.cos_to_tc
        for v in a["values"]:
            if not remove:
                target[v] = a["tc"]
            elif target.get(v) == a["tc"]:
                del target[v]

    return run


def _watchdog_default(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    setattr(cfg.watchdog, a["which"].replace("-", "_"), a.get("value"))


def _watchdog_action(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    cfg.watchdog.action = a.get("action")


def _router_bgp(cfg: RunningConfig, _m: Mode, a: Args) -> Mode:
    if cfg.bgp is None:
        cfg.bgp = Bgp(a["asn"])
    elif cfg.bgp.asn != a["asn"]:
        raise CommandError(f"% BGP is already running with AS number {cfg.bgp.asn}")
    return Mode("bgp")


def _no_router_bgp(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    if cfg.bgp is not None and a.get("asn", cfg.bgp.asn) == cfg.bgp.asn:
        cfg.bgp = None


# --- interface ------------------------------------------------------------------------------------


def _set(attr: str, key: str | None, default: object = None) -> Handler:
    """An interface attribute from an argument (``key``) or to a fixed value."""

    def run(cfg: RunningConfig, m: Mode, a: Args) -> None:
        assert m.intf is not None
        setattr(cfg.interface(m.intf), attr, a[key] if key is not None else default)

    return run


def _ip_address(cfg: RunningConfig, m: Mode, a: Args) -> None:
    assert m.intf is not None
    iface = cfg.interface(m.intf)
    addr = a["addr"]
    if addr.endswith("/32") and iface.kind == "Ethernet":
        raise CommandError("% Prefix length must be less than 32")
    if "secondary" in a:
        if not iface.addresses:
            raise CommandError("% Primary address must be configured before secondary")
        if addr not in iface.addresses:
            iface.addresses.append(addr)
    elif iface.addresses:
        iface.addresses[0] = addr
    else:
        iface.addresses.append(addr)


def _no_ip_address(cfg: RunningConfig, m: Mode, a: Args) -> None:
    assert m.intf is not None
    iface = cfg.interface(m.intf)
    addr = a.get("addr")
    if addr is None or (iface.addresses and iface.addresses[0] == addr and "secondary" not in a):
        iface.addresses.clear()
    elif addr in iface.addresses[1:]:
        iface.addresses.remove(addr)


def _speed_forced(cfg: RunningConfig, m: Mode, a: Args) -> None:
    assert m.intf is not None
    cfg.interface(m.intf).speed = f"forced {a['value']}"


def _wd_port_timer(cfg: RunningConfig, m: Mode, a: Args) -> None:
    """``... port timer timeout T polling-interval P recovery-time R [forced]``, kept as EOS prints it."""
    assert m.intf is not None
    line = None
    if "t" in a:
        line = f"timeout {a['t']} polling-interval {a['p']} recovery-time {a['r']}" + (
            " forced" if "forced" in a else ""
        )
    cfg.interface(m.intf).wd_port_timer = line


def _pfc_priority(cfg: RunningConfig, m: Mode, a: Args) -> None:
    assert m.intf is not None
    nodrop = cfg.interface(m.intf).pfc_no_drop
    if a.get("drop") == "no-drop":
        nodrop.add(a["prio"])
    else:  # "drop" is the default, and the "no" form returns to it
        nodrop.discard(a["prio"])


def _tx_queue(cfg: RunningConfig, m: Mode, a: Args) -> Mode:
    assert m.intf is not None
    cfg.interface(m.intf).tx_queues.setdefault(a["q"], TxQueue())
    return Mode("txq", m.intf, a["q"])


def _no_tx_queue(cfg: RunningConfig, m: Mode, a: Args) -> None:
    assert m.intf is not None
    cfg.interface(m.intf).tx_queues.pop(a["q"], None)


def _txq(cfg: RunningConfig, m: Mode) -> TxQueue:
    assert m.intf is not None and m.txq is not None
    return cfg.interface(m.intf).tx_queues.setdefault(m.txq, TxQueue())


def _txq_priority(strict: bool | None) -> Handler:
    def run(cfg: RunningConfig, m: Mode, _a: Args) -> None:
        _txq(cfg, m).strict = strict

    return run


def _txq_bandwidth(cfg: RunningConfig, m: Mode, a: Args) -> None:
    _txq(cfg, m).bandwidth_percent = a.get("pct")


def _txq_ecn(cfg: RunningConfig, m: Mode, a: Args) -> None:
    if a["min"] > a["max"] and a["u1"] == a["u2"]:
        raise CommandError("% Minimum threshold cannot be greater than the maximum threshold")
    _txq(cfg, m).ecn = Ecn(a["min"], a["u1"], a["max"], a["u2"], a.get("prob"), a.get("weight"))


def _txq_no_ecn(cfg: RunningConfig, m: Mode, _a: Args) -> None:
    _txq(cfg, m).ecn = None


# --- router bgp -----------------------------------------------------------------------------------


def _router_id(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    _bgp(cfg).router_id = a.get("id")


def _max_paths(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    bgp = _bgp(cfg)
    if "n" in a and a.get("ecmp", a["n"]) < a["n"]:
        raise CommandError("% ecmp value must be greater than or equal to maximum-paths")
    bgp.maximum_paths, bgp.ecmp = a.get("n"), a.get("ecmp")


def _neighbor(field: str) -> Handler:
    def run(cfg: RunningConfig, _m: Mode, a: Args) -> None:
        bgp = _bgp(cfg)
        n = bgp.neighbors.get(a["peer"])
        if n is None:
            if field != "remote_as":
                raise CommandError(f"% Neighbor {a['peer']} does not exist; configure its remote-as first")
            n = bgp.neighbors[a["peer"]] = Neighbor()
        setattr(n, field, a["value"])

    return run


def _no_neighbor(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    bgp = _bgp(cfg)
    what = a.get("what")
    if what is None or what == "remote-as":
        bgp.neighbors.pop(a["peer"], None)
    elif a["peer"] in bgp.neighbors:
        bgp.neighbors[a["peer"]].description = None


def _address_family(_c: RunningConfig, _m: Mode, _a: Args) -> Mode:
    return Mode("af")


def _network(add: bool) -> Handler:
    def run(cfg: RunningConfig, _m: Mode, a: Args) -> None:
        nets = _bgp(cfg).networks
        if add:
            nets.add(a["prefix"])
        else:
            nets.discard(a["prefix"])

    return run


def _af_evpn(cfg: RunningConfig, _m: Mode, _a: Args) -> Mode:
    evpn_cmds.evpn(cfg)
    return Mode("af-evpn")


def _bgp_vrf(cfg: RunningConfig, _m: Mode, a: Args) -> Mode:
    evpn_cmds.bgp_vrf(cfg, a["vrf"])
    return Mode("bgp-vrf", sub=a["vrf"])


def _no_bgp_vrf(cfg: RunningConfig, _m: Mode, a: Args) -> None:
    _bgp(cfg).vrfs.pop(a["vrf"], None)


def _vrf_af(_c: RunningConfig, m: Mode, _a: Args) -> Mode:
    return Mode("vrf-af", sub=m.sub)


def _in_vrf(handler: evpn_cmds.Handler) -> Handler:
    def run(cfg: RunningConfig, m: Mode, a: Args) -> None:
        handler(cfg, m.sub, a)

    return run


def _cmds(*pairs: tuple[str, Handler]) -> list[Command]:
    return [Command(p, h) for p, h in pairs]


def _system(handler: system_cmds.Handler) -> Handler:
    def run(cfg: RunningConfig, _m: Mode, a: Args) -> Mode | None:
        block = handler(cfg, a)
        return Mode("block", block=block) if block is not None else None

    return run


def _in_block(handler: Callable[[RunningConfig, str, Args], None]) -> Handler:
    def run(cfg: RunningConfig, m: Mode, a: Args) -> None:
        assert m.block is not None
        handler(cfg, m.block, a)

    return run


WD = "priority-flow-control pause watchdog"
GLOBAL = _cmds(
    ("hostname <name:word>", _hostname),
    ("interface <name:intf>", _interface),
    ("no interface <name:intf>", _no_interface),
    ("interface <name:vxlan>", _vxlan_interface),
    ("no interface <name:vxlan>", _no_vxlan_interface),
    ("ip routing", _ip_routing(True)),
    ("no ip routing", _ip_routing(False)),
    ("ip route <prefix:prefix> <intf:intf> [<nh:ipv4>] [<distance:1-255>]", _ip_route),
    ("ip route <prefix:prefix> <nh:ipv4> [<distance:1-255>]", _ip_route),
    ("no ip route <prefix:prefix> [<intf:intf>] [<nh:ipv4>] [<distance:1-255>]", _no_ip_route),
    ("qos map dscp <values:dscp+> to traffic-class <tc:0-7>", _qos_map("dscp", False)),
    ("no qos map dscp <values:dscp+> to traffic-class <tc:0-7>", _qos_map("dscp", True)),
    ("qos map cos <values:cos+> to traffic-class <tc:0-7>", _qos_map("cos", False)),
    ("no qos map cos <values:cos+> to traffic-class <tc:0-7>", _qos_map("cos", True)),
    (f"{WD} default <which:timeout|recovery-time> <value:secs2>", _watchdog_default),
    (f"{WD} default <which:=polling-interval> <value:secs3>", _watchdog_default),
    (f"no {WD} default <which:timeout|recovery-time|polling-interval>", _watchdog_default),
    (f"{WD} action <action:drop|errdisable|notify-only>", _watchdog_action),
    (f"no {WD} action", _watchdog_action),
    ("router bgp <asn:asn>", _router_bgp),
    ("no router bgp [<asn:asn>]", _no_router_bgp),
    *((pattern, _system(handler)) for pattern, handler in system_cmds.GLOBAL),
)


def _vrf(cfg: RunningConfig, m: Mode, a: Args) -> None:
    """EOS removes the interface's addresses when its VRF changes."""
    assert m.intf is not None
    iface = cfg.interface(m.intf)
    if iface.vrf != a.get("vrf"):
        iface.addresses.clear()
    iface.vrf = a.get("vrf")


def _lldp(on: bool) -> Handler:
    def run(cfg: RunningConfig, m: Mode, a: Args) -> None:
        assert m.intf is not None
        off = cfg.interface(m.intf).lldp_off
        if on:
            off.discard(a["what"])
        else:
            off.add(a["what"])

    return run


COMMON_IF = _cmds(
    ("description <value:line>", _set("description", "value")),
    ("no description", _set("description", None)),
    ("load-interval <value:0-600>", _set("load_interval", "value")),
    ("no load-interval", _set("load_interval", None)),
    ("vrf <vrf:word>", _vrf),
    ("no vrf", _vrf),
    ("shutdown", _set("shutdown", None, True)),
    ("no shutdown", _set("shutdown", None, False)),
    ("ip address <addr:prefix> [<secondary:=secondary>]", _ip_address),
    ("no ip address [<addr:prefix> [<secondary:=secondary>]]", _no_ip_address),
)
ETHERNET = COMMON_IF + _cmds(
    ("mtu <value:mtu>", _set("mtu", "value")),
    ("no mtu", _set("mtu", None)),
    ("speed <value:speed>", _set("speed", "value")),
    ("speed forced <value:forced>", _speed_forced),
    ("no speed", _set("speed", None)),
    ("switchport", _set("routed", None, False)),
    ("no switchport", _set("routed", None, True)),
    ("switchport mode <value:access|trunk>", _set("switchport_mode", "value")),
    ("no switchport mode", _set("switchport_mode", None)),
    ("switchport access vlan <value:1-4094>", _set("access_vlan", "value")),
    ("no switchport access vlan", _set("access_vlan", None)),
    ("error-correction encoding <value:fire-code|reed-solomon>", _set("fec", "value")),
    ("no error-correction encoding", _set("fec", None)),
    ("ipv6 enable", _set("ipv6_enable", None, True)),
    ("no ipv6 enable", _set("ipv6_enable", None, False)),
    ("lldp <what:transmit|receive>", _lldp(True)),
    ("no lldp <what:transmit|receive>", _lldp(False)),
    ("qos trust <value:dscp|cos>", _set("qos_trust", "value")),
    ("no qos trust", _set("qos_trust", None)),
    ("priority-flow-control on", _set("pfc_on", None, True)),
    ("no priority-flow-control", _set("pfc_on", None, False)),
    ("priority-flow-control priority <prio:0-7> <drop:drop|no-drop>", _pfc_priority),
    ("no priority-flow-control priority <prio:0-7>", _pfc_priority),
    ("priority-flow-control pause watchdog", _set("pfc_watchdog", None, True)),
    (f"{WD} port action <value:drop|errdisable|notify-only>", _set("wd_port_action", "value")),
    (f"no {WD} port action", _set("wd_port_action", None)),
    (
        f"{WD} port timer timeout <t:secs2> polling-interval <p:pollint> recovery-time <r:secs2> [<forced:=forced>]",
        _wd_port_timer,
    ),
    (f"no {WD} port timer", _wd_port_timer),
    ("no priority-flow-control pause watchdog", _set("pfc_watchdog", None, False)),
    ("tx-queue <q:queue>", _tx_queue),
    ("no tx-queue <q:queue>", _no_tx_queue),
)
UNITS = "segments|bytes|kbytes|mbytes|milliseconds"
TXQ = _cmds(
    ("priority strict", _txq_priority(True)),
    ("no priority", _txq_priority(False)),
    ("bandwidth percent <pct:percent>", _txq_bandwidth),
    ("no bandwidth percent", _txq_bandwidth),
    (
        f"random-detect ecn minimum-threshold <min:uint> <u1:{UNITS}> maximum-threshold <max:uint> <u2:{UNITS}>"
        " [max-mark-probability <prob:percent>] [weight <weight:weight>]",
        _txq_ecn,
    ),
    ("no random-detect ecn", _txq_no_ecn),
)
BGP = _cmds(
    ("router-id <id:ipv4>", _router_id),
    ("no router-id", _router_id),
    ("maximum-paths <n:paths> [ecmp <ecmp:paths>]", _max_paths),
    ("no maximum-paths", _max_paths),
    ("neighbor <peer:peer> remote-as <value:asn>", _neighbor("remote_as")),
    ("neighbor <peer:peer> description <value:line>", _neighbor("description")),
    ("no neighbor <peer:peer> [<what:remote-as|description>]", _no_neighbor),
    ("address-family ipv4", _address_family),
    ("address-family evpn", _af_evpn),
    ("vrf <vrf:word>", _bgp_vrf),
    ("no vrf <vrf:word>", _no_bgp_vrf),
    *bgp_cmds.BGP,
)
AF = _cmds(
    ("network <prefix:prefix>", _network(True)),
    ("no network <prefix:prefix>", _network(False)),
    *bgp_cmds.AF,
)


def _http_vrf(cfg: RunningConfig, m: Mode, a: Args) -> Mode:
    assert m.block is not None
    system_cmds.http_vrf(cfg, m.block, a["vrf"], None)
    return Mode("block", block=m.block, sub=a["vrf"])


def _http_vrf_state(enabled: bool) -> Handler:
    def run(cfg: RunningConfig, m: Mode, _a: Args) -> None:
        assert m.block is not None and m.sub is not None
        system_cmds.http_vrf(cfg, m.block, m.sub, enabled)

    return run


BLOCK_TABLES = {h: _cmds(*((p, _in_block(f)) for p, f in body)) for h, body in system_cmds.BODIES.items()}
BLOCK_TABLES["management api http-commands"] += _cmds(("vrf <vrf:word>", _http_vrf))
HTTP_VRF = _cmds(("shutdown", _http_vrf_state(False)), ("no shutdown", _http_vrf_state(True)))


EVPN_TABLES = {
    "vxlan": _cmds(*((p, _in_vrf(h)) for p, h in evpn_cmds.VXLAN)),
    "af-evpn": _cmds(*((p, _in_vrf(h)) for p, h in evpn_cmds.AF_EVPN)),
    "bgp-vrf": _cmds(*((p, _in_vrf(h)) for p, h in evpn_cmds.BGP_VRF), ("address-family ipv4", _vrf_af)),
    "vrf-af": _cmds(*((p, _in_vrf(h)) for p, h in evpn_cmds.VRF_AF)),
}


def table(mode: Mode) -> list[Command]:
    if mode.kind == "block":
        assert mode.block is not None
        return HTTP_VRF if mode.sub is not None else BLOCK_TABLES[system_cmds.block_of(mode.block).header]
    if mode.kind == "if":
        assert mode.intf is not None
        return ETHERNET if ifnames.kind(mode.intf) == "Ethernet" else COMMON_IF
    if mode.kind in EVPN_TABLES:
        return EVPN_TABLES[mode.kind]
    return {"config": GLOBAL, "txq": TXQ, "bgp": BGP, "af": AF}[mode.kind]


def resolve(mode: Mode, toks: Tokens) -> tuple[Mode, Command, Args]:
    """The mode that takes the line (the current one or a parent) and the command; the current mode's
    ``ParseError`` when none does."""
    first: ParseError | None = None
    m: Mode | None = mode
    while m is not None:
        try:
            cmd, args = match(table(m), toks)
        except ParseError as err:
            first = first or err
            m = m.parent
            continue
        return m, cmd, args
    assert first is not None
    raise first


def execute(cfg: RunningConfig, mode: Mode, line: str) -> Mode:
    """Run one configuration line against ``cfg``; the mode after it. Raises ``ParseError`` or ``CommandError``."""
    toks = Tokens.split(line)
    at, cmd, args = resolve(mode, toks)
    new: Mode | None = cmd.handler(cfg, at, args)
    return new if new is not None else at


@dataclass
class LoadError:
    line_no: int
    line: str
    message: str

    def eos(self) -> str:
        """EOS's form for a failed line of a configuration file (as config replace / eAPI validation print it)."""
        return f"> {self.line}{self.message} at line {self.line_no}"


def load(text: str, base: RunningConfig | None = None) -> tuple[RunningConfig, list[LoadError]]:
    """A configuration file (running-config format) applied line by line to ``base`` (default: empty).

    Comments (``!``) and blank lines are skipped, ``end`` closes the file. Every failed line is
    reported, so a caller that needs atomicity (configure replace) can refuse the whole file.
    """
    cfg = base if base is not None else RunningConfig()
    mode = CONFIG
    errors: list[LoadError] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        if line == "end":
            break
        try:
            mode = execute(cfg, mode, line)
        except ParseError as err:
            errors.append(LoadError(n, raw, "% " + err.detailed()))
        except CommandError as err:
            errors.append(LoadError(n, raw, str(err)))
    return cfg, errors
