"""The static routes a FabricState declares (``Device.static_routes``), as per-class forwarding overrides.

Route selection per destination host, as a router does it:

1. Longest prefix first. The dynamic routes are the hosts' connected subnets (the /31 of the host
   link, originated into BGP by its switch), so at the host's own switch the connected route wins
   unless a static route is more specific (a /32), and elsewhere a static route of the same length
   or longer wins (administrative distance 1 against eBGP's 20).
2. A less specific static route (an aggregate, ``0.0.0.0/0``) applies only where the dynamic model
   has no route for the host: it is kept as a *fallback* and used by ``forwarding.forwarding_ports``
   when the switch's entry is missing (e.g. withdrawn after a failure).
3. Several routes with the winning prefix: ECMP over all their next hops.

Hosts of one switch that different static routes pick out are put in separate destination classes
(same dynamic routes, different overrides), so the analysis stays exact. A static route out of a
port that is not on a fabric link of the network (a host port, the management port) leaves the
analysed fabric; it is ignored for this network.

Routes can also be given explicitly (:class:`StaticRoute`, the what-if of the sweep and the tests):
those win over the routing model for every host behind their destination switch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network

from xoff.deadlock.fabric import Fabric, HostEndpoint
from xoff.desired.models import Device

Override = tuple[int, bool, tuple[int, ...]]  # (switch, wins over the dynamic route, fabric ports)


@dataclass(frozen=True, slots=True)
class StaticRoute:
    """A static route at ``switch`` for the hosts behind switch ``destination``, out of ``ports``.

    It wins over the routing model (administrative distance), is not redistributed, and is
    inactive while all its ports are on failed links (the dynamic route is used then).
    """

    switch: str
    destination: str
    ports: tuple[str, ...]


def add_static_route(fab: Fabric, route: StaticRoute, gp_of: Mapping[tuple[str, str], int]) -> None:
    """Record an explicit static route for every destination class behind its destination switch."""
    for name, what in ((route.switch, "switch"), (route.destination, "destination")):
        if name not in fab.index:
            raise ValueError(f"static route: {what} {name!r} is not a switch of network {fab.network}")
    dest = fab.index[route.destination]
    classes = [c for c in fab.classes if fab.dest_of(c) == dest]
    if not classes:
        raise ValueError(f"static route: no host endpoint behind {route.destination!r} (allowed: a switch with hosts)")
    gps = []
    for port in route.ports:
        gp = gp_of.get((route.switch, port))
        if gp is None:
            raise ValueError(f"static route: {route.switch}:{port} is not on a fabric link of network {fab.network}")
        gps.append(gp)
    if not gps:
        raise ValueError(f"static route at {route.switch}: no ports")
    for c in classes:
        fab.static[(c, fab.index[route.switch])] = tuple(gps)


def _routes_of(
    fab: Fabric, switch_devs: Sequence[Device], gp_of: Mapping[tuple[str, str], int]
) -> dict[int, list[tuple[IPv4Network, tuple[int, ...]]]]:
    """switch -> [(prefix, fabric ports)], one entry per distinct prefix (ECMP next hops merged)."""
    out: dict[int, list[tuple[IPv4Network, tuple[int, ...]]]] = {}
    for dev in switch_devs:
        if not dev.static_routes:
            continue
        by_prefix: dict[IPv4Network, list[int]] = {}
        for route in dev.static_routes:
            gp = gp_of.get((dev.name, route.interface))
            if gp is not None:
                by_prefix.setdefault(IPv4Network(route.prefix), []).append(gp)
        if by_prefix:
            out[fab.index[dev.name]] = [(net, tuple(sorted(set(gps)))) for net, gps in by_prefix.items()]
    return out


def add_device_static_routes(fab: Fabric, switch_devs: Sequence[Device], gp_of: Mapping[tuple[str, str], int]) -> None:
    """Split destination classes by the static routes that apply to their hosts and record the overrides."""
    routes = _routes_of(fab, switch_devs, gp_of)
    if not routes:
        return
    profiles: dict[tuple[int, tuple[Override, ...]], int] = {}  # (switch, overrides) -> class
    used: set[int] = set()
    next_id = len(fab.switches)
    table_order = sorted(routes.items())
    for h in fab.hosts:
        owner = fab.index[h.switch]
        overrides = _overrides(table_order, owner, h)
        key = (owner, overrides)
        c = profiles.get(key)
        if c is None:
            if owner not in used:
                c = owner
                used.add(owner)
            else:
                c = next_id
                next_id += 1
                fab.class_dest[c] = owner
            profiles[key] = c
            for v, wins, gps in overrides:
                (fab.static if wins else fab.fallback)[(c, v)] = gps
        fab.host_class[h.name] = c
    fab.classes = tuple(sorted(profiles.values()))


def _overrides(
    tables: Sequence[tuple[int, list[tuple[IPv4Network, tuple[int, ...]]]]], owner: int, h: HostEndpoint
) -> tuple[Override, ...]:
    """The static routes that apply to host ``h`` (behind switch ``owner``): the longest match at each switch."""
    addr = IPv4Address(h.address) if h.address is not None else None
    overrides: list[Override] = []
    for v, table in tables:
        best = -1
        ports: tuple[int, ...] = ()
        for net, gps in table:
            hit = net.prefixlen == 0 if addr is None else addr in net
            if hit and net.prefixlen > best:
                best, ports = net.prefixlen, gps
        if best < 0:
            continue
        if v == owner:
            if best > h.prefixlen:  # only a more specific route beats the connected one
                overrides.append((v, True, ports))
        else:
            overrides.append((v, best >= h.prefixlen, ports))
    return tuple(overrides)
