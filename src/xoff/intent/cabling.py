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

    kind: Literal["leaf_spine"] = Field(description="leaf_spine: a 2-tier Clos")
    leaves: Names = Field(description="leaf names: a brace pattern or a list")
    spines: Names = Field(description="spine names: a brace pattern or a list")
    links_per_pair: Count = Field(default=1, description="parallel links between each leaf and each spine")
    length: CableMetres | None = Field(default=None, description="cable length; defaults to the policy's leaf_spine")


class Clos3(IntentModel):
    """3-tier: leaves and spines split evenly into pods (leaf to every spine of its pod); spine i of every
    pod to every super-spine of plane i (super-spines split evenly into one plane per spine of a pod)."""

    kind: Literal["clos3"] = Field(
        description="clos3: a 3-tier Clos of pods and super-spine planes", examples=["clos3"]
    )
    pods: Count = Field(description="number of pods the leaves and spines are split into", examples=[2])
    leaves: Names = Field(description="leaf names: a brace pattern or a list", examples=["leaf{1..8}"])
    spines: Names = Field(description="spine names: a brace pattern or a list", examples=["spine{1..4}"])
    super_spines: Names = Field(description="super-spine names: a brace pattern or a list", examples=["ss{1..4}"])
    leaf_spine_length: CableMetres | None = Field(
        default=None, description="leaf-spine cable length; defaults to the policy's leaf_spine", examples=["30m"]
    )
    spine_super_spine_length: CableMetres | None = Field(
        default=None,
        description="spine-super-spine cable length; defaults to the policy's spine_super_spine",
        examples=["200m"],
    )


class RailOptimized(IntentModel):
    """Rail-optimised hosts: NIC on rail i of every host goes to ``leaves[i]`` (one scalable unit)."""

    kind: Literal["rail_optimized"] = Field(description="rail_optimized: NIC rail i of every host to leaf i")
    hosts: Names = Field(description="host names: a brace pattern or a list")
    leaves: Names = Field(description="one leaf per rail, in rail order: a brace pattern or a list")
    network: NetworkName = Field(default="compute", description="the network whose NICs are cabled")
    length: CableMetres | None = Field(default=None, description="cable length; defaults to the policy's host_leaf")


Generator = Annotated[LeafSpine | Clos3 | RailOptimized, Field(discriminator="kind")]
