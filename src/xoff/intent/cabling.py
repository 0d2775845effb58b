"""Cabling as written: explicit links, and generators for the common shapes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from xoff.intent.base import IntentModel
from xoff.intent.devices import NetworkName
from xoff.intent.types import CableMetres, Count, SpeedMbps

Names = str | list[str]  # a brace pattern or an explicit list of device names


class LinkSpec(IntentModel):
    """One cable: ``a`` and ``b`` are ``device:port`` (a host end names the netdev)."""

    a: str = Field(pattern=r"^[^:\s]+:[^:\s]+$", description="device:port")
    b: str = Field(pattern=r"^[^:\s]+:[^:\s]+$", description="device:port")
    speed: SpeedMbps | None = Field(default=None, description="must agree with both ports when given")
    length: CableMetres | None = Field(default=None, description="metres; defaults by link role")


class LeafSpine(IntentModel):
    """2-tier: every leaf to every spine, ``links_per_pair`` times, on the next free uplink/downlink."""

    kind: Literal["leaf_spine"]
    leaves: Names
    spines: Names
    links_per_pair: Count = 1
    length: CableMetres | None = None


class Clos3(IntentModel):
    """3-tier: leaves and spines split evenly into pods (leaf to every spine of its pod); spine i of every
    pod to every super-spine of plane i (super-spines split evenly into one plane per spine of a pod)."""

    kind: Literal["clos3"]
    pods: Count
    leaves: Names
    spines: Names
    super_spines: Names
    leaf_spine_length: CableMetres | None = None
    spine_super_spine_length: CableMetres | None = None


class RailOptimized(IntentModel):
    """Rail-optimised hosts: NIC on rail i of every host goes to ``leaves[i]`` (one scalable unit)."""

    kind: Literal["rail_optimized"]
    hosts: Names
    leaves: Names
    network: NetworkName = "compute"
    length: CableMetres | None = None


Generator = Annotated[LeafSpine | Clos3 | RailOptimized, Field(discriminator="kind")]
