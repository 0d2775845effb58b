"""The underlay address pools of each network, as the intent allocated them (NetworkPlan).

The BGP import/export policy permits exactly the underlay's host routes: switch loopbacks (/32)
and point-to-point link subnets (/31) from the network's pools. Using the intent's pools (not the
addresses in use today) means adding a rack later needs no policy change on existing switches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import IPv4Network

from xoff.desired.models import FabricState

LOOPBACK_LENGTH = 32
P2P_LENGTH = 31


@dataclass(frozen=True)
class Pool:
    """Every member is a /``length`` inside ``prefix``."""

    prefix: IPv4Network
    length: int


@dataclass(frozen=True)
class NetworkPools:
    loopbacks: tuple[Pool, ...]
    p2p: tuple[Pool, ...]


def underlay_pools(fabric: FabricState) -> Mapping[str, NetworkPools]:
    """Network name -> its loopback and point-to-point pools (routed Ethernet networks only)."""
    out: dict[str, NetworkPools] = {}
    for name, plan in sorted(fabric.networks.items()):
        if plan.loopback_prefix is None or plan.p2p_prefix is None:
            continue
        out[name] = NetworkPools(
            loopbacks=(Pool(IPv4Network(plan.loopback_prefix), LOOPBACK_LENGTH),),
            p2p=(Pool(IPv4Network(plan.p2p_prefix), P2P_LENGTH),),
        )
    return out
