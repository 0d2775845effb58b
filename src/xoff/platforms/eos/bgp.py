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
- VXLAN-EVPN (``Bgp.evpn``; ``vxlan.py`` has the VTEP): every underlay session also carries ``address-family
  evpn`` (``neighbor X activate``) and sends extended communities (``send-community extended``: the route
  targets); a switch without an L3 VNI (a spine) keeps the next hop of the type-5 routes it passes on
  (``bgp next-hop-unchanged`` under ``address-family evpn``), so a leaf tunnels to the far leaf's VTEP. A tenant
  VRF with an L3 VNI gets ``rd <router-id>:<vni>`` and ``route-target import|export evpn <rt>``; EOS then
  exports the VRF's BGP routes (its ``network`` prefixes) as type-5 routes. Syntax and order: Arista EOS
  user manual, "EVPN" / "VXLAN" (``address-family evpn``, ``route-target import evpn``), and AVD
  eos_cli_config_gen ``router-bgp.j2`` (router_bgp.address_family_evpn, vrfs[].rd, vrfs[].route_targets).
"""

from __future__ import annotations

from xoff.desired.models import Bgp, BgpNeighbor, Device, Vrf
from xoff.platforms.eos.schema import AddressFamilyEvpn, BgpVrf, RouterBgp


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
            {
                "ip_address": n.address,
                "remote_as": str(n.remote_asn),
                "description": neighbor_description(device, n),
                "send_community": "extended" if bgp.evpn else None,
            }
            for n in bgp.neighbors
        ],
        "address_family_evpn": _address_family_evpn(device, bgp),
        "address_family_ipv4": {"networks": [{"prefix": p} for p in bgp.networks]},
        "vrfs": [_vrf(v, bgp.router_id) for v in device.vrfs],
    }


def _address_family_evpn(device: Device, bgp: Bgp) -> AddressFamilyEvpn | None:
    if not bgp.evpn:
        return None
    vtep = any(v.vni is not None for v in device.vrfs)
    return {"next_hop_unchanged": not vtep, "neighbors": [n.address for n in bgp.neighbors]}


def _vrf(v: Vrf, router_id: str) -> BgpVrf:
    l3vni = v.vni is not None and v.route_target is not None
    return {
        "name": v.name,
        "rd": f"{router_id}:{v.vni}" if l3vni else None,
        "route_target": v.route_target if l3vni else None,
        "router_id": router_id,
        "address_family_ipv4": {"networks": [{"prefix": p} for p in v.networks]},
    }
