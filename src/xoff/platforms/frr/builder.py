"""Device.bgp (+ the fabric's underlay pools) -> the structured FRR configuration the template prints.

Platform-independent: it reads only the vendor-neutral Device (BGP neighbours, originated
networks, its interfaces' networks) and the fabric's address pools, so the same frr.conf serves a
SONiC switch (whose BGP is FRR) and the lab's FRR standing in for an EOS or Cumulus switch.

Choices (RFC 7938 practice, FRR 8.4 syntax):

- eBGP on every point-to-point /31, neighbours by address with their planned ASN (RFC 7938
  §5.2.1: the ASN plan; spines of a pod share one ASN, so valley paths fail the AS_PATH loop
  check, reference/deadlock.md §5.1). One peer group carries the shared settings; each
  neighbour's description is ``peer:port`` in the peer's own port names.
- Policy: explicit prefix lists + one route-map, applied in and out, instead of
  ``no bgp ebgp-requires-policy``. RFC 8212 (FRR's ``bgp ebgp-requires-policy``, written out so
  the ``datacenter`` defaults profile, which turns it off, cannot) drops every eBGP route that
  has no policy; switching the check off would accept anything a neighbour sends. The route-map
  permits only the underlay's host routes: switch loopbacks (/32 from the loopback pool) and
  point-to-point subnets (/31 from the p2p pool). A leaked default route, an aggregate or a
  tenant prefix is denied in both directions, so no aggregate/default route can pull traffic
  back up a tier (the bounce that deadlock.md §5.1 warns about).
- ECMP: ``bgp bestpath as-path multipath-relax`` (RFC 7938 §6.2: equal-length AS paths through
  different neighbour ASNs, e.g. leaves with one ASN each) and ``maximum-paths`` from the plan.
- Timers 3 s keepalive / 9 s hold (RFC 7938 §7.1 fault detection; FRR's datacenter profile),
  written explicitly so the result does not depend on the build's default profile.
- Static routes the intent declares (``Device.static_routes``): ``ip route PREFIX NEXT-HOP``, one
  line per next hop (several = ECMP), resolved over the connected /31; distance 1 beats eBGP's 20.
- Tenant VRFs (``Device.vrfs``): one ``router bgp ASN vrf NAME`` each, the same ASN and router-id as the
  underlay's, originating the tenant's host links (``network``); the VRF device itself belongs to the NOS
  (or, in the lab, to iproute2), as the addresses do.
- VXLAN-EVPN (``Device.bgp.evpn``, tenants with an L3 VNI): zebra's ``vrf NAME`` / ``vni N`` maps each
  tenant VRF to its L3 VNI (symmetric IRB); the underlay's session carries ``address-family l2vpn evpn``
  (leaves ``advertise-all-vni``), its policy a route-map letting only type-5 (``prefix``) routes pass both
  ways, as RFC 8212 requires; spines pass the routes on with ``attribute-unchanged next-hop`` (the VTEP
  stays the originating leaf's loopback); each tenant's BGP instance exports its host links as type-5
  routes (``advertise ipv4 unicast``) with RD router-id:VNI and the tenant's RT VNI:VNI both ways.
  Syntax: docs.frrouting.org/en/stable-8.4/evpn.html ("EVPN advertise-all-vni", "L3 VNI", "vrf / vni",
  "advertise ipv4 unicast", "rd", "route-target"); the VXLAN and SVI devices belong to the NOS (SONiC's
  VXLAN_TUNNEL/VXLAN_TUNNEL_MAP, or in the lab to iproute2).
- No ``interface`` stanzas: addresses belong to the NOS (SONiC INTERFACE table, EOS/NVUE
  interfaces) or, in the lab, to iproute2; numbered eBGP needs nothing per interface from FRR.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from xoff.desired.models import Bgp, BgpNeighbor, Device, FabricState
from xoff.platforms.frr.pools import NetworkPools, Pool, underlay_pools

FRR_VERSION = "8.4"  # the release whose grammar this output is checked against (Debian 12)
DEFAULTS_PROFILE = "datacenter"
LOG_LEVEL = "informational"
KEEPALIVE_S = 3
HOLD_S = 9
PEER_GROUP = "FABRIC"
ROUTE_MAP = "UNDERLAY"
LOOPBACK_LIST = "UNDERLAY-LOOPBACKS"
P2P_LIST = "UNDERLAY-P2P"
SEQ_STEP = 10
EVPN_ROUTE_MAP = "EVPN-TYPE5"  # only type-5 (IP prefix) routes: xoff renders no L2 VNI


class PrefixListEntry(TypedDict):
    seq: int
    action: str
    prefix: str
    ge: int | None
    le: int | None


class PrefixList(TypedDict):
    name: str
    entries: list[PrefixListEntry]


class RouteMapEntry(TypedDict):
    seq: int
    action: str
    match_prefix_list: str


class RouteMap(TypedDict):
    name: str
    entries: list[RouteMapEntry]


class Neighbor(TypedDict):
    address: str
    remote_as: int
    description: str
    peer_group: str


class PeerGroup(TypedDict):
    name: str
    route_map_in: str
    route_map_out: str


class Ipv4Unicast(TypedDict):
    networks: list[str]
    peer_groups: list[PeerGroup]
    maximum_paths: int


class L2vpnEvpn(TypedDict):
    """The underlay session's ``address-family l2vpn evpn``."""

    peer_groups: list[PeerGroup]
    advertise_all_vni: bool  # a leaf with VNIs; a spine only passes routes on
    next_hop_unchanged: bool  # a spine: the VTEP stays the originating leaf's


