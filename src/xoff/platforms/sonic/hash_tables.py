"""SWITCH_HASH (ECMP hash fields) of a SONiC switch, from ``Device.load_balancing``.

sonic-hash.yang (``../shared/schemas/sonic-yang``, revision 2023-09-25) has one row, ``SWITCH_HASH|GLOBAL``,
with the leaf-lists ``ecmp_hash`` / ``lag_hash`` of native field names (``SRC_IP``, ``L4_SRC_PORT``,
``IPV6_FLOW_LABEL``, ...) and ``ecmp_hash_algorithm``. It has no seed, no UDF (queue-pair) field and no
adaptive routing, so ``SUPPORT`` offers none of them and the loader refuses them for SONiC. The
leaf-list is written in Redis's ``name@`` form (comma-joined), which the YANG check and CONFIG_DB read
as the list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xoff.platforms.load_balancing import LoadBalancingSupport

if TYPE_CHECKING:
    from xoff.desired.models import Device
    from xoff.platforms.sonic.tables import Tables

FIELDS = {
    "src-ip": "SRC_IP",
    "dst-ip": "DST_IP",
    "ip-protocol": "IP_PROTOCOL",
    "l4-src-port": "L4_SRC_PORT",
    "l4-dst-port": "L4_DST_PORT",
    "flow-label": "IPV6_FLOW_LABEL",
    "ingress-port": "IN_PORT",
}
SUPPORT = LoadBalancingSupport(
    hash_fields=frozenset(FIELDS),
    why_not="sonic-hash.yang's SWITCH_HASH has hash fields and an algorithm only: no seed, UDF or adaptive routing",
)


def build(device: Device) -> Tables:
    lb = device.load_balancing
    if lb is None:
        return {}
    return {"SWITCH_HASH": {"GLOBAL": {"ecmp_hash@": ",".join(FIELDS[f] for f in lb.hash_fields)}}}
