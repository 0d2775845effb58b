"""Desired state: the vendor-neutral FabricState built from a resolved intent."""

from xoff.desired.build import build_fabric_state
from xoff.desired.models import FabricState

__all__ = ["FabricState", "build_fabric_state"]
