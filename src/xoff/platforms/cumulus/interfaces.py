"""Builders for ``system`` and ``interface`` (FabricState ``Device.name``, ``Device.interfaces``).

Syntax (CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/
Interface-Configuration-and-Management/Switch-Port-Attributes.md): ``link speed 400G``, ``link mtu``
(552-9216, default 9216), ``link state up|down``, ``link breakout 2x|4x|8x`` on the cage's port before
its ``swpNsM`` sub-ports exist; ``type swp|loopback`` and ``ip address`` as in the BGP configuration
example's startup.yaml.

Not rendered: the management port (``eth0``). Cumulus puts it in the ``mgmt`` VRF with DHCP, and
FabricState has its address but not its gateway, so a static address from here could cut the switch
off; the address stays with the out-of-band provisioning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xoff.desired.models import Device, Interface
from xoff.platforms.cumulus import CumulusRenderError
from xoff.platforms.cumulus.nvue import Tree, put

# `nv set interface <id> link speed` accepts exactly these (NVUE list-commands, Cumulus Linux 5.5)
SPEEDS: dict[int, str] = {
    10: "10M",
    100: "100M",
    1_000: "1G",
    10_000: "10G",
    25_000: "25G",
    40_000: "40G",
    50_000: "50G",
    100_000: "100G",
    200_000: "200G",
    400_000: "400G",
    800_000: "800G",
}
MTU_MIN, MTU_MAX = 552, 9216
BREAKOUT_WAYS = (2, 4, 8)
_SUBPORT = re.compile(r"(swp\d+)s(\d+)\Z")
_SWP = re.compile(r"swp\d+(s\d+)?\Z")


def build_system(device: Device) -> Tree:
    tree: Tree = {}
    put(tree, ("system", "hostname"), device.name)
    return tree


def _breakouts(device: Device) -> Iterator[tuple[str, str]]:
    """(cage port, breakout mode) for every ``swpNsM`` sub-port family, in first-seen order."""
    widest: dict[str, int] = {}
    for name in device.interfaces:
        m = _SUBPORT.match(name)
        if m:
            widest[m[1]] = max(widest.get(m[1], 0), int(m[2]) + 1)
    for parent, count in widest.items():
        if parent in device.interfaces:
            raise CumulusRenderError(f"{device.name}: {parent} is used whole and broken out at the same time")
        ways = next((w for w in BREAKOUT_WAYS if w >= count), None)
        if ways is None:
            raise CumulusRenderError(f"{device.name}: {parent} has {count} sub-ports (at most {BREAKOUT_WAYS[-1]})")
        yield parent, f"{ways}x"


def _ethernet(tree: Tree, device: Device, iface: Interface) -> None:
    if not _SWP.match(iface.name):
        raise CumulusRenderError(f"{device.name}: {iface.name} is not a front-panel port name (swpN or swpNsM)")
    base = ("interface", iface.name)
    put(tree, (*base, "type"), "swp")
    put(tree, (*base, "link", "state", "up" if iface.admin_up else "down"))
    if iface.speed_mbps is not None:
        speed = SPEEDS.get(iface.speed_mbps)
        if speed is None:
            raise CumulusRenderError(
                f"{device.name}: {iface.name} speed {iface.speed_mbps} Mb/s is not an NVUE link speed "
                f"(allowed: {', '.join(SPEEDS.values())})"
            )
        put(tree, (*base, "link", "speed"), speed)
    if iface.mtu is not None:
        if not MTU_MIN <= iface.mtu <= MTU_MAX:
            raise CumulusRenderError(f"{device.name}: {iface.name} MTU {iface.mtu} outside {MTU_MIN}-{MTU_MAX}")
        put(tree, (*base, "link", "mtu"), iface.mtu)
    for address in iface.addresses:
        put(tree, (*base, "ip", "address", address))
    if iface.vrf is not None:
        put(tree, (*base, "ip", "vrf"), iface.vrf)


def build_interfaces(device: Device) -> Tree:
    tree: Tree = {}
    for parent, mode in _breakouts(device):
        put(tree, ("interface", parent, "type"), "swp")
        put(tree, ("interface", parent, "link", "breakout", mode))
    for iface in device.interfaces.values():
        if iface.kind == "ethernet":
            _ethernet(tree, device, iface)
        elif iface.kind == "loopback":
            if iface.name != "lo":
                raise CumulusRenderError(f"{device.name}: loopback {iface.name}: Cumulus has one loopback, lo")
            put(tree, ("interface", iface.name, "type"), "loopback")
            for address in iface.addresses:
                put(tree, ("interface", iface.name, "ip", "address", address))
        elif iface.kind == "mgmt":
            continue  # see the module docstring
        else:
            raise CumulusRenderError(f"{device.name}: {iface.name} is a {iface.kind} port; Cumulus has none")
    return tree
