"""Running NVUE state -> FabricState values: ``nv config show -o json`` (the applied configuration tree,
the same tree the renderer writes) and ``nv show interface -o json`` (the ports' operational link values).

Reads what xoff renders, strictly: an interface type FabricState has no kind for, a port whose PFC
profile does not exist, a BGP ``remote-as`` given as ``external``/``internal`` or a value of the wrong
type is an ``NvueParseError`` naming the NVUE path, never a silent skip. Where ``nv config show`` omits
a setting the switch runs NVUE's default (the documented ones below, kept in one place each); settings
whose default xoff could not confirm are left unread (see ``collect.py``).

NVUE documented defaults used here (CumulusNetworks/docs content/cumulus-linux-59/Layer-1-and-Switch-
Ports/Quality-of-Service/_index.md): ``default-global`` marks ECN on egress queue 0 with min 150000 B,
max 1500000 B, probability 100 ("Congestion Control (ECN)"); DSCP d -> switch priority d >> 3 under
``trust l3``, switch priority p -> egress queue p ("Trust DSCP", "Egress Queues"); PFC watchdog polling
interval 100 ms and robustness 3 ("PFC Watchdog"); ``link mtu`` 9216 (Switch-Port-Attributes.md).
"""

from __future__ import annotations

import json
from ipaddress import IPv4Address, IPv4Interface
from typing import Any

from xoff.platforms.cumulus.interfaces import SPEEDS
from xoff.platforms.cumulus.nvue import Tree

DEFAULT_MTU = 9216
DEFAULT_ECN = {"ecn": "enable", "min-threshold": 150_000, "max-threshold": 1_500_000, "probability": 100}
DEFAULT_ECN_QUEUES = (0,)
DEFAULT_POLL_MS, DEFAULT_ROBUSTNESS = 100, 3
PROFILE = "default-global"
KINDS = {"swp": "ethernet", "loopback": "loopback", "eth": "mgmt"}
TRUST = {"l3": "dscp", "l2": "pcp"}
MBPS = {text: mbps for mbps, text in SPEEDS.items()}


class NvueParseError(ValueError):
    """Output xoff cannot read into FabricState; the message names the NVUE path."""


