"""``nv show <path>`` and ``nv config show``: the applied configuration at a path, with the operational
values a collector reads, as JSON (``-o json``), YAML (``-o yaml``) or NVUE's two-column table.

Shapes follow NVUE's JSON (keys as in the configuration tree; integers stay integers; a collection
member is ``{}``): ``nv show interface -o json`` maps each interface to ``type``, ``link``
(``oper-status``, ``admin-status``, ``speed``, ``mtu``) and ``ip address`` (``vrf`` on eth0), the
summary's keys; ``nv show interface <port>`` adds the port's applied configuration (``link state``,
``qos``...); BGP neighbours add ``state`` from FRR. Operational values come from the device's namespace (``ip -j``) and FRR (vtysh) when
the emulator runs in the lab, else they restate the applied configuration.
"""

from __future__ import annotations

import copy
import json
import subprocess
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.apply import vtysh
from xoff.lab.emulators.cumulus.schema import RULES
from xoff.lab.emulators.cumulus.tree import Tree, get_path, yaml_block

VERSION = "Cumulus Linux 5.9.1"  # a release inside NVUE_RELEASES (5.6-5.14)
MODEL = "VX"
DEFAULTS: dict[tuple[str, ...], dict[str, Any]] = {("qos", "roce"): {"enable": "off"}}  # nothing xoff sets


class ShowError(ValueError):
    pass


def known_prefix(path: tuple[str, ...]) -> bool:
    """A path ``nv show`` knows: a prefix of some configuration rule, or a default object."""
    if path in DEFAULTS:
        return True
    return any(len(path) <= len(rule) and all(s.accepts(w) for s, w in zip(rule, path, strict=False)) for rule in RULES)


