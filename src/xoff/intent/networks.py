"""The three networks of a GPU cluster: management, compute (RoCE or InfiniBand), storage."""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network
from typing import Annotated, Literal

from pydantic import Field

from xoff.intent.base import IntentModel
from xoff.intent.qos import CableLengths
from xoff.intent.types import (
    Asn,
    Count,
    HostMtu,
    Name,
    PKey,
    ServiceLevel,
    SwitchMtu,
    VirtualLane,
    in_range,
    schema_range,
)


class FabricInfo(IntentModel):
    name: Name
    site: str | None = None
    description: str | None = None


class ManagementNetwork(IntentModel):
    """Out-of-band: switch mgmt ports, host mgmt NICs, BMCs. Always lossy."""

    prefix: IPv4Network
    gateway: IPv4Address | None = None
    qos_policy: str | None = Field(default=None, description="optional; must have no lossless class")


class AsnPlan(IntentModel):
    """RFC 7938 style: one ASN per super-spine tier, one per pod's spines, one per leaf."""

    super_spine: Asn | None = None
    spine: Asn | None = Field(default=None, description="ASN of pod 1's spines; pod n gets spine + n - 1")
    leaf: Asn | None = Field(default=None, description="first leaf ASN; each leaf gets the next one")


class Underlay(IntentModel):
    protocol: Literal["ebgp"] = "ebgp"
    asn_plan: AsnPlan = Field(default_factory=AsnPlan)
    max_paths: Count = 64


class RoceNetwork(IntentModel):
    """A routed lossless (or lossy) Ethernet fabric: every link a /31, eBGP underlay."""

    kind: Literal["roce"]
    qos_policy: str
    p2p_prefix: IPv4Network = Field(description="pool of /31s for switch-switch and switch-host links")
    loopback_prefix: IPv4Network = Field(description="pool of /32 router loopbacks")
    switch_mtu: SwitchMtu = 9100
    host_mtu: HostMtu = 9000
    underlay: Underlay = Field(default_factory=Underlay)


RoutingEngine = Literal["minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp"]
_DEFAULT_ENGINES: list[RoutingEngine] = ["ftree", "updn"]


class SubnetManager(IntentModel):
    host: str = Field(description="the host that runs OpenSM; it must be cabled to the InfiniBand fabric")
    routing_engine: list[RoutingEngine] = Field(default_factory=_DEFAULT_ENGINES.copy, min_length=1)
    no_fallback: bool = False
    priority: Annotated[int, in_range(0, 15, "SM priority"), schema_range(0, 15)] = 15
    sweep_interval_s: Annotated[int, in_range(0, 3600, "sweep interval"), schema_range(0, 3600)] = 10
    lmc: Annotated[int, in_range(0, 7, "LMC"), schema_range(0, 7)] = 0


class Partition(IntentModel):
    name: Name
    pkey: PKey
    members: list[str] | Literal["all"] = Field(description="host names, or 'all' hosts on the fabric")
    membership: Literal["full", "limited"] = "full"
    ipoib: bool = False


class VlArbEntry(IntentModel):
    vl: VirtualLane
    weight: Annotated[int, in_range(0, 255, "VL arbitration weight"), schema_range(0, 255)]


class IbQos(IntentModel):
    """OpenSM QoS keys (reference/lossless.md §5.1)."""

    max_vls: Annotated[int, in_range(1, 15, "VL count"), schema_range(1, 15)] = 8
    high_limit: Annotated[int, in_range(0, 255, "high limit"), schema_range(0, 255)] = 0
    sl2vl: list[Annotated[int, in_range(0, 15, "virtual lane"), schema_range(0, 15)]] = Field(
        default_factory=lambda: [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7], min_length=16, max_length=16
    )
    vlarb_high: list[VlArbEntry] = Field(default_factory=list)
    vlarb_low: list[VlArbEntry] = Field(default_factory=lambda: [VlArbEntry(vl=v, weight=4) for v in range(8)])


class InfinibandNetwork(IntentModel):
    kind: Literal["infiniband"]
    subnet_manager: SubnetManager
    partitions: list[Partition] = Field(default_factory=list)
    qos: IbQos = Field(default_factory=IbQos)
    service_level: ServiceLevel = Field(default=0, description="SL the jobs use (NCCL_IB_SL)")
    cable_lengths: CableLengths = Field(default_factory=CableLengths, description="defaults for links without a length")


class Networks(IntentModel):
    management: ManagementNetwork
    compute: Annotated[RoceNetwork | InfinibandNetwork, Field(discriminator="kind")]
    storage: RoceNetwork | None = None
