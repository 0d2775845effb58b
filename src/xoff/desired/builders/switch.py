"""Switch interfaces, BGP underlay and PFC watchdog from the resolved intent and fabric facts."""

from __future__ import annotations

from xoff.desired.facts import Facts
from xoff.desired.models import Bgp, BgpNeighbor, Interface, PfcWatchdog, Planned, StaticRoute, planned
from xoff.intent.networks import RoceNetwork
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Port, Switch
from xoff.intent.static_routes import cabled_ports, next_hops
from xoff.platforms.registry import get_platform

# the shapes of a switch's cabled port and BGP neighbour, one each per cable end
_CABLED = Planned(
    Interface,
    *("name", "kind", "speed_mbps", "mtu", "admin_up", "addresses", "peer", "cable_m", "link_role", "network"),
    *("pfc_priorities", "pfc_watchdog"),
)
_NEIGHBOR = Planned(BgpNeighbor, "address", "remote_asn", "peer", "interface")


def build_switch_interfaces(facts: Facts, sw: Switch, policy: QosPolicy | None) -> dict[str, Interface]:
    info = get_platform(sw.platform)
    lossless = policy.lossless_priorities if policy is not None else []
    watchdog = policy is not None and watchdog_on(policy) and bool(lossless)
    pfc = facts.shared(("pfc_priorities", *lossless), lambda: list(lossless))  # one list: the models are frozen
    with_length = bool(lossless) or not info.cable_length_needs_pfc
    out = dict(_all_unused(facts, sw))  # then each cabled port in its place
    ports, cabled_port = sw.ports, _CABLED.of
    for link, name, _, peer, texts in facts.links_of.get(sw.name, []):
        port = ports.get(name)
        if port is None:
            continue
        out[name] = cabled_port(
            {
                "name": name,
                "kind": "ethernet",
                "speed_mbps": port.speed,
                "mtu": port.mtu or sw.mtu,
                "admin_up": not port.shutdown,
                "addresses": [texts[0]] if texts is not None else [],
                "peer": peer,
                "cable_m": link.length if with_length else None,
                "link_role": link.role,
                "network": link.network,
                "pfc_priorities": pfc,
                "pfc_watchdog": watchdog,
                "vrf": None,
            }
        )
    if info.loopback_interface is not None:
        out[info.loopback_interface] = planned(
            Interface, name=info.loopback_interface, kind="loopback", addresses=[f"{sw.loopback}/32"]
        )
    mgmt_prefix = facts.intent.document.networks.management.prefix
    out[info.mgmt_interface] = planned(
        Interface, name=info.mgmt_interface, kind="mgmt", addresses=[f"{sw.mgmt}/{mgmt_prefix.prefixlen}"]
    )
    return out


def _all_unused(facts: Facts, sw: Switch) -> dict[str, Interface]:
    """Every port of ``sw`` as unused, in port order. Switches given one ports list (the resolver shares its dict)
    and one MTU share the map, and every switch of a kind shares its unused ports: 420,000 at 100k GPUs, one model per
    (name, speed, MTU)."""
    maps: dict[tuple[int, int], tuple[dict[str, Port], dict[str, Interface]]] = facts.shared("unused port maps", dict)
    found = maps.get((id(sw.ports), sw.mtu))
    if found is None:
        unused: dict[tuple[str, int, int], Interface] = facts.shared("unused ports", dict)
        each: dict[str, Interface] = {}
        for port in sw.ports.values():
            key = (port.name, port.speed, port.mtu or sw.mtu)
            each[port.name] = unused.get(key) or unused.setdefault(key, _unused(*key))
        found = maps[id(sw.ports), sw.mtu] = (sw.ports, each)  # holds the ports dict, so its id stays its own
    return found[1]


def _unused(name: str, speed: int, mtu: int | None) -> Interface:
    return planned(Interface, name=name, kind="ethernet", speed_mbps=speed, mtu=mtu, admin_up=False)


def build_bgp(facts: Facts, sw: Switch) -> Bgp:
    net = getattr(facts.intent.document.networks, sw.network)
    max_paths = net.underlay.max_paths if isinstance(net, RoceNetwork) else 64
    neighbors: list[BgpNeighbor] = []
    originated = [f"{sw.loopback}/32"]
    asn, neighbor = facts.asn, _NEIGHBOR.of
    for _, port, peer, _, texts in facts.links_of.get(sw.name, []):
        if texts is None:
            continue
        remote = asn.get(peer[0])
        if remote is not None:
            neighbors.append(neighbor({"address": texts[1], "remote_asn": remote, "peer": peer[0], "interface": port}))
        else:  # a host: advertise its /31 so every rail reaches every other
            originated.append(texts[2])
    return planned(
        Bgp,
        asn=facts.asn[sw.name],
        router_id=str(sw.loopback),
        max_paths=max_paths,
        neighbors=neighbors,
        networks=originated,
    )


def build_static_routes(facts: Facts, sw: Switch) -> list[StaticRoute]:
    """One entry per next hop of every static route (the load-time check proved each ``via`` resolves)."""
    if not sw.static_routes:
        return []
    ports = cabled_ports(sw.name, (end[0] for end in facts.links_of.get(sw.name, [])))
    out: list[StaticRoute] = []
    for route in sw.static_routes:
        found = next_hops(sw.name, route.via, ports)
        for addr, port in found if not isinstance(found, str) else []:
            out.append(StaticRoute(prefix=str(route.prefix), next_hop=addr, interface=port))
    return out


def watchdog_on(policy: QosPolicy) -> bool:
    """The PFC watchdog runs where the policy enables it and its congestion-control profile keeps it."""
    return policy.pfc_watchdog.enabled and policy.congestion_control.knobs.pfc_watchdog


def build_watchdog(policy: QosPolicy, ports: list[str]) -> PfcWatchdog | None:
    """The PFC watchdog on ``ports`` (the interfaces planned with ``pfc_watchdog``), None where it does not run."""
    wd = policy.pfc_watchdog
    if not watchdog_on(policy) or not ports:
        return None
    queues = sorted({c.egress_queue for c in policy.classes.values() if c.lossless})
    return PfcWatchdog(
        poll_interval_ms=wd.poll_interval_ms,
        detection_ms=wd.detection_ms,
        restoration_ms=wd.restoration_ms,
        action=wd.action,
        ports=ports,
        queues=queues,
    )
