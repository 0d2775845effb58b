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
    return tree


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
    return tree
