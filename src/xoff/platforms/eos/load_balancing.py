"""``ip load-sharing`` (ECMP hash fields) of an EOS switch, from ``Device.load_balancing``.

Arista's "selectable hashing fields" (EOS 4.20.1F, TOI at arista.com/en/support/toi/tag/hashing) on
Broadcom XGS chips (``trident`` covers Trident and Tomahawk): ``ip load-sharing trident fields ip`` and
``... fields ipv6`` followed by the fields, the keywords ``source-ip destination-ip source-port
destination-port ingress-interface`` (and ``flow-label`` for IPv6), as published configurations spell
them (e.g. annetutil/annet, its EOS defaults). xoff has no source it trusts for an EOS keyword of the
IP protocol, a seed, UDF (queue-pair) hashing or adaptive routing, so those are refused for EOS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xoff.platforms.load_balancing import LoadBalancingSupport

if TYPE_CHECKING:  # the platform record reads SUPPORT: keep this module light
    from xoff.desired.models import Device
    from xoff.platforms.eos.schema import IpLoadSharing

FIELDS = {
    "src-ip": "source-ip",
    "dst-ip": "destination-ip",
    "l4-src-port": "source-port",
    "l4-dst-port": "destination-port",
    "ingress-port": "ingress-interface",
    "flow-label": "flow-label",
}
_IPV6_ONLY = frozenset({"flow-label"})
SUPPORT = LoadBalancingSupport(
    hash_fields=frozenset(FIELDS),
    why_not="no verified EOS keyword for it on Trident/Tomahawk",
)


def build_ip_load_sharing(device: Device) -> IpLoadSharing | None:
    lb = device.load_balancing
    if lb is None:
        return None
    return {
        "hardware": "trident",
        "ip": [FIELDS[f] for f in lb.hash_fields if f not in _IPV6_ONLY],
        "ipv6": [FIELDS[f] for f in lb.hash_fields],
    }
