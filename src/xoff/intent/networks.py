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
    """Which fabric this intent describes."""

    name: Name = Field(description="the fabric's name: names the lab, the push lock and the reports")
    site: str | None = Field(default=None, description="free text: where the fabric stands")
    description: str | None = Field(default=None, description="free text, shown in reports")


class ManagementNetwork(IntentModel):
    """Out-of-band: switch mgmt ports, host mgmt NICs, BMCs. Always lossy."""

    prefix: IPv4Network = Field(description="management subnet; devices without mgmt get the next free address")
    gateway: IPv4Address | None = Field(default=None, description="default gateway of the management network")
    qos_policy: str | None = Field(
        default=None,
        description="name of a qos_policies entry for this network; it must have no lossless class",
        examples=["mgmt"],
    )


class AsnPlan(IntentModel):
    """RFC 7938 style: one ASN per super-spine tier, one per pod's spines, one per leaf."""

    super_spine: Asn | None = Field(
        default=None, description="ASN of every super-spine (3-tier fabrics)", examples=[65000]
    )
    spine: Asn | None = Field(default=None, description="ASN of pod 1's spines; pod n gets spine + n - 1")
    leaf: Asn | None = Field(default=None, description="first leaf ASN; each leaf gets the next one")


class Underlay(IntentModel):
    """The routing protocol between switches (RFC 7938 eBGP, one session per /31 link)."""

    protocol: Literal["ebgp"] = Field(default="ebgp", description="routing protocol of the underlay", examples=["ebgp"])
    asn_plan: AsnPlan = Field(default_factory=AsnPlan, description="how ASNs are given to tiers and switches")
    max_paths: Count = Field(
        default=64, description="ECMP paths BGP installs per prefix (maximum-paths)", examples=[32]
    )


class RoceNetwork(IntentModel):
    """A routed lossless (or lossy) Ethernet fabric: every link a /31, eBGP underlay."""

    kind: Literal["roce"] = Field(description="roce: routed Ethernet, RoCEv2 on the lossless classes")
    qos_policy: str = Field(description="name of the qos_policies entry every switch and NIC of this network uses")
    p2p_prefix: IPv4Network = Field(description="pool of /31s for switch-switch and switch-host links")
    loopback_prefix: IPv4Network = Field(description="pool of /32 router loopbacks")
    switch_mtu: SwitchMtu = Field(
        default=9100, description="port MTU of the network's switches (bytes)", examples=[9216]
    )
    host_mtu: HostMtu = Field(
        default=9000, description="MTU of the hosts' NICs on this network (bytes)", examples=[4200]
    )
    underlay: Underlay = Field(default_factory=Underlay, description="routing between the switches")


RoutingEngine = Literal["minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp"]
_DEFAULT_ENGINES: list[RoutingEngine] = ["ftree", "updn"]


class SubnetManager(IntentModel):
    """OpenSM, the InfiniBand subnet manager: where it runs and how it routes (opensm.conf)."""

    host: str = Field(description="the host that runs OpenSM; it must be cabled to the InfiniBand fabric")
    routing_engine: list[RoutingEngine] = Field(
        default_factory=_DEFAULT_ENGINES.copy,
        min_length=1,
        description="OpenSM routing engines, tried in order (routing_engine)",
    )
    no_fallback: bool = Field(default=False, description="fail instead of falling back to minhop (no_fallback)")
    priority: Annotated[int, in_range(0, 15, "SM priority"), schema_range(0, 15)] = Field(
        default=15, description="SM priority; the highest becomes master (sm_priority)"
    )
    sweep_interval_s: Annotated[int, in_range(0, 3600, "sweep interval"), schema_range(0, 3600)] = Field(
        default=10, description="seconds between light sweeps; 0 turns sweeping off (sweep_interval)"
    )
    lmc: Annotated[int, in_range(0, 7, "LMC"), schema_range(0, 7)] = Field(
        default=0, description="LID mask control: 2^lmc LIDs per port, for multipath (lmc)"
    )


class Partition(IntentModel):
    """An InfiniBand partition (partitions.conf): a P_Key and the hosts in it."""

    name: Name = Field(description="partition name")
    pkey: PKey = Field(description="partition key (without the membership bit)")
    members: list[str] | Literal["all"] = Field(description="host names, or 'all' hosts on the fabric")
    membership: Literal["full", "limited"] = Field(
        default="full", description="full members talk to every member; limited only to full members"
    )
    ipoib: bool = Field(default=False, description="create an IPoIB interface for this partition", examples=[True])


class VlArbEntry(IntentModel):
    """One entry of a VL arbitration table: a virtual lane and its weight."""

    vl: VirtualLane = Field(description="virtual lane")
    weight: Annotated[int, in_range(0, 255, "VL arbitration weight"), schema_range(0, 255)] = Field(
        description="units of 64 bytes the VL may send per turn; 0 skips the entry"
    )


class IbQos(IntentModel):
    """OpenSM QoS keys (reference/lossless.md §5.1)."""

    max_vls: Annotated[int, in_range(1, 15, "VL count"), schema_range(1, 15)] = Field(
        default=8, description="data virtual lanes the fabric uses (qos_max_vls)"
    )
    high_limit: Annotated[int, in_range(0, 255, "high limit"), schema_range(0, 255)] = Field(
        default=0, description="high-priority packets sent before a low-priority one must go (qos_high_limit)"
    )
    sl2vl: list[Annotated[int, in_range(0, 15, "virtual lane"), schema_range(0, 15)]] = Field(
        default_factory=lambda: [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7],
        min_length=16,
        max_length=16,
        description="virtual lane of each service level 0..15 (qos_sl2vl); each below max_vls",
    )
    vlarb_high: list[VlArbEntry] = Field(
        default_factory=list, description="high-priority VL arbitration table (qos_vlarb_high)"
    )
    vlarb_low: list[VlArbEntry] = Field(
        default_factory=lambda: [VlArbEntry(vl=v, weight=4) for v in range(8)],
        description="low-priority VL arbitration table (qos_vlarb_low)",
    )


class InfinibandNetwork(IntentModel):
    """An InfiniBand fabric run by OpenSM: routing, partitions, QoS (SL to VL, VL arbitration)."""

    kind: Literal["infiniband"] = Field(description="infiniband: a subnet run by OpenSM")
    subnet_manager: SubnetManager = Field(description="where OpenSM runs and how it routes")
    partitions: list[Partition] = Field(default_factory=list, description="partitions besides the default one")
    qos: IbQos = Field(default_factory=IbQos, description="OpenSM QoS: SL to VL map and VL arbitration")
    service_level: ServiceLevel = Field(default=0, description="SL the jobs use (NCCL_IB_SL)")
    cable_lengths: CableLengths = Field(
        default_factory=CableLengths,
        description="defaults for links without a length",
        examples=[{"host_leaf": "3m", "leaf_spine": "30m"}],
    )


class Networks(IntentModel):
    """The cluster's networks: management always, compute always, storage when it has its own switches."""

    management: ManagementNetwork = Field(description="the out-of-band network every device is managed through")
    compute: Annotated[RoceNetwork | InfinibandNetwork, Field(discriminator="kind")] = Field(
        description="the GPU-to-GPU network: kind roce or kind infiniband"
    )
    storage: RoceNetwork | None = Field(default=None, description="the storage network, if it has switches of its own")
