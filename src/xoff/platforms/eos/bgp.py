"""EOS ``router bgp`` from FabricState: the RFC 7938 eBGP underlay.

What RFC 7938 needs of each switch, and where it comes from:
- eBGP on every fabric link, single hop, private ASNs, one per leaf and one shared by all spines of
  a tier (§5.2.1, §5.2.2): FabricState's ASN plan, as ``neighbor X remote-as N`` per /31 peer.
- ECMP over all equal paths (§6.1): ``maximum-paths N ecmp N``. Multipath across different neighbor
  ASNs ("multipath relax", §6.2) is not needed: the plan gives a tier one ASN, so equal-cost paths
  carry identical AS_PATHs.
- Each switch originates its loopback, and leaves their host subnets (§5.2.3): ``network`` under
  ``address-family ipv4``, where AVD's ``router-bgp.j2`` writes it.
- ``ip routing`` (EOS routes nothing without it) is in ``structured.py``.
- A tenant's VRF (``Device.vrfs``): ``vrf NAME`` in ``router bgp`` with the underlay's router-id, its
  hosts' links as ``network`` under its ``address-family ipv4`` (AVD router_bgp.vrfs[]).
"""

from __future__ import annotations

from xoff.desired.models import BgpNeighbor, Device
from xoff.platforms.eos.schema import RouterBgp


def neighbor_description(device: Device, n: BgpNeighbor) -> str:
    """The session's far end, ``leaf0:Ethernet384``: a spine has parallel links, so several sessions, to a leaf."""
    iface = device.interfaces.get(n.interface)
    peer = iface.peer if iface is not None else None
    return n.peer if peer is None else f"{peer.device}:{peer.port}"


def build_router_bgp(device: Device) -> RouterBgp | None:
    bgp = device.bgp
    if bgp is None:
        return None
    return {
        "as": str(bgp.asn),
        "router_id": bgp.router_id,
        "maximum_paths": {"paths": bgp.max_paths, "ecmp": bgp.max_paths},
        "neighbors": [
            {"ip_address": n.address, "remote_as": str(n.remote_asn), "description": neighbor_description(device, n)}
            for n in bgp.neighbors
        ],
        "address_family_ipv4": {"networks": [{"prefix": p} for p in bgp.networks]},
        "vrfs": [
            {
                "name": v.name,
                "router_id": bgp.router_id,
                "address_family_ipv4": {"networks": [{"prefix": p} for p in v.networks]},
            }
            for v in device.vrfs
        ],
    }
