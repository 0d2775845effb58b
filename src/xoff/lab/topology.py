"""The lab's wiring: a plan computed from FabricState (pure), and the ``ip`` commands that make it.

What a device has after ``lab up`` (docs/lab.md says the same for users):

- every device: a namespace ``xl-<lab>-<device>``, ``lo`` up, its management port (the platform's
  name: eth0, Management1, eno1, ...) with its management address, one end of a veth whose other end
  is on the lab's bridge in the root namespace, where the controller holds the gateway address;
- a **switch** is *provisioned for the underlay*: every cabled port exists under its intent name
  (:func:`~xoff.lab.names.linux_ifname`), with the intent's MTU, admin state and addresses, loopback
  addresses on ``lo``, IPv4 forwarding on, so FRR's BGP can establish at once. Its ASIC side (QoS,
  PFC, buffers) is left to the NOS emulator, where ``push`` puts it;
- a **host** is *freshly installed*: its cabled NICs exist under their netdev names and are up, at
  the kernel's default MTU (1500), with no addresses, routes or rules; the rendered host script
  (``push``) sets those;
- a host's **InfiniBand HCA** shows its IPoIB netdev (``ib0``, ...) as a lab stand-in: an ``ifb``
  link (a software netdev with no peer; this kernel has no ``dummy`` and no ``ib_ipoib``) with the
  intent's MTU, admin state and addresses. On a real host the IPoIB driver makes that netdev at boot
  and ``push`` does not touch it, so the lab gives it the state a booted host has;
- an **InfiniBand switch** has only its management port: its fabric is ibsim's.

Only Ethernet links become veth pairs; InfiniBand cables live in ibsim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Literal

from xoff.desired.models import Device, FabricState, Interface
from xoff.lab import names
from xoff.lab.remap import Management

MGMT_FALLBACK = "eth0"


@dataclass(frozen=True)
class PortPlan:
    port: str  # intent name
    ifname: str  # Linux name
    mtu: int | None  # None: the kernel's default
    addresses: tuple[str, ...]
    up: bool


@dataclass(frozen=True)
class DevicePlan:
    name: str
    kind: Literal["switch", "host", "ib_switch"]
    platform: str
    role: str
    netns: str
    mgmt_port: str
    mgmt_ifname: str
    mgmt_address: str  # address/len
    root_veth: str
    loopbacks: tuple[str, ...]
    ports: dict[str, PortPlan] = field(default_factory=dict)  # intent port -> plan, cabled Ethernet ports only
    ipoib: dict[str, PortPlan] = field(default_factory=dict)  # host IPoIB netdev -> its ifb stand-in's plan

    @property
    def forwarding(self) -> bool:
        return self.kind == "switch"


@dataclass(frozen=True)
class End:
    device: str
    port: str
    ifname: str


@dataclass(frozen=True)
class LinkPlan:
    a: End
    b: End
    network: str


@dataclass(frozen=True)
class LabPlan:
    lab: str
    bridge: str
    controller_address: str  # address/len on the bridge
    mgmt_prefix: IPv4Network
    devices: dict[str, DevicePlan]
    links: list[LinkPlan]


def _mgmt(device: Device, prefix: IPv4Network) -> tuple[str, str]:
    """(intent name, address/len) of the device's management port."""
    for iface in device.interfaces.values():
        if iface.kind == "mgmt":
            address = iface.addresses[0] if iface.addresses else f"{device.mgmt_address}/{prefix.prefixlen}"
            return iface.name, address
    return MGMT_FALLBACK, f"{device.mgmt_address}/{prefix.prefixlen}"


def _port(device: Device, iface: Interface) -> PortPlan:
    ifname = names.linux_ifname(iface.name)
    if device.kind == "switch":  # provisioned: the intent's port settings
        return PortPlan(iface.name, ifname, iface.mtu, tuple(iface.addresses), iface.admin_up)
    return PortPlan(iface.name, ifname, None, (), True)  # a fresh host: up, default MTU, no address


def _ipoib(device: Device) -> dict[str, PortPlan]:
    """A host's IPoIB netdevs (its InfiniBand interfaces) as the driver leaves them: intent MTU and addresses."""
    if device.kind != "host":
        return {}
    return {
        i.name: PortPlan(i.name, names.linux_ifname(i.name), i.mtu, tuple(i.addresses), i.admin_up)
        for i in device.interfaces.values()
        if i.kind == "infiniband"
    }


def controller_address(management: Management, taken: set[IPv4Address]) -> IPv4Interface:
    """The gateway, or else the highest address of the prefix no device has."""
    length = management.prefix.prefixlen
    if management.gateway is not None:
        if management.gateway in taken:
            raise ValueError(f"management gateway {management.gateway} is also a device's address")
        return IPv4Interface(f"{management.gateway}/{length}")
    hosts = list(management.prefix.hosts()) if management.prefix.num_addresses <= 65536 else []
    for candidate in reversed(hosts):
        if candidate not in taken:
            return IPv4Interface(f"{candidate}/{length}")
    raise ValueError(f"no free address in {management.prefix} for the controller")