def as_dict(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NvueParseError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def as_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise NvueParseError(f"{where}: expected an integer, got {value!r}")
    return value


def get(tree: Tree, *path: str) -> Any:
    node: Any = tree
    for i, key in enumerate(path):
        node = as_dict(node, " ".join(path[:i]) or "(root)").get(key)
        if node is None:
            return None
    return node


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first = text.strip().splitlines()[0] if text.strip() else "empty output"
        raise NvueParseError(f"{what}: not JSON ({exc.msg} at line {exc.lineno}): {first[:200]}") from None


def config_tree(text: str) -> Tree:
    """``nv config show -o json``: ``[{"header": {...}}, {"set": {...}}]`` -> the ``set`` tree."""
    doc = _json(text, "nv config show")
    if not isinstance(doc, list) or not all(isinstance(item, dict) and len(item) == 1 for item in doc):
        raise NvueParseError("nv config show: expected a list of one-key objects (header, set)")
    sets = [item["set"] for item in doc if "set" in item]
    unknown = sorted({key for item in doc for key in item} - {"header", "set"})
    if unknown or len(sets) != 1:
        raise NvueParseError(f"nv config show: expected one 'set' document (found {len(sets)}; other keys {unknown})")
    return as_dict(sets[0], "set")


def interface_summary(text: str) -> dict[str, dict[str, Any]]:
    """``nv show interface -o json``: interface -> its summary (``type``, ``link``, ``ip``)."""
    data = as_dict(_json(text, "nv show interface"), "nv show interface")
    return {name: as_dict(body, f"interface {name}") for name, body in data.items()}


def _ipv4(addresses: Any, where: str, loopback: bool) -> list[str]:
    out: list[str] = []
    for text in as_dict(addresses, where):
        try:
            iface = IPv4Interface(text)
        except ValueError:
            continue  # IPv6, "dhcp": FabricState holds IPv4 interface addresses only
        if loopback and iface.ip.is_loopback:
            continue  # Linux's 127.0.0.1/8 on lo
        out.append(str(iface))
    return out


def pfc_profile(tree: Tree, port: str) -> tuple[str, dict[str, Any]] | None:
    name = get(tree, "interface", port, "qos", "pfc", "profile")
    if name is None:
        return None
    body = get(tree, "qos", "pfc", str(name))
    if body is None:
        raise NvueParseError(f"interface {port} qos pfc profile: profile {name!r} does not exist")
    return str(name), as_dict(body, f"qos pfc {name}")


def priority_to_queue(tree: Tree) -> dict[int, int]:
    mapping = as_dict(get(tree, "qos", "egress-queue-mapping", PROFILE, "switch-priority"), "egress-queue-mapping")
    out = {p: p for p in range(8)}
    for prio, body in mapping.items():
        out[int(prio)] = as_int(
            as_dict(body, f"switch-priority {prio}").get("traffic-class"), f"switch-priority {prio}"
        )
    return out


def interface_values(tree: Tree, summary: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Interface name -> the FabricState Interface fields read (management ports left out)."""
    config = as_dict(tree.get("interface"), "interface")
    out: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys([*config, *summary]):
        body = as_dict(config.get(name), f"interface {name}")
        oper = summary.get(name, {})
        link, oper_link = as_dict(body.get("link"), f"interface {name} link"), as_dict(oper.get("link"), name)
        if "breakout" in link:
            continue  # a cage split into swpNsM ports, not a port
        kind_text = str(oper.get("type") or body.get("type") or "")
        kind = KINDS.get(kind_text)
        if kind is None:
            raise NvueParseError(f"interface {name} type: {kind_text!r} (FabricState has: {', '.join(KINDS)})")
        if kind == "mgmt":
            continue  # the management port is provisioned out of band (see interfaces.py)
        values: dict[str, Any] = {"kind": kind}
        addresses = as_dict(oper.get("ip"), name).get("address") if "ip" in oper else get(body, "ip", "address")
        values["addresses"] = _ipv4(addresses, f"interface {name} ip address", kind == "loopback")
        if kind == "ethernet":
            speed = oper_link.get("speed", link.get("speed"))
            values["speed_mbps"] = MBPS.get(str(speed)) if speed is not None else None
            values["mtu"] = as_int(oper_link.get("mtu", link.get("mtu", DEFAULT_MTU)), f"interface {name} link mtu")
            admin = oper_link.get("admin-status") or next(iter(as_dict(link.get("state"), name)), "down")
            values["admin_up"] = admin == "up"
            profile = pfc_profile(tree, name)
            values["pfc_priorities"] = (
                sorted(int(p) for p in as_dict(profile[1].get("switch-priority"), name)) if profile else []
            )
            if profile is not None:
                values["cable_m"] = as_int(profile[1].get("cable-length", 10), f"qos pfc {profile[0]} cable-length")
            watchdog = get(body, "qos", "pfc-watchdog")
            values["pfc_watchdog"] = watchdog is not None and as_dict(watchdog, name).get("state", "enable") == "enable"
        out[name] = values
    return out


def ecn(tree: Tree) -> dict[int, dict[str, int]]:
    """Egress queue -> ECN thresholds, for the queues ``default-global`` marks (defaults included)."""
    config = as_dict(get(tree, "qos", "congestion-control", PROFILE, "traffic-class"), "congestion-control")
    queues = {int(q) for q in config} | set(DEFAULT_ECN_QUEUES)
    out: dict[int, dict[str, int]] = {}
    for queue in sorted(queues):
        body = {
            **(DEFAULT_ECN if queue in DEFAULT_ECN_QUEUES else {"probability": 100}),
            **as_dict(config.get(str(queue)), ""),
        }
        if body.get("ecn") != "enable":
            continue
        where = f"qos congestion-control {PROFILE} traffic-class {queue}"
        if "min-threshold" not in body or "max-threshold" not in body:
            raise NvueParseError(f"{where}: ECN enabled without min-threshold/max-threshold")
        out[queue] = {
            "min_threshold": as_int(body["min-threshold"], f"{where} min-threshold"),
            "max_threshold": as_int(body["max-threshold"], f"{where} max-threshold"),
            "probability": as_int(body["probability"], f"{where} probability"),
        }
    return out


def schedulers(tree: Tree) -> dict[int, dict[str, Any]]:
    config = as_dict(get(tree, "qos", "egress-scheduler", PROFILE, "traffic-class"), "egress-scheduler")
    out: dict[int, dict[str, Any]] = {}
    for queue, body in config.items():
        cfg = as_dict(body, f"egress-scheduler traffic-class {queue}")
        mode = cfg.get("mode", "dwrr")
        if mode not in {"dwrr", "strict"}:
            raise NvueParseError(f"qos egress-scheduler {PROFILE} traffic-class {queue} mode: {mode!r}")
        weight = cfg.get("bw-percent") if mode == "dwrr" else None
        out[int(queue)] = {"type": mode, "weight": None if weight is None else as_int(weight, f"{queue} bw-percent")}
    return dict(sorted(out.items()))


def dscp_to_priority(tree: Tree) -> dict[int, int]:
    config = as_dict(get(tree, "qos", "mapping", PROFILE, "dscp"), "qos mapping dscp")
    out = {d: d >> 3 for d in range(64)}
    for dscp, body in config.items():
        out[int(dscp)] = as_int(as_dict(body, f"dscp {dscp}").get("switch-priority"), f"qos mapping dscp {dscp}")
    return out


def bgp_values(tree: Tree) -> dict[str, Any] | None:
    """``router bgp`` + ``vrf default router bgp``: asn, router id (None when NVUE picks it), neighbours
    (address -> remote ASN), networks, ``multipaths ebgp`` (None when not set)."""
    asn = get(tree, "router", "bgp", "autonomous-system")
    if asn is None:
        return None
    vrf = as_dict(get(tree, "vrf", "default", "router", "bgp"), "vrf default router bgp")
    neighbors: dict[str, int] = {}
    for address, body in as_dict(vrf.get("neighbor"), "neighbor").items():
        remote = as_dict(body, f"neighbor {address}").get("remote-as")
        if remote is None or isinstance(remote, str):
            raise NvueParseError(f"vrf default router bgp neighbor {address} remote-as: {remote!r} (xoff reads ASNs)")
        IPv4Address(address)  # numbered sessions only, as xoff renders them
        neighbors[address] = as_int(remote, f"neighbor {address} remote-as")
    family = as_dict(get(vrf, "address-family", "ipv4-unicast"), "address-family ipv4-unicast")
    paths = get(family, "multipaths", "ebgp")
    router_id = get(tree, "router", "bgp", "router-id")
    return {
        "asn": as_int(asn, "router bgp autonomous-system"),
        "router_id": None if router_id in (None, "none") else str(router_id),
        "neighbors": neighbors,
        "networks": list(as_dict(family.get("network"), "network")),
        "max_paths": None if paths is None else as_int(paths, "multipaths ebgp"),
    }
