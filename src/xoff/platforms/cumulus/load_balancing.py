"""Builder for ECMP hashing and adaptive routing (FabricState ``Device.load_balancing``).

NVUE reference (docs.nvidia.com/networking-ethernet-software/nvue-reference/): "System Forwarding"
(``nv set system forwarding ecmp-hash <field> on|off``, Cumulus Linux 5.2+; 5.15 spells the value
``enabled``/``disabled``; ``nv show system forwarding`` prints the defaults, several fields on) and
"Adaptive Routing" (``nv set router adaptive-routing enable on`` and ``nv set interface <swp> router
adaptive-routing enable on``, 5.1+, ``state enabled`` from 5.15; not on subinterfaces, SVIs or bonds).
The seed is ``nv set system forwarding hash-seed`` (traffic.conf's ``ecmp_hash_seed``, 0..4294967295;
unset, switchd picks a random one per switch). Every field xoff models is written on or off, so a field
left at NVUE's default-on does not hash behind the intent's back. NVUE's ecmp-hash has no queue-pair
or UDF field, so RoCE queue-pair hashing is refused for Cumulus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xoff.platforms.cumulus.nvue import Tree, put
from xoff.platforms.load_balancing import LoadBalancingSupport

if TYPE_CHECKING:  # the platform record reads SUPPORT: keep this module light
    from xoff.desired.models import Device

FIELDS = {
    "src-ip": "source-ip",
    "dst-ip": "destination-ip",
    "ip-protocol": "ip-protocol",
    "l4-src-port": "source-port",
    "l4-dst-port": "destination-port",
    "flow-label": "ipv6-label",
    "ingress-port": "ingress-interface",
}
SUPPORT = LoadBalancingSupport(
    hash_fields=frozenset(FIELDS),
    seed=True,
    adaptive_routing=True,
    why_not="NVUE's system forwarding ecmp-hash has no queue-pair or UDF field",
)


def build_load_balancing(device: Device) -> Tree:
    tree: Tree = {}
    lb = device.load_balancing
    if lb is None:
        return tree
    for name, nvue in FIELDS.items():
        put(tree, ("system", "forwarding", "ecmp-hash", nvue), "on" if name in lb.hash_fields else "off")
    if lb.seed is not None:
        put(tree, ("system", "forwarding", "hash-seed"), lb.seed)
    if lb.adaptive_routing:
        put(tree, ("router", "adaptive-routing", "enable"), "on")
        for port in lb.adaptive_routing_ports:
            put(tree, ("interface", port, "router", "adaptive-routing", "enable"), "on")
    return tree
