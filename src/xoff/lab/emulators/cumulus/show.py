"""``nv show <path>`` and ``nv config show``: the applied configuration at a path, with the operational
values a collector reads, as JSON (``-o json``), YAML (``-o yaml``) or NVUE's two-column table.

Shapes follow NVUE's JSON (keys as in the configuration tree; integers stay integers; a collection
member is ``{}``): ``nv show interface -o json`` maps each interface to ``type``, ``link`` (``mtu``,
``speed``, ``state``, ``admin-status``, ``oper-status``), ``ip address`` and ``qos``; BGP neighbours add
``state`` from FRR. Operational values come from the device's namespace (``ip -j``) and FRR (vtysh) when
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
from xoff.platforms.cumulus.nvue import Tree
from xoff.platforms.cumulus.patch import get_path, yaml_block

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


def interfaces(ctx: EmulatorContext, applied: Tree) -> dict[str, Any]:
    """``nv show interface -o json``: configured interfaces and the ports the box has."""
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
        link = body.setdefault("link", {})
        admin = next(iter(link.get("state", {})), "up" if name in {"lo", "eth0"} else "down")
        kernel = oper.get(name)
        if kernel is not None:
            flags = kernel.get("flags", [])
            link["admin-status"] = "up" if "UP" in flags else "down"
            link["oper-status"] = "up" if kernel.get("operstate") in {"UP", "UNKNOWN"} and "UP" in flags else "down"
            link.setdefault("mtu", kernel.get("mtu"))
        else:
            link["admin-status"] = admin
            link["oper-status"] = admin
        if name == "eth0" and name in addrs:  # management: DHCP/ZTP's address, not NVUE's
            found: dict[str, Any] = {
                f"{a['local']}/{a['prefixlen']}": {}
                for a in addrs[name].get("addr_info", [])
                if a.get("family") == "inet"
            }
            body.setdefault("ip", {})["address"] = found
            body["ip"]["vrf"] = "mgmt"
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
        return interfaces(ctx, applied)
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
    header = {"model": MODEL, "nvue-api-version": "nvue_v1", "rev-id": rev, "version": VERSION}
    return [{"header": header}, {"set": copy.deepcopy(applied)}]


def config_yaml(tree: Tree, rev: str) -> str:
    header = config_document(tree, rev)[0]["header"]
    lines = ["- header:", *yaml_block(header, 2), "- set:", *yaml_block(tree, 2)]
    return "".join(f"{line}\n" for line in lines)
