"""Switch interfaces, BGP underlay and PFC watchdog from the resolved intent and fabric facts."""

from __future__ import annotations

from xoff.desired.facts import Facts
from xoff.desired.models import Bgp, BgpNeighbor, Interface, PfcWatchdog, Planned, StaticRoute, planned
from xoff.intent.networks import RoceNetwork
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Switch
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
    cabled = {port: (link, peer, texts) for link, port, _, peer, texts in facts.links_of.get(sw.name, [])}
    pfc = facts.shared(("pfc_priorities", *lossless), lambda: list(lossless))  # one list: the models are frozen
    out: dict[str, Interface] = {}
    with_length = bool(lossless) or not info.cable_length_needs_pfc
    # alike on every switch of a kind: 420,000 unused super-spine ports at 100k GPUs, one model per (name, speed, MTU)
    unused: dict[tuple[str, int, int | None], Interface] = facts.shared("unused ports", dict)
    cabled_port = _CABLED.of
    for port in sw.ports.values():
        hit = cabled.get(port.name)
        if hit is None:
            key = (port.name, port.speed, port.mtu or sw.mtu)
            out[port.name] = unused.get(key) or unused.setdefault(key, _unused(*key))
            continue
        link, peer, texts = hit
        out[port.name] = cabled_port(
            {
                "name": port.name,
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
