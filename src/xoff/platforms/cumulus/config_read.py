"""``nv config show -o json`` (and ``nv show interface -o json`` for the link values) read into plain
values, independent of the intent: what the corpus' expected files hold and what ``collect.py`` builds
the observed Device from.

Per port (``ports``): kind, IPv4 addresses, speed, MTU, admin state, PFC priorities and cable length (its
PFC profile), PFC watchdog on or off. Per Ethernet port (``port_qos``): the QoS settings NVUE holds per
interface through the profile it applies (``interface <swp> qos mapping|egress-scheduler|congestion-
control profile``, ``default-global`` when none): trust, DSCP -> switch priority, schedulers, ECN. A
field that could not be read is absent from its port and its error is in ``errors``.

With ``qos roce`` set, NVUE derives the lossless plan from its RoCE mode and ``nv config show`` does not
print what it derived: ``roce`` holds the mode and the plan's fields are not observed (``collect.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xoff.platforms.cumulus import parse
from xoff.platforms.cumulus.nvue import Tree
from xoff.platforms.cumulus.unmodelled import unmodelled

QOS_PROFILES = ("mapping", "egress-scheduler", "congestion-control")


@dataclass
class ConfigReading:
    version: str | None = None  # the header's "Cumulus Linux 5.9.1"
    hostname: str | None = None
    ports: dict[str, dict[str, Any]] = field(default_factory=dict)
    port_qos: dict[str, dict[str, Any]] = field(default_factory=dict)
    qos_configured: bool = False
    roce: str | None = None  # qos roce mode (lossless / lossy) when RoCE mode is on
    priority_to_queue: dict[int, int] | None = None
    watchdog: dict[str, int] | None = None  # polling-interval and robustness, NVUE's defaults filled in
    bgp: dict[str, Any] | None = None
    static_routes: list[tuple[str, str, str | None]] = field(default_factory=list)
    vrf_vnis: dict[str, int | None] = field(default_factory=dict)  # tenant VRF -> its L3 VNI (None: none)
    vrfs_unread: list[str] = field(default_factory=list)  # tenant VRFs whose VNI was malformed
    unmodelled: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # sections present but malformed (their errors in ``errors``)


def read_config(text: str, summary: dict[str, dict[str, Any]] | None = None) -> ConfigReading:
    """Raises ``NvueParseError`` only when the output is not NVUE's document at all."""
    header, tree = parse.config_documents(text)
    out = ConfigReading(version=str(header["version"]) if "version" in header else None)
    out.unmodelled = unmodelled(tree)
    errors = out.errors
    hostname = parse.get(tree, "system", "hostname")
    out.hostname = None if hostname is None else str(hostname)
    out.ports = _ports(tree, summary or {}, out.unmodelled, errors)
    qos = parse.as_dict(tree.get("qos"), "qos")
    out.qos_configured = bool(qos)
    roce = parse.as_dict(qos.get("roce"), "qos roce")
    if roce and roce.get("enable", "on") == "on":
        out.roce = str(roce.get("mode", "lossless"))
        for values in out.ports.values():  # NVUE's RoCE mode sets PFC where nv config show does not print it
            values.pop("pfc_priorities", None)
            values.pop("cable_m", None)
    out.priority_to_queue = parse.attempt(errors, lambda: parse.priority_to_queue(tree))
    out.port_qos = {n: _port_qos(tree, n, errors) for n, v in out.ports.items() if v.get("kind") == "ethernet"}
    out.watchdog = parse.attempt(errors, lambda: _watchdog(tree))
    out.bgp = parse.attempt(errors, lambda: parse.bgp_values(tree, out.unmodelled))
    failed = {"priority_to_queue": out.priority_to_queue, "watchdog": out.watchdog}
    out.unread = [name for name, value in failed.items() if value is None]
    if out.bgp is None and parse.get(tree, "router", "bgp", "autonomous-system") is not None:
        out.unread.append("bgp")
    out.static_routes = parse.static_routes(tree)
    out.vrf_vnis = _vrf_vnis(tree, errors, out.vrfs_unread)
    out.unmodelled = dict(sorted(out.unmodelled.items()))
    out.errors = list(dict.fromkeys(errors))
    return out