class RouterBgp(TypedDict):
    asn: int
    router_id: str
    keepalive: int
    hold: int
    peer_groups: list[str]
    neighbors: list[Neighbor]
    ipv4_unicast: Ipv4Unicast
    l2vpn_evpn: L2vpnEvpn | None


class VrfBgp(TypedDict):
    """A tenant VRF's BGP instance (``router bgp ASN vrf NAME``): no neighbours, its hosts' links; with a VNI,
    exported as type-5 routes (``rd``, ``route_target``)."""

    name: str
    asn: int
    router_id: str
    networks: list[str]
    vni: int | None
    rd: str | None
    route_target: str | None


class StaticRouteLine(TypedDict):
    prefix: str
    next_hop: str


class FrrConfig(TypedDict):
    frr_version: str
    defaults_profile: str
    hostname: str
    log_level: str
    static_routes: list[StaticRouteLine]
    prefix_lists: list[PrefixList]
    route_maps: list[RouteMap]
    evpn_route_map: str | None
    router_bgp: RouterBgp
    vrfs: list[VrfBgp]


def build_frr_config(device: Device, fabric: FabricState) -> FrrConfig:
    """The whole frr.conf of one switch as plain data. ``device.bgp`` must be set."""
    bgp = device.bgp
    if bgp is None:
        raise ValueError(f"{device.name}: no BGP in the desired state, nothing to put in frr.conf")
    prefix_lists: list[PrefixList] = []
    route_maps: list[RouteMap] = []
    peer_groups: list[PeerGroup] = []
    if bgp.neighbors:
        networks = _policy_networks(device, bgp)
        prefix_lists = _prefix_lists(networks, underlay_pools(fabric))
        if not prefix_lists:  # a route-map matching nothing would silently drop every route
            raise ValueError(f"{device.name}: no loopback or link addresses in networks {networks} to permit")
        route_maps = [_route_map(prefix_lists)]
        peer_groups = [PeerGroup(name=PEER_GROUP, route_map_in=ROUTE_MAP, route_map_out=ROUTE_MAP)]
    return FrrConfig(
        frr_version=FRR_VERSION,
        defaults_profile=DEFAULTS_PROFILE,
        hostname=device.name,
        log_level=LOG_LEVEL,
        static_routes=[StaticRouteLine(prefix=r.prefix, next_hop=r.next_hop) for r in device.static_routes],
        prefix_lists=prefix_lists,
        route_maps=route_maps,
        evpn_route_map=EVPN_ROUTE_MAP if bgp.evpn and bgp.neighbors else None,
        router_bgp=RouterBgp(
            asn=bgp.asn,
            router_id=bgp.router_id,
            keepalive=KEEPALIVE_S,
            hold=HOLD_S,
            peer_groups=[g["name"] for g in peer_groups],
            neighbors=[
                Neighbor(
                    address=n.address,
                    remote_as=n.remote_asn,
                    description=_description(device, n),
                    peer_group=PEER_GROUP,
                )
                for n in bgp.neighbors
            ],
            ipv4_unicast=Ipv4Unicast(networks=list(bgp.networks), peer_groups=peer_groups, maximum_paths=bgp.max_paths),
            l2vpn_evpn=_l2vpn_evpn(device, bgp, peer_groups),
        ),
        vrfs=[
            VrfBgp(
                name=v.name,
                asn=bgp.asn,
                router_id=bgp.router_id,
                networks=list(v.networks),
                vni=v.vni,
                rd=None if v.vni is None else f"{bgp.router_id}:{v.vni}",
                route_target=v.route_target,
            )
            for v in device.vrfs
        ],
    )


