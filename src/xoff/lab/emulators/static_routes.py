"""Static routes carried into a lab switch's FRR ``staticd``, as the real NOS does it.

Real SONiC (bgpcfgd's static route manager, STATIC_ROUTE -> ``ip route`` in the bgp container's FRR),
Cumulus (NVUE ``vrf default router static`` -> frr.conf) and, in the lab, EOS (whose static routes stand
in FRR's staticd for the EOS routing agent) all end as FRR ``ip route PREFIX NEXTHOP [IFNAME]`` lines
owned by staticd, which installs the ones whose next hop resolves into zebra's FIB (protocol static,
distance 1: over eBGP's 20). Only the difference between two sets of routes is typed, removals first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class Route(NamedTuple):
    """One next hop of a static route; ``ifname`` is the kernel's name of the egress port (or None)."""

    prefix: str
    next_hop: str | None
    ifname: str | None = None
    distance: int | None = None  # None: FRR's default for static routes (1)

    def frr(self) -> str:
        """FRR's ``ip route`` arguments: ``PREFIX NEXTHOP [IFNAME] [DISTANCE]`` or ``PREFIX IFNAME [DISTANCE]``."""
        distance = str(self.distance) if self.distance is not None else None
        return " ".join(p for p in (self.prefix, self.next_hop, self.ifname, distance) if p)


def frr_lines(old: Iterable[Route], new: Iterable[Route]) -> list[str]:
    """vtysh configuration lines (config node) taking staticd from ``old`` to ``new``."""
    before, after = set(old), set(new)
    lines = [f"no ip route {r.frr()}" for r in sorted(before - after, key=_key)]
    return lines + [f"ip route {r.frr()}" for r in sorted(after - before, key=_key)]


def _key(route: Route) -> tuple[str, str, str, int]:
    return route.prefix, route.next_hop or "", route.ifname or "", route.distance or 1