NOT_TENANT_VRFS = frozenset({"default", "mgmt"})  # the underlay's and the management VRF


def _vrf_vnis(tree: Tree, errors: list[str], unread: list[str]) -> dict[str, int | None]:
    """Each tenant VRF's L3 VNI: ``vrf <name> evpn vni <n>: {}`` (a collection of one; absent: no L3 VNI). A
    malformed one is a located error and that VRF is left out (not observed)."""
    out: dict[str, int | None] = {}
    for name, body in _obj(tree.get("vrf")).items():
        if name in NOT_TENANT_VRFS:
            continue
        vnis = _obj(_obj(_obj(body).get("evpn")).get("vni"))
        keys = [str(k) for k in vnis]
        if len(keys) > 1 or any(not k.isdigit() for k in keys):
            errors.append(f"vrf {name} evpn vni: expected one VNI, got {', '.join(keys)}")
            unread.append(str(name))
            continue
        out[str(name)] = int(keys[0]) if keys else None
    return out


def _watchdog(tree: Tree) -> dict[str, int]:
    body = parse.as_dict(parse.get(tree, "qos", "pfc-watchdog"), "qos pfc-watchdog")
    return {
        "polling-interval": parse.as_int(
            body.get("polling-interval", parse.DEFAULT_POLL_MS), "qos pfc-watchdog polling-interval"
        ),
        "robustness": parse.as_int(body.get("robustness", parse.DEFAULT_ROBUSTNESS), "qos pfc-watchdog robustness"),
    }


def _ports(tree: Tree, summary: dict[str, dict[str, Any]], extra: dict[str, int], errors: list[str]) -> dict[str, Any]:
    """Interface name -> the values read (management ports, cages split by breakout and interface types
    xoff does not model left out; the latter counted in ``extra``)."""
    config = parse.as_dict(tree.get("interface"), "interface")
    out: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys([*config, *summary]):
        body, oper = _obj(config.get(name)), summary.get(name, {})
        link = _obj(body.get("link"))
        if "breakout" in link:
            continue  # a cage split into swpNsM ports, not a port
        kind_text = str(oper.get("type") or body.get("type") or "")
        kind = parse.KINDS.get(kind_text)
        if kind is None:
            key = f"interface (type {kind_text or 'not shown'})"
            extra[key] = extra.get(key, 0) + 1
            continue
        if kind != "mgmt":  # the management port is provisioned out of band (see interfaces.py)
            out[name] = _port(tree, name, kind, body, oper, errors)
    return out


def _port(
    tree: Tree, name: str, kind: str, body: dict[str, Any], oper: dict[str, Any], errors: list[str]
) -> dict[str, Any]:
    values: dict[str, Any] = {"kind": kind}
    oper_link, link = _obj(oper.get("link")), _obj(body.get("link"))

    def put(key: str, read: Callable[[], Any]) -> None:
        value = parse.attempt(errors, read)
        if value is not None:
            values[key] = value

    where = f"interface {name}"
    addresses = parse.get(oper, "ip", "address") if "ip" in oper else parse.get(body, "ip", "address")
    put("addresses", lambda: parse.ipv4(addresses, f"{where} ip address", kind == "loopback"))
    if kind != "ethernet":
        return values
    put("speed_mbps", lambda: parse.speed_mbps(oper_link.get("speed", link.get("speed")), f"{where} link speed"))
    put("mtu", lambda: parse.as_int(oper_link.get("mtu", link.get("mtu", parse.DEFAULT_MTU)), f"{where} link mtu"))
    put("admin_up", lambda: parse.admin_up(oper_link, link))
    profile = parse.attempt(errors, lambda: _pfc_profile(tree, name))
    if profile is not None:
        put("pfc_priorities", lambda: sorted(int(p) for p in parse.as_dict(profile[1].get("switch-priority"), where)))
        if profile[0]:
            put(
                "cable_m",
                lambda: parse.as_int(profile[1].get("cable-length", 10), f"qos pfc {profile[0]} cable-length"),
            )
        else:
            values["cable_m"] = None  # no PFC profile: no cable length (switchd sizes no lossless headroom)
    put("pfc_watchdog", lambda: _watchdog_on(body, where))
    vrf = parse.get(body, "ip", "vrf")  # a tenant's VRF; absent: the default VRF
    values["vrf"] = None if vrf is None else str(vrf)
    return values


