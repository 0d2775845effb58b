"""Builder for ``router bgp`` and ``vrf default router bgp`` (FabricState ``Device.bgp``).

NVUE splits BGP in two (CumulusNetworks/docs content/cumulus-linux-514/Layer-3/
Border-Gateway-Protocol-BGP/Basic-BGP-Configuration.md and Configuration-Example.md):
``router bgp autonomous-system|router-id`` is global, neighbors and address families live under
``vrf default router bgp``. Neighbors are numbered (one eBGP session per /31, by the peer's address,
``remote-as <asn>``, ``type numbered``); the prefixes FabricState says this router originates are
``address-family ipv4-unicast network`` statements (no ``redistribute connected``: that would also
announce whatever else is connected), and ``multipaths ebgp`` is the ECMP width (1-128).

The ``enable on`` switches (global, VRF, address family) are written out because NVUE writes them into
startup.yaml when it applies the other settings (the example's startup.yaml shows all three), so the
rendered file is what the switch saves.
"""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.cumulus import CumulusRenderError
from xoff.platforms.cumulus.nvue import Tree, put

ASN_MIN, ASN_MAX = 1, 4_294_967_295
MULTIPATHS_MIN, MULTIPATHS_MAX = 1, 128
VRF = ("vrf", "default", "router", "bgp")


def build_bgp(device: Device) -> Tree:
    tree: Tree = {}
    bgp = device.bgp
    if bgp is None:
        return tree
    for asn in (bgp.asn, *(n.remote_asn for n in bgp.neighbors)):
        if not ASN_MIN <= asn <= ASN_MAX:
            raise CumulusRenderError(f"{device.name}: ASN {asn} outside {ASN_MIN}-{ASN_MAX}")
    if not MULTIPATHS_MIN <= bgp.max_paths <= MULTIPATHS_MAX:
        raise CumulusRenderError(
            f"{device.name}: BGP max paths {bgp.max_paths} outside {MULTIPATHS_MIN}-{MULTIPATHS_MAX}"
        )
    put(tree, ("router", "bgp", "enable"), "on")
    put(tree, ("router", "bgp", "autonomous-system"), bgp.asn)
    put(tree, ("router", "bgp", "router-id"), bgp.router_id)
    put(tree, (*VRF, "enable"), "on")
    af = (*VRF, "address-family", "ipv4-unicast")
    put(tree, (*af, "enable"), "on")
    for prefix in bgp.networks:
        put(tree, (*af, "network", prefix))
    put(tree, (*af, "multipaths", "ebgp"), bgp.max_paths)
    for n in bgp.neighbors:
        put(tree, (*VRF, "neighbor", n.address, "remote-as"), n.remote_asn)
        put(tree, (*VRF, "neighbor", n.address, "type"), "numbered")
    if bgp.evpn:
        _evpn(tree, device)
    return tree


def _evpn(tree: Tree, device: Device) -> None:
    """l2vpn evpn on the underlay's sessions (a spine passes the type-5 routes on, FRR keeps their next hop, the
    VTEP, over eBGP), and on a leaf with L3 VNIs the VTEP: ``nve vxlan source address`` = its loopback (Cumulus
    docs, cumulus-linux-514 EVPN Inter-subnet-Routing.md, the downstream-VNI example's startup.yaml)."""
    bgp = device.bgp
    assert bgp is not None
    put(tree, ("evpn", "enable"), "on")
    put(tree, (*VRF, "address-family", "l2vpn-evpn", "enable"), "on")
    for n in bgp.neighbors:
        put(tree, (*VRF, "neighbor", n.address, "address-family", "l2vpn-evpn", "enable"), "on")
    if any(v.vni is not None for v in device.vrfs):
        put(tree, ("nve", "vxlan", "enable"), "on")
        put(tree, ("nve", "vxlan", "source", "address"), bgp.router_id)


def build_vrfs(device: Device) -> Tree:
    """Each tenant VRF (``Device.vrfs``): ``vrf NAME table auto`` (Cumulus picks its table in 1001-1255) and its
    BGP instance under ``vrf NAME router bgp``, in the global AS, originating the tenant's host links
    (CumulusNetworks/docs content/cumulus-linux-514/Layer-3/VRFs/Virtual-Routing-and-Forwarding-VRF.md)."""
    tree: Tree = {}
    for v in device.vrfs:
        put(tree, ("vrf", v.name, "table"), "auto")
        if device.bgp is None:
            continue
        put(tree, ("vrf", v.name, "router", "bgp", "enable"), "on")
        af = ("vrf", v.name, "router", "bgp", "address-family", "ipv4-unicast")
        put(tree, (*af, "enable"), "on")
        for prefix in v.networks:
            put(tree, (*af, "network", prefix))
        if v.vni is not None and v.route_target is not None:
            _l3vni(tree, v.name, v.vni, v.route_target, device.bgp.router_id)
    return tree


def _l3vni(tree: Tree, vrf: str, vni: int, route_target: str, router_id: str) -> None:
    """A tenant VRF's L3 VNI (symmetric routing; NVUE makes the VXLAN device, the L3 VNI bridge and its SVI) and its
    type-5 routes: RD router-id:VNI, the tenant's RT both ways, its prefixes exported to EVPN
    (cumulus-linux-514 Inter-subnet-Routing.md, "Configure RD and RTs for the Tenant VRF", "Announce EVPN Type-5
    Routes")."""
    put(tree, ("vrf", vrf, "evpn", "enable"), "on")
    put(tree, ("vrf", vrf, "evpn", "vni", str(vni)))
    bgp = ("vrf", vrf, "router", "bgp")
    put(tree, (*bgp, "address-family", "ipv4-unicast", "route-export", "to-evpn", "enable"), "on")
    put(tree, (*bgp, "address-family", "l2vpn-evpn", "enable"), "on")
    put(tree, (*bgp, "rd"), f"{router_id}:{vni}")
    put(tree, (*bgp, "route-import", "from-evpn", "route-target", route_target))
    put(tree, (*bgp, "route-export", "to-evpn", "route-target", route_target))
