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


class PortSpec(IntentModel):
    """One port or a brace pattern of ports, all of one speed."""

    name: str = Field(description="port name or brace pattern, e.g. Ethernet{0..248..8}, swp{1..32}")
    speed: SpeedMbps
    use: Literal["downlink", "uplink", "any"] = Field(
        default="any",
        description="which cabling generators may take this port: toward hosts or toward spines",
    )
    mtu: SwitchMtu | None = None
    shutdown: bool = False


class StaticRouteSpec(IntentModel):
    """A static route: traffic for ``prefix`` leaves towards ``via`` (it wins over BGP for an equal prefix)."""

    prefix: IPv4Network = Field(description="destination prefix, e.g. 10.0.0.0/8, or 0.0.0.0/0 for a default route")
    via: str = Field(
        description="next hop: a cabled peer device's name (every link to it), its address on the link, or a local port"
    )


class SwitchSettings(IntentModel):
    """Settings a switch can inherit from defaults.switch and roles.<role>."""

    platform: Platform | None = None
    asic: str | None = Field(default=None, description="ASIC family: spectrum1-6, tomahawk, tomahawk5")
    hwsku: str | None = None
    network: NetworkName | None = None
    mtu: SwitchMtu | None = Field(default=None, description="port MTU; defaults to the network's switch_mtu")
    asn: Asn | None = Field(default=None, description="fixed ASN; otherwise the network's ASN plan decides")
    ports: list[PortSpec] | None = None
    static_routes: list[StaticRouteSpec] | None = Field(
        default=None, description="static routes; a device's list replaces its role's and the defaults' list"
    )


class SwitchEntry(SwitchSettings):
    name: str = Field(description="switch name or brace pattern")
    role: SwitchRole
    mgmt: IPv4Address | None = Field(default=None, description="defaults to the next free management address")
    loopback: IPv4Address | None = Field(default=None, description="defaults to the next free loopback")
    pod: Annotated[int, in_range(1, 1000, "pod"), schema_range(1, 1000)] | None = None


class IbSwitchSettings(IntentModel):
    model: Literal["quantum", "quantum2", "quantum3"] | None = None
    ports: list[PortSpec] | None = None


class IbSwitchEntry(IbSwitchSettings):
    name: str
    role: SwitchRole
    mgmt: IPv4Address | None = None
    guid: Annotated[str, Field(pattern=r"^0x[0-9a-fA-F]{16}$")] | None = None


class NicSpec(IntentModel):
    """A NIC port (or a pattern of them) of a host profile, attached to one network."""

    netdev: str = Field(description="Linux netdev name or pattern, e.g. eth{0..7}")
    rdma: str | None = Field(default=None, description="RDMA device or pattern, e.g. mlx5_{0..7}")
    network: NetworkName
    rail: Index | None = Field(default=None, description="rail of the first NIC; the next NICs count up")
    gpu: Index | None = Field(default=None, description="GPU nearest the first NIC; the next NICs count up")
    speed: SpeedMbps
    mtu: HostMtu | None = None


class HostProfile(IntentModel):
    """What a kind of server has: GPUs, NICs, the NIC model."""

    gpus: GpuCount = 0
    gpu_model: str | None = None
    nic_model: Literal["connectx6", "connectx7", "connectx8", "bluefield3"] = "connectx7"
    nics: list[NicSpec] = Field(default_factory=list)
    mgmt_interface: str = "eno1"


class HostEntry(IntentModel):
    name: str = Field(description="host name or brace pattern")
    profile: str
    mgmt: IPv4Address | None = None
    bmc: IPv4Address | None = Field(default=None, description="BMC/IPMI address on the management network")
    unit: Annotated[int, in_range(1, 10000, "scalable unit"), schema_range(1, 10000)] | None = None


class Defaults(IntentModel):
    switch: SwitchSettings = Field(default_factory=SwitchSettings)
    ib_switch: IbSwitchSettings = Field(default_factory=IbSwitchSettings)
