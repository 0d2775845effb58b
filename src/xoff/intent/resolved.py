"""The resolved intent: every pattern expanded, every inherited value settled, every cable explicit.

Plain frozen dataclasses (not pydantic): the input was validated already, and a 10k-GPU fabric
holds tens of thousands of these, so building them must be cheap.
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass, field, replace
from ipaddress import IPv4Address

from xoff.errors import Location, Problem
from xoff.intent.devices import HostProfile, NetworkName, Platform, StaticRouteSpec, SwitchRole
from xoff.intent.document import IntentDocument
from xoff.intent.load_balancing import LoadBalancing
from xoff.intent.patterns import expand
from xoff.intent.yamlsource import SourceMap, dotted


@dataclass(frozen=True, slots=True)
class Port:
    name: str
    speed: int
    use: str
    mtu: int | None
    shutdown: bool


@dataclass(frozen=True, slots=True)
class Switch:
    name: str
    role: SwitchRole
    platform: Platform
    asic: str
    hwsku: str | None
    network: NetworkName
    mtu: int
    asn: int | None
    mgmt: IPv4Address
    loopback: IPv4Address
    pod: int | None
    ports: dict[str, Port]
    static_routes: tuple[StaticRouteSpec, ...] = ()
    static_routes_at: tuple[str | int, ...] = ()  # the intent path of the list they come from (for errors)
    sku: str | None = None  # the catalogue's HWSKU (xoff.buffers.catalogue); its table and pools are the switch's
    plane: int | None = None  # multi-plane fabrics: written, or set by the clos3 generator
    rack: str | None = None
    load_balancing: LoadBalancing | None = None


@dataclass(frozen=True, slots=True)
class IbSwitch:
    name: str
    role: SwitchRole
    model: str
    mgmt: IPv4Address
    guid: str
    ports: dict[str, Port]


@dataclass(frozen=True, slots=True)
class Nic:
    netdev: str
    rdma: str | None
    network: NetworkName
    rail: int | None
    gpu: int | None
    speed: int
    mtu: int | None


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    profile_name: str
    profile: HostProfile
    mgmt: IPv4Address
    bmc: IPv4Address | None
    unit: int | None
    nics: dict[str, Nic]
    rack: str | None = None


Device = Switch | IbSwitch | Host


@dataclass(frozen=True, slots=True)
class Tenant:
    name: str
    nics: tuple[tuple[str, str], ...]  # (host, netdev) on the compute network, in intent order
    pkey: int | None  # InfiniBand only
    membership: str
    service_level: int | None
    vrf: str | None  # RoCE only
    lossless_class: str | None  # RoCE only
    lossless_priority: int | None  # RoCE only: the class's priority (its PFC priority and PG)
    share_lossless: bool
    vni: int | None = None  # RoCE only: the VRF's L3 VNI when the tenant is carried by VXLAN-EVPN

    def hosts(self) -> list[str]:
        return list(dict.fromkeys(h for h, _ in self.nics))


def dotted_quad(address: int) -> str:
    """``str(IPv4Address(address))`` without building the object: a 100k-GPU plan writes 600,000 of them."""
    return _ntoa(_uint32(address))


_ntoa, _uint32 = socket.inet_ntoa, struct.Struct(">I").pack  # C, a third less time than formatting the four bytes


@dataclass(frozen=True, slots=True)
class Link:
    """One cable. ``a``/``b`` are (device, port); routed Ethernet links hold a /31, the a end its even address."""

    a: tuple[str, str]
    b: tuple[str, str]
    speed: int
    length: int
    role: str  # host_leaf | leaf_spine | spine_super_spine | other
    network: str  # compute | storage
    origin: str  # where it came from: "links[3]" or "cabling[0] (leaf_spine)"
    # the /31's first address as an int (None: not addressed); an int, not two IPv4Interface objects per link
    p2p: int | None = None

    def address_texts(self, end: tuple[str, str]) -> tuple[str, str, str] | None:
        """The link's addresses as seen from ``end`` and as the plan writes them: (this end ``a.b.c.d/31``, the
        other end's ``a.b.c.d``, the link's network ``a.b.c.d/31``); None when the link is not addressed."""
        if self.p2p is None:
            return None
        mine, theirs = (self.p2p, self.p2p + 1) if end == self.a else (self.p2p + 1, self.p2p)
        return f"{dotted_quad(mine)}/31", dotted_quad(theirs), f"{dotted_quad(self.p2p)}/31"


@dataclass
class Intent:
    """The intent, resolved once at load time; everything downstream reads only this."""

    document: IntentDocument
    files: list[str]
    switches: dict[str, Switch]
    ib_switches: dict[str, IbSwitch]
    hosts: dict[str, Host]
    links: list[Link]
    tenants: list[Tenant] = field(default_factory=list)  # xoff.intent.tenant_resolve
    # where each (device, field) value came from: the location and the intent path that set it
    provenance: dict[tuple[str, str], tuple[Location | None, str]] = field(default_factory=dict)
    # where each written value of the intent is (empty for an intent not loaded from files)
    sources: SourceMap = field(default_factory=SourceMap, repr=False)

    def locate(self, path: str) -> Location | None:
        """Where the field ``path`` (``qos_policies.rdma.buffers``), or its nearest written ancestor, is."""
        by_name = {dotted(p): loc for p, loc in self.sources.values.items()}
        while path:
            if path in by_name:
                return by_name[path]
            path = path[: max(path.rfind("."), path.rfind("["), 0)]
        return by_name.get("")

    def located(self, problems: list[Problem]) -> list[Problem]:
        """Problems found after loading, each given the place of the field it names where it has none."""
        return [p if p.location is not None else replace(p, location=self.locate(p.path)) for p in problems]

    @property
    def name(self) -> str:
        return self.document.fabric.name

    def partition_members(self, members: list[str] | str) -> list[str]:
        """Hosts of an InfiniBand partition: 'all' means every host with an HCA on the compute fabric."""
        if isinstance(members, str):
            return [h.name for h in self.hosts.values() if any(n.network == "compute" for n in h.nics.values())]
        return [name for item in members for name in expand(item)]

    def device(self, name: str) -> Device | None:
        return self.switches.get(name) or self.ib_switches.get(name) or self.hosts.get(name)
