"""Accepted CONFIG_DB changes, carried into the device's network namespace and its FRR.

What orchagent/portmgrd/intfmgrd do on a real switch, reduced to Linux: PORT ``admin_status`` and
``mtu`` -> ``ip link set``, INTERFACE / LOOPBACK_INTERFACE prefixes -> ``ip addr add|del`` (loopback
prefixes on ``lo``); BGP_NEIGHBOR -> ``vtysh`` (``neighbor X remote-as``, ``description``,
``shutdown``; ``no neighbor X``); STATIC_ROUTE -> ``vtysh`` ``ip route`` into staticd (what bgpcfgd's
static route manager does). Like the real daemons, this runs after the configuration was
accepted, and a failure here does not undo it. The management port (MGMT_INTERFACE, eth0) is
never touched: it carries the lab's SSH session.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xoff.lab.emulators import static_routes
from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.sonic.store import ConfigDb

DEFAULT_MTU = "9100"


def _identity(port: str) -> str:
    return port


def linux_name_function() -> Callable[[str], str]:
    """``xoff.lab.names.linux_ifname`` when the lab core provides it (intent name -> Linux name)."""
    try:
        from xoff.lab import names  # noqa: PLC0415 (optional: written by the lab core)
    except ImportError:
        return _identity
    function = getattr(names, "linux_ifname", None)
    return function if callable(function) else _identity


def vtysh_base(vty_dir: Path) -> list[str]:
    """vtysh on the device's own FRR (its vty sockets; its vtysh.conf when the lab wrote one)."""
    argv = ["vtysh", "--vty_socket", str(vty_dir)]
    if (vty_dir / "vtysh.conf").exists():
        argv += ["--config_dir", str(vty_dir)]
    return argv


def link_states(ctx: EmulatorContext) -> dict[str, dict[str, Any]]:
    """``ip -j link show`` in the namespace, by Linux name; empty without a namespace."""
    if ctx.netns is None:
        return {}
    try:
        proc = ctx.run_in_netns(["ip", "-j", "link", "show"], check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    if proc.returncode != 0:
        return {}
    return {str(link["ifname"]): link for link in json.loads(proc.stdout or "[]")}


def _addresses(config: Mapping[str, Mapping[str, Any]], table: str) -> set[tuple[str, str]]:
    return {tuple(key.split("|", 1)) for key in config.get(table, {}) if "|" in key}  # type: ignore[misc]


def namespace_commands(old: ConfigDb, new: ConfigDb, ifname: Callable[[str], str]) -> list[list[str]]:
    """The ``ip`` commands that take the namespace from ``old`` to ``new``: address removals,
    MTUs, address additions, admin states, in that order."""
    commands: list[list[str]] = []
    old_addr = _addresses(old, "INTERFACE") | {("lo", p) for _, p in _addresses(old, "LOOPBACK_INTERFACE")}
    new_addr = _addresses(new, "INTERFACE") | {("lo", p) for _, p in _addresses(new, "LOOPBACK_INTERFACE")}
    for port, prefix in sorted(old_addr - new_addr):
        commands.append(["ip", "addr", "del", prefix, "dev", port if port == "lo" else ifname(port)])
    old_ports, new_ports = old.get("PORT", {}), new.get("PORT", {})
    for port, fields in new_ports.items():
        before = old_ports.get(port, {})
        if str(fields.get("mtu", DEFAULT_MTU)) != str(before.get("mtu", DEFAULT_MTU)) or port not in old_ports:
            commands.append(["ip", "link", "set", "dev", ifname(port), "mtu", str(fields.get("mtu", DEFAULT_MTU))])
    for port, prefix in sorted(new_addr - old_addr):
        commands.append(["ip", "addr", "add", prefix, "dev", port if port == "lo" else ifname(port)])
    for port, fields in new_ports.items():
        state = fields.get("admin_status", "down")
        if state != old_ports.get(port, {}).get("admin_status", "down") or port not in old_ports:
            commands.append(["ip", "link", "set", "dev", ifname(port), "up" if state == "up" else "down"])
    return commands


def frr_commands(old: ConfigDb, new: ConfigDb) -> list[str]:
    """vtysh configuration lines for the BGP_NEIGHBOR difference (default VRF only)."""
    asn = new.get("DEVICE_METADATA", {}).get("localhost", {}).get("bgp_asn") or old.get("DEVICE_METADATA", {}).get(
        "localhost", {}
    ).get("bgp_asn")
    if not asn:
        return []
    before, after = _neighbors(old), _neighbors(new)
    lines: list[str] = []
    for address in sorted(set(before) - set(after)):
        lines.append(f"no neighbor {address}")
    for address, fields in after.items():
        was = before.get(address, {})
        if fields.get("asn") and fields.get("asn") != was.get("asn"):
            lines.append(f"neighbor {address} remote-as {fields['asn']}")
        if fields.get("name") and fields.get("name") != was.get("name"):
            lines.append(f"neighbor {address} description {fields['name']}")
        down, was_down = fields.get("admin_status") == "down", was.get("admin_status") == "down"
        if down != was_down or (down and not was):
            lines.append(f"{'' if down else 'no '}neighbor {address} shutdown")
    return [f"router bgp {asn}", *lines] if lines else []


def static_route_set(config: ConfigDb, ifname: Callable[[str], str]) -> set[static_routes.Route]:
    """STATIC_ROUTE rows of the default VRF (``prefix`` or ``default|prefix`` keys), one Route per next
    hop: ``nexthop`` and ``ifname`` are parallel comma-separated lists (sonic-static-route.yang)."""
    out: set[static_routes.Route] = set()
    for key, fields in config.get("STATIC_ROUTE", {}).items():
        vrf, _, prefix = key.rpartition("|")
        if vrf not in {"", "default"}:
            continue
        hops = [h.strip() for h in str(fields.get("nexthop", "")).split(",")]
        ports = [p.strip() for p in str(fields.get("ifname", "")).split(",")]
        for i, hop in enumerate(hops):
            port = ports[i] if i < len(ports) else ""
            if hop or port:
                out.add(static_routes.Route(prefix, hop or None, ifname(port) if port else None))
    return out


def frr_static_lines(old: ConfigDb, new: ConfigDb, ifname: Callable[[str], str]) -> list[str]:
    """vtysh configuration lines for the STATIC_ROUTE difference."""
    return static_routes.frr_lines(static_route_set(old, ifname), static_route_set(new, ifname))


def _neighbors(config: ConfigDb) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key, fields in config.get("BGP_NEIGHBOR", {}).items():
        vrf, _, address = key.rpartition("|")
        if vrf in {"", "default"}:
            out[address] = dict(fields)
    return out


def apply_change(ctx: EmulatorContext, old: ConfigDb, new: ConfigDb) -> None:
    """Carry an accepted change into the namespace and FRR (no-ops without them)."""
    if ctx.netns is not None:
        present = set(link_states(ctx))
        for argv in namespace_commands(old, new, linux_name_function()):
            device = argv[argv.index("dev") + 1]
            if device in present:
                ctx.run_in_netns(argv, check=False)
    # static routes first: they are config-node lines, and the BGP lines leave vtysh in router bgp
    lines = frr_static_lines(old, new, linux_name_function()) + frr_commands(old, new)
    if lines and ctx.frr_vty_dir is not None:
        argv = [*vtysh_base(ctx.frr_vty_dir), "-c", "configure terminal"]
        for line in lines:
            argv += ["-c", line]
        # bgpcfgd fails the same way: asynchronously, after the CLI returned
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            ctx.run_in_netns(argv, check=False)