def _ip_json(ctx: EmulatorContext, what: str) -> list[dict[str, Any]]:
    if ctx.netns is None:
        return []
    try:
        done = ctx.run_in_netns(["ip", "-j", what, "show"], check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    data = json.loads(done.stdout or "[]") if done.returncode == 0 else []
    return data if isinstance(data, list) else []


def _kind(name: str) -> str:
    return "loopback" if name == "lo" else "eth" if name.startswith("eth") else "swp"


DEFAULT_MTU = 9216  # NVUE's link mtu when none is set


def _inet(entry: dict[str, Any] | None) -> dict[str, Any]:
    """The IPv4 addresses of one ``ip -j address`` entry, as NVUE's ``ip address`` collection."""
    if entry is None:
        return {}
    return {f"{a['local']}/{a['prefixlen']}": {} for a in entry.get("addr_info", []) if a.get("family") == "inet"}


def interfaces(ctx: EmulatorContext, applied: Tree, summary: bool = False) -> dict[str, Any]:
    """``nv show interface -o json``: configured interfaces and the ports the box has.

    The summary (``summary=True``, the whole collection) has NVUE's summary keys only: ``type``,
    ``link`` (``admin-status``, ``oper-status``, ``mtu``, ``speed`` when set) and ``ip address``;
    one interface (``nv show interface swp1``) also shows its applied configuration. Operational values
    come from the namespace when there is one (the kernel's MTU, flags and IPv4 addresses), else they
    restate the applied configuration.
    """
    config = applied.get("interface", {})
    out: dict[str, Any] = {}
    assert isinstance(config, dict)
    for name, body in config.items():
        out[name] = copy.deepcopy(body) if isinstance(body, dict) else {}
    oper = {str(link["ifname"]): link for link in _ip_json(ctx, "link")}
    addrs = {str(a["ifname"]): a for a in _ip_json(ctx, "address")}
    for name in oper:
        if name.startswith(("swp", "eth")) or name == "lo":
            out.setdefault(name, {"type": _kind(name)})
    for name, body in out.items():
        body.setdefault("type", _kind(name))
        link = body.setdefault("link", {})
        admin = next(iter(link.get("state", {})), "up" if name in {"lo", "eth0"} else "down")
        kernel = oper.get(name)
        if kernel is not None:
            flags = kernel.get("flags", [])
            link["admin-status"] = "up" if "UP" in flags else "down"
            link["oper-status"] = "up" if kernel.get("operstate") in {"UP", "UNKNOWN"} and "UP" in flags else "down"
            if name != "lo":
                link["mtu"] = kernel.get("mtu")
        else:
            link["admin-status"] = admin
            link["oper-status"] = admin
            if name != "lo":
                link.setdefault("mtu", DEFAULT_MTU)
        if name in addrs:  # the kernel's addresses (eth0: DHCP/ZTP's, in the mgmt VRF)
            body.setdefault("ip", {})["address"] = _inet(addrs[name])
            if name == "eth0":
                body["ip"]["vrf"] = "mgmt"
    if summary:
        return {name: _summary(body) for name, body in out.items()}
    return out


def _summary(body: dict[str, Any]) -> dict[str, Any]:
    link = body.get("link", {})
    keep = {k: link[k] for k in ("oper-status", "admin-status", "speed", "mtu") if k in link}
    out: dict[str, Any] = {"type": body["type"], "link": keep}
    ip = body.get("ip", {})
    if "address" in ip:
        out["ip"] = {"address": copy.deepcopy(ip["address"])}
        if "vrf" in ip:
            out["ip"]["vrf"] = ip["vrf"]
    return out


def bgp_neighbors(ctx: EmulatorContext, applied: Tree) -> dict[str, Any]:
    config = get_path(applied, ("vrf", "default", "router", "bgp", "neighbor"))
    out: dict[str, Any] = copy.deepcopy(config) if isinstance(config, dict) else {}
    base = vtysh(ctx)
    if base is None or not out:
        return out
    try:
        done = ctx.run_in_netns([*base, "-c", "show bgp summary json"], check=False)
        peers = json.loads(done.stdout or "{}").get("ipv4Unicast", {}).get("peers", {})
    except (OSError, subprocess.SubprocessError, ValueError):
        peers = {}
    for address, body in out.items():
        state = peers.get(address, {}).get("state")
        body["state"] = str(state).lower() if state else "idle"
    return out


def system(applied: Tree) -> dict[str, Any]:
    hostname = get_path(applied, ("system", "hostname"))
    return {"hostname": hostname, "build": VERSION, "product-name": "Cumulus Linux"}


def show(ctx: EmulatorContext, applied: Tree, path: tuple[str, ...]) -> Any:
    """The value ``nv show <path>`` prints; ShowError when NVUE has no such path."""
    if path == ("interface",):
        return interfaces(ctx, applied, summary=True)
    if len(path) == 2 and path[0] == "interface":
        found = interfaces(ctx, applied).get(path[1])
        if found is None:
            raise ShowError(f"Error: The requested item does not exist: interface {path[1]}")
        return found
    if path == ("system",):
        return system(applied)
    if path == ("vrf", "default", "router", "bgp", "neighbor"):
        return bgp_neighbors(ctx, applied)
    if not path or not known_prefix(path):
        raise ShowError(f"Error: Invalid Command: show {' '.join(path)}")
    value = get_path(applied, path)
    if value is None:
        return copy.deepcopy(DEFAULTS.get(path, {}))
    return copy.deepcopy(value)


def table(value: Any) -> str:
    """NVUE's default view: the key column and the applied column, nested keys indented by two."""
    rows: list[tuple[str, str]] = []

    def walk(node: Any, depth: int) -> None:
        for key, sub in node.items():
            if isinstance(sub, dict) and sub and not all(isinstance(v, dict) and not v for v in sub.values()):
                rows.append(("  " * depth + str(key), ""))
                walk(sub, depth + 1)
            elif isinstance(sub, dict):
                rows.append(("  " * depth + str(key), ", ".join(sub) if sub else ""))
            else:
                rows.append(("  " * depth + str(key), str(sub)))

    if not isinstance(value, dict):
        return f"{value}\n"
    walk(value, 0)
    width = max([len(k) for k, _ in rows] + [len("")], default=0)
    head = f"{'':<{width}}  applied\n{'-' * width}  {'-' * 7}\n"
    return head + "".join(f"{k:<{width}}  {v}".rstrip() + "\n" for k, v in rows)


def render(value: Any, output: str) -> str:
    if output == "json":
        return json.dumps(value, indent=2) + "\n"
    if output == "yaml":
        return "".join(f"{line}\n" for line in yaml_block(value, 0)) if isinstance(value, dict) else f"{value}\n"
    return table(value)


def config_document(applied: Tree, rev: str) -> list[dict[str, Any]]:
    # NVUE prints the revision id as a number ("rev-id": 1.0, CumulusNetworks/docs NVUE-CLI.md startup.yaml)
    number = rev.replace(".", "", 1).isdigit()
    header = {
        "model": MODEL,
        "nvue-api-version": "nvue_v1",
        "rev-id": float(rev) if number else rev,
        "version": VERSION,
    }
    return [{"header": header}, {"set": copy.deepcopy(applied)}]


def config_yaml(tree: Tree, rev: str) -> str:
    header = config_document(tree, rev)[0]["header"]
    lines = ["- header:", *yaml_block(header, 2), "- set:", *yaml_block(tree, 2)]
    return "".join(f"{line}\n" for line in lines)
