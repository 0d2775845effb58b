"""Builder for ``vrf default router static`` (FabricState ``Device.static_routes``).

NVUE command reference, Static Routing: ``nv set vrf <vrf-id> router static <route-id> via <via-id>``,
the route id being the prefix and each ``via`` one next hop (several = ECMP); the next hop is the
peer's address on the link, resolved over the connected /31.
"""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.cumulus.nvue import Tree, put


def build_static_routes(device: Device) -> Tree:
    tree: Tree = {}
    for route in device.static_routes:
        put(tree, ("vrf", "default", "router", "static", route.prefix, "via", route.next_hop))
    return tree