def _pfc_profile(tree: Tree, port: str) -> tuple[str, dict[str, Any]]:
    """The port's PFC profile and its body; ``("", {})`` when the port has none."""
    name = parse.get(tree, "interface", port, "qos", "pfc", "profile")
    if name is None:
        return "", {}
    body = parse.get(tree, "qos", "pfc", str(name))
    if body is None:
        raise parse.NvueParseError(f"interface {port} qos pfc profile: profile {name!r} does not exist")
    return str(name), parse.as_dict(body, f"qos pfc {name}")


def _watchdog_on(body: dict[str, Any], where: str) -> bool:
    watchdog = parse.get(body, "qos", "pfc-watchdog")
    if watchdog is None:
        return False
    state = parse.as_dict(watchdog, f"{where} qos pfc-watchdog").get("state", "enable")
    if state not in ("enable", "disable"):
        raise parse.NvueParseError(f"{where} qos pfc-watchdog state: {state!r}")
    return bool(state == "enable")


def _obj(value: Any) -> dict[str, Any]:
    """An object of the tree, or empty (a malformed one is reported where its fields are read)."""
    return value if isinstance(value, dict) else {}


def _port_qos(tree: Tree, port: str, errors: list[str]) -> dict[str, Any]:
    """One Ethernet port's QoS settings, through the profiles it applies."""
    names: dict[str, str] = {}
    for kind in QOS_PROFILES:
        name = parse.get(tree, "interface", port, "qos", kind, "profile")
        names[kind] = parse.PROFILE if name is None else str(name)
    out: dict[str, Any] = {"profiles": names}
    for key, read in (
        ("trust", lambda: parse.trust(tree, _exists(tree, port, "mapping", names["mapping"]))),
        ("dscp_to_priority", lambda: parse.dscp_to_priority(tree, _exists(tree, port, "mapping", names["mapping"]))),
        (
            "schedulers",
            lambda: parse.schedulers(tree, _exists(tree, port, "egress-scheduler", names["egress-scheduler"])),
        ),
        ("ecn", lambda: parse.ecn(tree, _exists(tree, port, "congestion-control", names["congestion-control"]))),
    ):
        value = parse.attempt(errors, read)
        if value is not None:
            out[key] = value
    return out


def _exists(tree: Tree, port: str, kind: str, name: str) -> str:
    if name != parse.PROFILE and parse.get(tree, "qos", kind, name) is None:
        raise parse.NvueParseError(f"interface {port} qos {kind} profile: profile {name!r} does not exist")
    return name


@dataclass
class InterfacesReading:
    """``nv show interface -o json`` alone: each port's operational values (the configuration not read)."""

    ports: dict[str, dict[str, Any]] = field(default_factory=dict)
    unmodelled: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def read_interfaces(text: str) -> InterfacesReading:
    out = InterfacesReading()
    summary = parse.interface_summary(text)
    out.ports = _ports({}, summary, out.unmodelled, out.errors)
    for name in out.ports:
        for key in ("pfc_priorities", "pfc_watchdog", "cable_m"):  # the configuration's, not this command's
            out.ports[name].pop(key, None)
    out.unmodelled = dict(sorted(out.unmodelled.items()))
    return out
