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


class IntentDocument(IntentModel):
    """Top level of an intent: one file, or the merge of every YAML file of a directory."""

    fabric: FabricInfo
    networks: Networks
    qos_policies: dict[str, QosPolicy] = Field(default_factory=dict)
    defaults: Defaults = Field(default_factory=Defaults)
    roles: dict[RoleKey, SwitchSettings] = Field(default_factory=dict)
    host_profiles: dict[str, HostProfile] = Field(default_factory=dict)
    switches: list[SwitchEntry] = Field(default_factory=list)
    ib_switches: list[IbSwitchEntry] = Field(default_factory=list)
    hosts: list[HostEntry] = Field(default_factory=list)
    links: list[LinkSpec] = Field(default_factory=list)
    cabling: list[Generator] = Field(default_factory=list)
