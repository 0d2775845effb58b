"""The NVUE configuration a switch has before anything is pushed to it.

The lab brings switches up provisioned for the underlay (docs/lab.md): cabled ports with the intent's
MTU, admin state and addresses, the loopback, and BGP running in FRR. The emulator writes that
provisioning in NVUE's documented object model itself (CumulusNetworks/docs content/cumulus-linux-59/
Layer-1-and-Switch-Ports/Interface-Configuration-and-Management/Switch-Port-Attributes.md: ``interface
<swp> type swp``, ``link state up|down``, ``link speed``, ``link mtu``, ``link breakout <n>x`` on the
cage; ``ip address``; Layer-3/Border-Gateway-Protocol-BGP/Basic-BGP-Configuration.md: ``router bgp
autonomous-system|router-id``, ``vrf default router bgp neighbor <ip> remote-as|type``, ``address-family
ipv4-unicast network|multipaths ebgp``), from the lab's FabricState (``ctx.desired_device()``), never
through xoff's renderer. Nothing of the lossless plan: that is what a push brings. Without a FabricState:
a fresh switch's ``system hostname cumulus``.
"""

from __future__ import annotations

import re
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.cumulus.tree import Tree, set_path

FACTORY_HOSTNAME = "cumulus"
_SPEED = {10: "10M", 100: "100M", 1_000: "1G", 10_000: "10G", 25_000: "25G", 40_000: "40G", 50_000: "50G",
          100_000: "100G", 200_000: "200G", 400_000: "400G", 800_000: "800G"}  # fmt: skip
_SUBPORT = re.compile(r"(swp\d+)s(\d+)\Z")


def factory_tree(ctx: EmulatorContext | None = None) -> Tree:
    """The factory applied revision of the switch ``ctx`` names (minimal without a FabricState)."""
    device = ctx.desired_device() if ctx is not None else None
    if device is None or device.kind != "switch":
        return {"system": {"hostname": FACTORY_HOSTNAME}}
    tree: Tree = {}
    set_path(tree, ("system", "hostname"), device.name)
    _cages(tree, device)
    for iface in device.interfaces.values():
        _interface(tree, iface)
    if device.bgp is not None:
        _bgp(tree, device.bgp)
    return tree


def _cages(tree: Tree, device: Any) -> None:
    ways: dict[str, int] = {}
    for name in device.interfaces:
        if m := _SUBPORT.match(name):
            ways[m[1]] = max(ways.get(m[1], 0), int(m[2]) + 1)
    for cage, count in ways.items():
        set_path(tree, ("interface", cage, "type"), "swp")
        set_path(tree, ("interface", cage, "link", "breakout", f"{next(w for w in (2, 4, 8) if w >= count)}x"), None)


def _interface(tree: Tree, iface: Any) -> None:
    base = ("interface", iface.name)
    if iface.kind == "loopback":
        set_path(tree, (*base, "type"), "loopback")
    elif iface.kind == "ethernet":
        set_path(tree, (*base, "type"), "swp")
        set_path(tree, (*base, "link", "state", "up" if iface.admin_up else "down"), None)
        if iface.speed_mbps in _SPEED:
            set_path(tree, (*base, "link", "speed"), _SPEED[iface.speed_mbps])
        if iface.mtu is not None:
            set_path(tree, (*base, "link", "mtu"), iface.mtu)
    else:
        return  # the management port: DHCP in the mgmt VRF, provisioned out of band
    for address in iface.addresses:
        set_path(tree, (*base, "ip", "address", address), None)


def _bgp(tree: Tree, bgp: Any) -> None:
    set_path(tree, ("router", "bgp", "enable"), "on")
    set_path(tree, ("router", "bgp", "autonomous-system"), bgp.asn)
    set_path(tree, ("router", "bgp", "router-id"), bgp.router_id)
    vrf = ("vrf", "default", "router", "bgp")
    set_path(tree, (*vrf, "enable"), "on")
    family = (*vrf, "address-family", "ipv4-unicast")
    set_path(tree, (*family, "enable"), "on")
    for prefix in bgp.networks:
        set_path(tree, (*family, "network", prefix), None)
    set_path(tree, (*family, "multipaths", "ebgp"), bgp.max_paths)
    for n in bgp.neighbors:
        set_path(tree, (*vrf, "neighbor", n.address, "remote-as"), n.remote_asn)
        set_path(tree, (*vrf, "neighbor", n.address, "type"), "numbered")
