"""Devices as written: switches, InfiniBand switches, hosts and host profiles.

Names may be brace patterns (``leaf{1..4}``, ``Ethernet{0..248..8}``) that expand to many
devices or ports; an address given for a pattern is the first one and increments per device.
Settings inherit defaults -> role -> device; resolution happens once, in ``resolve.py``.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from xoff.intent.base import IntentModel
from xoff.intent.load_balancing import LoadBalancing
from xoff.intent.types import Asn, GpuCount, HostMtu, Index, SpeedMbps, SwitchMtu, in_range, schema_range
from xoff.platforms.registry import names as platform_names

SwitchRole = Literal["leaf", "spine", "super-spine"]
# roles.<role> applies to every switch of that role; roles.<network>-<role> only to that network's, and wins
RoleKey = Literal[
    "leaf",
    "spine",
    "super-spine",
    "compute-leaf",
    "compute-spine",
    "compute-super-spine",
    "storage-leaf",
    "storage-spine",
    "storage-super-spine",
]
# A switch's platform: every registered platform of kind "switch", in registry order (the schema's enum
# and the "allowed: ..." of an unknown one list them); a site platform added by entry point joins them.
if TYPE_CHECKING:
    Platform = str
else:
    Platform = Literal[platform_names("switch")]
NetworkName = Literal["compute", "storage"]
# a rack's name as written on the floor plan (a failure domain: `push --canary-by rack`)
Rack = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


class PortSpec(IntentModel):
    """One port or a brace pattern of ports, all of one speed."""

    name: str = Field(description="port name or brace pattern, e.g. Ethernet{0..248..8}, swp{1..32}")
    speed: SpeedMbps = Field(description="port speed: 400G, 100G, ... or Mb/s")
    use: Literal["downlink", "uplink", "any"] = Field(
        default="any",
        description="which cabling generators may take this port: toward hosts or toward spines",
    )
    mtu: SwitchMtu | None = Field(default=None, description="port MTU; defaults to the switch's mtu", examples=[9100])
    shutdown: bool = Field(default=False, description="administratively down", examples=[True])


class StaticRouteSpec(IntentModel):
    """A static route: traffic for ``prefix`` leaves towards ``via`` (it wins over BGP for an equal prefix)."""

    prefix: IPv4Network = Field(
        description="destination prefix, e.g. 10.0.0.0/8, or 0.0.0.0/0 for a default route", examples=["0.0.0.0/0"]
    )
    via: str = Field(
        description="next hop: a cabled peer device's name (every link to it), its address on the link, or a local port",
        examples=["spine1"],
    )


class SwitchSettings(IntentModel):
    """Settings a switch can inherit from defaults.switch and roles.<role>."""

    platform: Platform | None = Field(default=None, description="the switch's NOS (a registered switch platform)")
    asic: str | None = Field(
        default=None,
        description="ASIC family: spectrum1-6, tomahawk, tomahawk5, ...; derived from sku when that is given",
    )
    sku: str | None = Field(
        default=None,
        description="hardware SKU from xoff's catalogue (SONiC HWSKU or a known name: SN5600, 7060X6-64PE, ...):"
        " sets the ASIC, the buffer pools and the static model's lookup table (docs/buffers.md)",
        examples=["SN5600"],
    )
    hwsku: str | None = Field(default=None, description="SONiC HwSKU (SONiC only)")
    network: NetworkName | None = Field(
        default=None, description="the network the switch belongs to (default compute)", examples=["storage"]
    )
    mtu: SwitchMtu | None = Field(
        default=None, description="port MTU; defaults to the network's switch_mtu", examples=[9100]
    )
    asn: Asn | None = Field(
        default=None, description="fixed ASN; otherwise the network's ASN plan decides", examples=[65101]
    )
    ports: list[PortSpec] | None = Field(default=None, description="the switch's front-panel ports")
    static_routes: list[StaticRouteSpec] | None = Field(
        default=None,
        description="static routes; a device's list replaces its role's and the defaults' list",
        examples=[[{"prefix": "0.0.0.0/0", "via": "spine1"}]],
    )
    load_balancing: LoadBalancing | None = Field(
        default=None,
        description="ECMP hashing, RoCE queue-pair hashing and adaptive routing; a device's block replaces its"
        " role's and the defaults' block",
        examples=[{"hash_fields": ["src-ip", "dst-ip", "l4-src-port", "l4-dst-port"], "adaptive_routing": True}],
    )


class SwitchEntry(SwitchSettings):
    name: str = Field(description="switch name or brace pattern")
    role: SwitchRole = Field(description="tier of the switch; picks roles.<role> and the ASN plan")
    mgmt: IPv4Address | None = Field(default=None, description="defaults to the next free management address")
    loopback: IPv4Address | None = Field(
        default=None, description="defaults to the next free loopback", examples=["198.18.0.1"]
    )
    pod: Annotated[int, in_range(1, 1000, "pod"), schema_range(1, 1000)] | None = Field(
        default=None, description="pod number (3-tier fabrics); spines of pod n get ASN spine + n - 1", examples=[1]
    )
    plane: Annotated[int, in_range(1, 1000, "plane"), schema_range(1, 1000)] | None = Field(
        default=None,
        description="plane of a spine or super-spine in a multi-plane fabric; the clos3 generator sets it"
        " (spine i of every pod and the super-spines it cables to are plane i)",
        examples=[1],
    )
    rack: Rack | None = Field(
        default=None, description="rack the switch stands in (a failure domain)", examples=["r12"]
    )


class IbSwitchSettings(IntentModel):
    """Settings an InfiniBand switch can inherit from defaults.ib_switch."""

    model: Literal["quantum", "quantum2", "quantum3"] | None = Field(
        default=None, description="NVIDIA Quantum generation (port count and speed)"
    )
    ports: list[PortSpec] | None = Field(
        default=None,
        description="the switch's ports (numbers or patterns)",
        examples=[[{"name": "{1..32}", "speed": "400G"}]],
    )


class IbSwitchEntry(IbSwitchSettings):
    """An InfiniBand switch (or a brace pattern of them)."""

    name: str = Field(description="switch name or brace pattern")
    role: SwitchRole = Field(description="tier of the switch in the fat tree")
    mgmt: IPv4Address | None = Field(default=None, description="defaults to the next free management address")
    guid: Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{16}$")] | None = Field(
        default=None,
        description="node GUID; defaults to the next of a sequence per fabric",
        examples=["0x0002c90300000001"],
    )


class NicSpec(IntentModel):
    """A NIC port (or a pattern of them) of a host profile, attached to one network."""

    netdev: str = Field(description="Linux netdev name or pattern, e.g. eth{0..7}")
    rdma: str | None = Field(default=None, description="RDMA device or pattern, e.g. mlx5_{0..7}")
    network: NetworkName = Field(description="the network this NIC is cabled to")
    rail: Index | None = Field(default=None, description="rail of the first NIC; the next NICs count up")
    gpu: Index | None = Field(default=None, description="GPU nearest the first NIC; the next NICs count up")
    speed: SpeedMbps = Field(description="NIC port speed")
    mtu: HostMtu | None = Field(
        default=None, description="NIC MTU; defaults to the network's host_mtu", examples=[4200]
    )


class HostProfile(IntentModel):
    """What a kind of server has: GPUs, NICs, the NIC model."""

    gpus: GpuCount = Field(default=0, description="GPUs per host")
    gpu_model: str | None = Field(default=None, description="free text, e.g. H100; shown in reports")
    nic_model: Literal["connectx6", "connectx7", "connectx8", "bluefield3"] = Field(
        default="connectx7", description="NIC family of the RDMA NICs (tool and driver settings follow it)"
    )
    nics: list[NicSpec] = Field(default_factory=list, description="the RDMA NICs and which network each is on")
    mgmt_interface: str = Field(default="eno1", description="Linux name of the management interface")
    roce_adaptive_routing: bool = Field(
        default=False,
        description="the NICs accept RoCE packets out of order (ConnectX/BlueField-3 ROCE_ACCL register:"
        " adaptive retransmission, forced adaptive routing); needed behind switches with adaptive routing",
        examples=[True],
    )


class HostEntry(IntentModel):
    """A GPU server (or a brace pattern of them)."""

    name: str = Field(description="host name or brace pattern")
    profile: str = Field(description="name of a host_profiles entry")
    mgmt: IPv4Address | None = Field(default=None, description="defaults to the next free management address")
    bmc: IPv4Address | None = Field(default=None, description="BMC/IPMI address on the management network")
    unit: Annotated[int, in_range(1, 10000, "scalable unit"), schema_range(1, 10000)] | None = Field(
        default=None,
        description="scalable unit the host belongs to (a failure domain; its leaves take the unit of their hosts)",
    )
    rack: Rack | None = Field(
        default=None,
        description="rack the host stands in; defaults to the rack of the leaf it hangs on",
        examples=["r12"],
    )


class Defaults(IntentModel):
    """Settings every device inherits unless its role or the device itself says otherwise."""

    switch: SwitchSettings = Field(default_factory=SwitchSettings, description="defaults of every Ethernet switch")
    ib_switch: IbSwitchSettings = Field(
        default_factory=IbSwitchSettings, description="defaults of every InfiniBand switch"
    )
