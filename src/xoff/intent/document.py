"""The intent document as written, before patterns, inheritance and generators are resolved."""

from __future__ import annotations

from pydantic import Field

from xoff.intent.base import IntentModel
from xoff.intent.cabling import Generator, LinkSpec
from xoff.intent.devices import (
    Defaults,
    HostEntry,
    HostProfile,
    IbSwitchEntry,
    RoleKey,
    SwitchEntry,
    SwitchSettings,
)
from xoff.intent.networks import FabricInfo, Networks
from xoff.intent.qos import QosPolicy
from xoff.intent.tenants import TenantSpec


class IntentDocument(IntentModel):
    """Top level of an intent: one file, or the merge of every YAML file of a directory."""

    fabric: FabricInfo = Field(description="the fabric's name and free-text details")
    networks: Networks = Field(description="the management, compute and storage networks")
    qos_policies: dict[str, QosPolicy] = Field(
        default_factory=dict, description="QoS policies by name; a network names the one it uses"
    )
    defaults: Defaults = Field(default_factory=Defaults, description="settings every switch inherits")
    roles: dict[RoleKey, SwitchSettings] = Field(
        default_factory=dict,
        description="settings per role (leaf, spine, ...) or per network and role (storage-leaf); they override defaults",
    )
    host_profiles: dict[str, HostProfile] = Field(
        default_factory=dict, description="kinds of server by name: GPUs and NICs"
    )
    switches: list[SwitchEntry] = Field(default_factory=list, description="the Ethernet switches")
    ib_switches: list[IbSwitchEntry] = Field(default_factory=list, description="the InfiniBand switches")
    hosts: list[HostEntry] = Field(default_factory=list, description="the GPU servers")
    links: list[LinkSpec] = Field(default_factory=list, description="explicit cables")
    cabling: list[Generator] = Field(
        default_factory=list, description="cabling generators that expand into cables on the next free ports"
    )
    tenants: list[TenantSpec] = Field(
        default_factory=list,
        description="tenants of the compute network: an InfiniBand partition or a RoCE VRF each",
        examples=[[{"name": "blue", "hosts": ["gpu{01..04}"]}]],
    )
