"""Tenants: who owns which hosts, NICs or GPUs, and how the compute network keeps them apart.

On InfiniBand a tenant is a partition (its PKey, membership and service level); on RoCE a VRF on the
leaves its NICs are cabled to, with a lossless class of the network's policy (the fabric's by default),
carried across the spines by VXLAN-EVPN with an L3 VNI of its own where every leaf's platform renders EVPN.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from xoff.intent.base import IntentModel
from xoff.intent.types import L3Vni, Name, PKey, ServiceLevel


class TenantSpec(IntentModel):
    """A tenant of the compute network: what it owns, and the partition or VRF that isolates it."""

    name: Name = Field(
        description="the tenant's name; names its VRF (Vrf-<name>) and partition unless they are given",
        examples=["blue"],
    )
    hosts: list[str] = Field(
        default_factory=list,
        description="hosts (names or brace patterns): every compute NIC of each",
        examples=[["gpu{01..04}"]],
    )
    nics: list[str] = Field(
        default_factory=list,
        description="single NICs as host:netdev (either side a brace pattern)",
        examples=[["gpu05:eth{0..3}"]],
    )
    gpus: list[str] = Field(
        default_factory=list,
        description="GPUs as host:index (either side a brace pattern): the compute NIC of each GPU",
        examples=[["gpu06:{0..3}"]],
    )
    pkey: PKey | None = Field(
        default=None, description="InfiniBand: the tenant partition's PKey (required there)", examples=[0x0101]
    )
    membership: Literal["full", "limited"] = Field(
        default="full",
        description="InfiniBand: how the tenant's ports are members of its partition",
        examples=["limited"],
    )
    service_level: ServiceLevel | None = Field(
        default=None, description="InfiniBand: the partition's SL (sl=); default: the network's", examples=[1]
    )
    vrf: Name | None = Field(
        default=None, description="RoCE: the tenant's VRF on the leaves; default: Vrf-<name>", examples=["VrfBlue"]
    )
    vni: L3Vni | None = Field(
        default=None,
        description="RoCE: the tenant VRF's L3 VNI (VXLAN-EVPN type-5 routes across the spines); default: allocated "
        "from 50001 upward in tenant order, skipping the VNIs tenants write",
        examples=[50010],
    )
    lossless_class: str | None = Field(
        default=None,
        description="RoCE: the lossless class of the network's QoS policy the tenant uses; default: the first one",
        examples=["rdma"],
    )
    share_lossless: bool = Field(
        default=False,
        description="RoCE: the tenant may share a lossless priority-group with other tenants on a port",
        examples=[True],
    )