def _l2vpn_evpn(device: Device, bgp: Bgp, peer_groups: list[PeerGroup]) -> L2vpnEvpn | None:
    if not bgp.evpn or not peer_groups:
        return None
    leaf = any(v.vni is not None for v in device.vrfs)
    return L2vpnEvpn(
        peer_groups=[
            PeerGroup(name=g["name"], route_map_in=EVPN_ROUTE_MAP, route_map_out=EVPN_ROUTE_MAP) for g in peer_groups
        ],
        advertise_all_vni=leaf,
        next_hop_unchanged=not leaf,
    )


def _description(device: Device, neighbor: BgpNeighbor) -> str:
    """``peer:port`` (the peer's own port name), so parallel links to one peer stay apart; the
    peer's name alone when the link's far end is unknown."""
    iface = device.interfaces.get(neighbor.interface)
    if iface is not None and iface.peer is not None and iface.peer.device == neighbor.peer:
        return f"{neighbor.peer}:{iface.peer.port}"
    return neighbor.peer


def _policy_networks(device: Device, bgp: Bgp) -> list[str]:
    """The networks whose pools this switch exchanges: its own and those of its BGP links."""
    names = {device.network} if device.network is not None else set()
    for n in bgp.neighbors:
        iface = device.interfaces.get(n.interface)
        if iface is not None and iface.network is not None:
            names.add(iface.network)
    return sorted(names)


def _prefix_lists(networks: list[str], pools: Mapping[str, NetworkPools]) -> list[PrefixList]:
    loopbacks: list[Pool] = []
    p2p: list[Pool] = []
    for name in networks:
        found = pools.get(name)
        if found is not None:
            loopbacks.extend(found.loopbacks)
            p2p.extend(found.p2p)
    return [
        PrefixList(name=name, entries=_entries(found))
        for name, found in ((LOOPBACK_LIST, loopbacks), (P2P_LIST, p2p))
        if found
    ]


def _entries(pools: list[Pool]) -> list[PrefixListEntry]:
    """``permit POOL ge L le L``: members of exactly length L; exact match when the pool is one member."""
    out: list[PrefixListEntry] = []
    for i, pool in enumerate(pools, start=1):
        ranged = pool.prefix.prefixlen < pool.length
        out.append(
            PrefixListEntry(
                seq=i * SEQ_STEP,
                action="permit",
                prefix=str(pool.prefix),
                ge=pool.length if ranged else None,
                le=pool.length if ranged and pool.length < 32 else None,
            )
        )
    return out


def _route_map(prefix_lists: list[PrefixList]) -> RouteMap:
    """One permit per prefix list; everything else falls to the route-map's implicit deny."""
    return RouteMap(
        name=ROUTE_MAP,
        entries=[
            RouteMapEntry(seq=i * SEQ_STEP, action="permit", match_prefix_list=pl["name"])
            for i, pl in enumerate(prefix_lists, start=1)
        ],
    )