def plan(lab: str, fabric: FabricState, management: Management) -> LabPlan:
    """Where every namespace, veth, address and MTU goes (no I/O)."""
    devices: dict[str, DevicePlan] = {}
    taken: set[IPv4Address] = set()
    for d in fabric.devices.values():
        mgmt_port, mgmt_address = _mgmt(d, management.prefix)
        if IPv4Interface(mgmt_address).ip not in management.prefix:
            raise ValueError(f"{d.name}: management address {mgmt_address} is outside {management.prefix}")
        taken.add(IPv4Interface(mgmt_address).ip)
        loopbacks = tuple(a for i in d.interfaces.values() if i.kind == "loopback" for a in i.addresses)
        devices[d.name] = DevicePlan(
            name=d.name,
            kind=d.kind,
            platform=d.platform,
            role=d.role,
            netns=names.namespace(lab, d.name),
            mgmt_port=mgmt_port,
            mgmt_ifname=names.linux_ifname(mgmt_port),
            mgmt_address=mgmt_address,
            root_veth=names.root_veth(lab, d.name),
            loopbacks=loopbacks if d.kind == "switch" else (),
            ipoib=_ipoib(d),
        )
    links: list[LinkPlan] = []
    for link in fabric.links:
        if fabric.networks[link.network].kind == "infiniband":
            continue
        ends = []
        for peer in (link.a, link.b):
            device = fabric.devices[peer.device]
            port = _port(device, device.interfaces[peer.port])
            devices[peer.device].ports[peer.port] = port
            ends.append(End(peer.device, peer.port, port.ifname))
        links.append(LinkPlan(ends[0], ends[1], link.network))
    for dp in devices.values():
        seen: dict[str, str] = {dp.mgmt_ifname: dp.mgmt_port}
        for p in [*dp.ports.values(), *dp.ipoib.values()]:
            if seen.setdefault(p.ifname, p.port) != p.port:
                raise ValueError(f"{dp.name}: ports {seen[p.ifname]!r} and {p.port!r} both become Linux {p.ifname!r}")
    return LabPlan(
        lab=lab,
        bridge=names.bridge(lab),
        controller_address=str(controller_address(management, taken)),
        mgmt_prefix=management.prefix,
        devices=devices,
        links=links,
    )


# --- the ip commands -----------------------------------------------------------------------------


def root_commands(
    p: LabPlan, namespaces: list[str], bridge_exists: bool, mgmt: list[str], links: list[LinkPlan]
) -> list[str]:
    """``ip -batch`` lines for the root namespace: the namespaces of devices ``namespaces``, the bridge,
    the management veths of devices ``mgmt``, and the veth pairs of ``links``."""
    lines = [f"netns add {p.devices[d].netns}" for d in namespaces]
    if not bridge_exists:
        lines += [
            f"link add {p.bridge} type bridge",
            f"link set {p.bridge} up",
            f"addr add {p.controller_address} dev {p.bridge}",
        ]
    for name in mgmt:
        d = p.devices[name]
        lines += [
            f"link add {d.root_veth} type veth peer name {d.mgmt_ifname} netns {d.netns}",
            f"link set {d.root_veth} master {p.bridge} up",
        ]
    for link in links:
        a, b = p.devices[link.a.device], p.devices[link.b.device]
        lines.append(f"link add {link.a.ifname} netns {a.netns} type veth peer name {link.b.ifname} netns {b.netns}")
    return lines


def device_commands(
    d: DevicePlan, *, fresh: bool, mgmt: bool, ports: list[PortPlan], ipoib: Sequence[PortPlan] = ()
) -> list[str]:
    """``ip -n <ns> -batch`` lines for one namespace: ``lo`` (a ``fresh`` namespace), the management
    port (a new ``mgmt`` veth), ``ports`` (new fabric veths), then the IPoIB stand-ins ``ipoib`` (missing ones)."""
    lines: list[str] = []
    if fresh:
        lines += ["link set lo up", *(f"addr add {a} dev lo" for a in d.loopbacks)]
    if mgmt:
        lines += [f"addr add {d.mgmt_address} dev {d.mgmt_ifname}", f"link set {d.mgmt_ifname} up"]
    for port in ports:
        settings = (f" mtu {port.mtu}" if port.mtu else "") + (" up" if port.up else " down")
        lines.append(f"link set {port.ifname}{settings}")
        lines += [f"addr add {a} dev {port.ifname}" for a in port.addresses]
    for port in ipoib:
        lines.append(f"link add {port.ifname} type ifb")
        settings = (f" mtu {port.mtu}" if port.mtu else "") + (" up" if port.up else " down")
        lines.append(f"link set {port.ifname}{settings}")
        lines += [f"addr add {a} dev {port.ifname}" for a in port.addresses]
    return lines
