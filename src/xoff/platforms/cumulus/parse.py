"""Running NVUE state -> the values xoff models: ``nv config show -o json`` (the applied configuration
tree, ``[{"header": {...}}, {"set": {...}}]``) and ``nv show interface -o json`` (the ports' operational
link values). Samples of both, from Cumulus Linux 5.4 to 5.12, and their sources:
tests/fixtures/real/cumulus/README.md.

Faithful, not strict: what a real switch's configuration holds that xoff does not model (``service``,
``system`` beyond the hostname, ``bridge``, ``evpn``, ``acl``, bonds, SVIs, ...) is counted by its path
(``unmodelled.py``); a malformed value of a modelled field is one located error for that field (the rest
is read); a setting the output does not hold is absent, never a default xoff could not confirm.

NVUE documented defaults used here (CumulusNetworks/docs content/cumulus-linux-59/Layer-1-and-Switch-
Ports/Quality-of-Service/_index.md): ``default-global`` marks ECN on egress queue 0 with min 150000 B,
max 1500000 B, probability 100 ("Congestion Control (ECN)"); DSCP d -> switch priority d >> 3 under
``trust l3``, switch priority p -> egress queue p ("Trust DSCP", "Egress Queues"); PFC watchdog polling
interval 100 ms and robustness 3 ("PFC Watchdog"); ``link mtu`` 9216 (Switch-Port-Attributes.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Interface
from typing import Any, TypeVar

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
UP = ("up", "enable", "enabled", "on")
T = TypeVar("T")


class NvueParseError(ValueError):
    """Output xoff cannot read; the message names the NVUE path."""


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


def get(tree: Any, *path: str) -> Any:
    node: Any = tree
    for i, key in enumerate(path):
        node = as_dict(node, " ".join(path[:i]) or "(root)").get(key)
        if node is None:
            return None
    return node


def attempt(errors: list[str], read: Callable[[], T]) -> T | None:
    """``read()``, or None with its error (one located message) added to ``errors``."""
    try:
        return read()
    except (NvueParseError, ValueError, TypeError) as exc:
        errors.append(str(exc))
        return None


def load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first = text.strip().splitlines()[0] if text.strip() else "empty output"
        raise NvueParseError(f"{what}: not JSON ({exc.msg} at line {exc.lineno}): {first[:200]}") from None


def config_documents(text: str) -> tuple[dict[str, Any], Tree]:
    """``nv config show -o json``: its header and its ``set`` tree (an error when there is no ``set``)."""
    doc = load_json(text, "nv config show")
    if not isinstance(doc, list) or not all(isinstance(item, dict) for item in doc):
        raise NvueParseError("nv config show: expected a list of objects (header, set)")
    sets = [item["set"] for item in doc if "set" in item]
    headers = [item["header"] for item in doc if "header" in item]
    if len(sets) != 1:
        raise NvueParseError(f"nv config show: expected one 'set' document (found {len(sets)})")
    header = headers[0] if headers and isinstance(headers[0], dict) else {}
    return header, as_dict(sets[0], "set")


def interface_summary(text: str) -> dict[str, dict[str, Any]]:
    """``nv show interface -o json``: interface -> its summary (``type``, ``link``, ``ip``, ...)."""
    data = as_dict(load_json(text, "nv show interface"), "nv show interface")
    return {name: as_dict(body, f"interface {name}") for name, body in data.items()}


def ipv4(addresses: Any, where: str, loopback: bool) -> list[str]:
    out: list[str] = []
    for text in as_dict(addresses, where):
        try:
            iface = IPv4Interface(text)
        except ValueError:
            continue  # IPv6, "dhcp": xoff models IPv4 interface addresses only
        if loopback and iface.ip.is_loopback:
            continue  # Linux's 127.0.0.1/8 on lo
        out.append(str(iface))
    return out


def speed_mbps(value: Any, where: str) -> int | None:
    """``100G`` -> 100000; ``auto`` or no speed: not observed."""
    if value is None or value == "auto":
        return None
    if str(value) not in MBPS:
        raise NvueParseError(f"{where}: {value!r} is not a speed NVUE prints")
    return MBPS[str(value)]


def admin_up(oper_link: dict[str, Any], link: dict[str, Any]) -> bool | None:
    """``admin-status`` (5.9+), else ``state`` as ``{"up": {}}`` or a word; None when neither shows it."""
    for state in (oper_link.get("admin-status"), oper_link.get("state"), link.get("state")):
        if isinstance(state, dict) and state:
            return next(iter(state)) in UP
        if isinstance(state, str):
            return state in UP
    return None


def priority_to_queue(tree: Tree) -> dict[int, int]:
    mapping = as_dict(get(tree, "qos", "egress-queue-mapping", PROFILE, "switch-priority"), "egress-queue-mapping")
    out = {p: p for p in range(8)}
    for prio, body in mapping.items():
        where = f"qos egress-queue-mapping {PROFILE} switch-priority {prio}"
        out[int(prio)] = as_int(as_dict(body, where).get("traffic-class"), f"{where} traffic-class")
    return out


def ecn(tree: Tree, profile: str = PROFILE) -> dict[int, dict[str, int]]:
    """Egress queue -> ECN thresholds, for the queues a profile marks (``default-global``'s defaults included)."""
    config = as_dict(get(tree, "qos", "congestion-control", profile, "traffic-class"), "congestion-control")
    defaults = DEFAULT_ECN_QUEUES if profile == PROFILE else ()
    out: dict[int, dict[str, int]] = {}
    for queue in sorted({int(q) for q in config} | set(defaults)):
        base = DEFAULT_ECN if queue in defaults else {"probability": 100}
        body = {**base, **as_dict(config.get(str(queue)), "")}
        if body.get("ecn") not in ("enable", "enabled", "on"):
            continue
        where = f"qos congestion-control {profile} traffic-class {queue}"
        if "min-threshold" not in body or "max-threshold" not in body:
            raise NvueParseError(f"{where}: ECN enabled without min-threshold/max-threshold")
        out[queue] = {
            "min_threshold": as_int(body["min-threshold"], f"{where} min-threshold"),
            "max_threshold": as_int(body["max-threshold"], f"{where} max-threshold"),
            "probability": as_int(body["probability"], f"{where} probability"),
        }
    return out


def schedulers(tree: Tree, profile: str = PROFILE) -> dict[int, dict[str, Any]]:
    config = as_dict(get(tree, "qos", "egress-scheduler", profile, "traffic-class"), "egress-scheduler")
    out: dict[int, dict[str, Any]] = {}
    for queue, body in config.items():
        where = f"qos egress-scheduler {profile} traffic-class {queue}"
        cfg = as_dict(body, where)
        mode = cfg.get("mode", "dwrr")
        if mode not in {"dwrr", "strict"}:
            raise NvueParseError(f"{where} mode: {mode!r}")
        weight = cfg.get("bw-percent") if mode == "dwrr" else None
        out[int(queue)] = {"type": mode, "weight": None if weight is None else as_int(weight, f"{where} bw-percent")}
    return dict(sorted(out.items()))


def trust(tree: Tree, profile: str = PROFILE) -> str | None:
    """``qos mapping <profile> trust`` as xoff names it; None when not set (NVUE's default is not confirmed)."""
    value = get(tree, "qos", "mapping", profile, "trust")
    if value is None:
        return None
    if value not in TRUST:
        raise NvueParseError(f"qos mapping {profile} trust: {value!r} (xoff models: {', '.join(TRUST)})")
    return TRUST[str(value)]


def dscp_to_priority(tree: Tree, profile: str = PROFILE) -> dict[int, int]:
    config = as_dict(get(tree, "qos", "mapping", profile, "dscp"), "qos mapping dscp")
    out = {d: d >> 3 for d in range(64)}
    for dscp, body in config.items():
        where = f"qos mapping {profile} dscp {dscp}"
        out[int(dscp)] = as_int(as_dict(body, where).get("switch-priority"), f"{where} switch-priority")
    return out


def bgp_values(tree: Tree, unmodelled: dict[str, int]) -> dict[str, Any] | None:
    """``router bgp`` + ``vrf default router bgp``: asn, router id (None when NVUE picks it), numbered
    neighbours (address -> remote ASN; ``external``/``internal`` and unnumbered ones are counted as
    unmodelled), networks, ``multipaths ebgp`` (None when not set)."""
    asn = get(tree, "router", "bgp", "autonomous-system")
    if asn is None:
        return None
    vrf = as_dict(get(tree, "vrf", "default", "router", "bgp"), "vrf default router bgp")
    neighbors: dict[str, int] = {}
    for address, body in as_dict(vrf.get("neighbor"), "neighbor").items():
        remote = as_dict(body, f"neighbor {address}").get("remote-as")
        try:
            IPv4Address(address)
        except ValueError:
            unmodelled["vrf.*.router.bgp.neighbor (unnumbered)"] = (
                unmodelled.get("vrf.*.router.bgp.neighbor (unnumbered)", 0) + 1
            )
            continue
        if isinstance(remote, str):
            key = f"vrf.*.router.bgp.neighbor.remote-as ({remote})"
            unmodelled[key] = unmodelled.get(key, 0) + 1
            continue
        neighbors[address] = as_int(remote, f"vrf default router bgp neighbor {address} remote-as")
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


def static_routes(tree: Tree) -> list[tuple[str, str, str | None]]:
    """``vrf default router static <prefix> via <via>``: a ``via`` is an address (the next hop) or a port;
    NVUE shows one ``via`` as a scalar and several as a map."""
    out: list[tuple[str, str, str | None]] = []
    routes = get(tree, "vrf", "default", "router", "static")
    for prefix, body in (routes if isinstance(routes, dict) else {}).items():
        vias = body.get("via") if isinstance(body, dict) else None
        for via in vias if isinstance(vias, dict) else [vias] if vias is not None else []:
            try:
                out.append((str(prefix), str(IPv4Address(str(via))), None))
            except ValueError:
                out.append((str(prefix), "", str(via)))
    return out
