"""Forwarding snapshots from routes: what ``analyse`` judges, built from a FabricState and a routing model.

``snapshot_from_fabric`` is the whole path (index, route, build); the failure sweep calls the steps
itself so it can reuse routes. A snapshot's next hops are per destination host; hosts of one class
share one vector (:class:`HostForwarding`), and equal next-hop tuples are one object.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from xoff.deadlock.fabric import Fabric, HostEndpoint
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.model import Link, Snapshot
from xoff.deadlock.routing import ROUTINGS, Entry, Routes, Routing, route_all
from xoff.deadlock.statics import StaticRoute
from xoff.desired.models import FabricState

HopVector = dict[str, tuple[str, ...]]  # switch -> egress ports towards one destination class


def forwarding_ports(
    fab: Fabric, dest: int, v: int, entry: Entry | None, dead: frozenset[int] | set[int]
) -> tuple[int, ...]:
    """The egress ports switch ``v`` uses for class ``dest``: an active static route at least as specific as the
    dynamic route, else the dynamic route, else an active less specific static route (e.g. a default route)."""
    static = fab.static.get((dest, v))
    if static is not None:
        alive = tuple(gp for gp in static if fab.port_link[gp] not in dead)
        if alive:
            return alive
    if entry is not None:
        return entry[1]
    fallback = fab.fallback.get((dest, v))
    if fallback is not None:
        return tuple(gp for gp in fallback if fab.port_link[gp] not in dead)
    return ()


class HostForwarding(Mapping[str, tuple[str, ...]]):
    """One destination host's next hops: its class's shared vector plus its own switch's host port.

    A view, so a fabric of 10,000 hosts and 1,600 switches does not hold 16 million dict entries;
    next-hop tuples stay shared objects (the core groups them by identity).
    """

    __slots__ = ("_hops", "_shared", "_switch")

    def __init__(self, shared: Mapping[str, tuple[str, ...]], switch: str, hops: tuple[str, ...]) -> None:
        self._shared, self._switch, self._hops = shared, switch, hops

    def __getitem__(self, key: str) -> tuple[str, ...]:
        if key == self._switch:
            return self._hops
        return self._shared[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._shared
        yield self._switch

    def __len__(self) -> int:
        return len(self._shared) + 1

    def __repr__(self) -> str:
        return repr(dict(self))


def _failed_indices(fab: Fabric, failed: Iterable[str]) -> tuple[set[int], set[str]]:
    by_id = fab.link_index()
    host_links = fab.host_links()
    dead: set[int] = set()
    dead_hosts: set[str] = set()
    unknown = []
    for lid in failed:
        if lid in by_id:
            dead.add(by_id[lid])
        elif lid in host_links:
            dead_hosts.add(host_links[lid].name)
        else:
            unknown.append(lid)
    if unknown:
        sample = ", ".join(fab.link_ids[:3]) or "none"
        raise ValueError(
            f"failed link {sorted(unknown)[0]!r} is not a link of network {fab.network}"
            f" (allowed: ids such as {sample}, as a:port--b:port)"
        )
    return dead, dead_hosts


def build_snapshot(
    fab: Fabric,
    routes: Mapping[int, Routes],
    dead: frozenset[int] | set[int],
    *,
    dead_hosts: frozenset[str] | set[str] = frozenset(),
    name: str | None = None,
    description: str = "",
    per_class: bool = False,
) -> Snapshot:
    """The forwarding snapshot of one fabric state from per-class routes (next-hop tuples shared).

    ``per_class``: forwarding only for the first live host of every destination class (in host
    order); every host and host link is still there. The analysis gives the same answer, witness
    and justifying destinations included: hosts of one class differ only at their own switch, out
    of a host port, which never enters the dependency graph; and the lowest destination that
    justifies a turn is the first host of the lowest class that does. Only the ``destinations``
    count differs (classes, not hosts). 10,000 hosts x 1,600 switches become 320 x 1,600.
    """
    vectors, own = _class_vectors(fab, routes, dead)
    hosts = [h for h in fab.hosts if h.name not in dead_hosts]
    forwarding: dict[str, Mapping[str, tuple[str, ...]]] = {}
    seen: set[int] = set()
    for h in hosts:
        c = fab.host_class[h.name]
        if per_class:
            if c in seen:
                continue
            seen.add(c)
        forwarding[h.name] = HostForwarding(vectors.get(c, {}), h.switch, own.get(c, (h.switch_port,)))
    links = [
        Link(fab.link_ids[i], a, ap, b, bp, i not in dead and i not in fab.down)
        for i, (a, ap, b, bp) in enumerate(fab.link_ends)
    ]
    links.extend(Link(h.link_id, h.switch, h.switch_port, h.name, h.port) for h in hosts)
    return Snapshot(
        name=name or f"{fab.fabric}-{fab.network}",
        description=description,
        switches=fab.switches,
        hosts=tuple(h.name for h in hosts),
        links=tuple(links),
        lossless_default=fab.lossless_default,
        lossless=_lossless_overrides(fab, hosts, links),
        rewrites=(),
        forwarding=forwarding,
        ranks=dict(zip(fab.switches, fab.rank, strict=True)),
    )


def _class_vectors(
    fab: Fabric, routes: Mapping[int, Routes], dead: frozenset[int] | set[int]
) -> tuple[dict[int, HopVector], dict[int, tuple[str, ...]]]:
    """Per class: every other switch's egress ports, and its own switch's when a static route overrides it."""
    names = fab.port_name
    shared: dict[tuple[int, tuple[int, ...]], tuple[str, ...]] = {}
    vectors: dict[int, HopVector] = {}
    own: dict[int, tuple[str, ...]] = {}
    statics: dict[int, list[int]] = {}
    for c, v in [*fab.static, *fab.fallback]:
        statics.setdefault(c, []).append(v)
    for c, per in routes.items():
        vec: HopVector = {}
        switches = list(per)
        switches.extend(v for v in set(statics.get(c, ())) if v not in per)
        dest = fab.dest_of(c)
        for v in sorted(switches):
            gps = forwarding_ports(fab, c, v, per.get(v), dead)
            if v == dest:
                if gps:
                    own[c] = tuple(names[g] for g in gps)
                continue
            if not gps:
                continue
            key = (v, gps)
            hops = shared.get(key)
            if hops is None:
                hops = shared[key] = tuple(names[g] for g in gps)
            vec[fab.switches[v]] = hops
        vectors[c] = vec
    return vectors, own


def _lossless_overrides(
    fab: Fabric, hosts: Sequence[HostEndpoint], links: Sequence[Link]
) -> dict[str, dict[str, frozenset[int]]]:
    """The ports on the snapshot's links whose lossless priorities differ from the network's."""
    lossless: dict[str, dict[str, frozenset[int]]] = {}
    host_names = {h.name for h in hosts}
    on_links = {(x.a, x.a_port) for x in links} | {(x.b, x.b_port) for x in links}
    for (dev, port), prios in fab.lossless_port.items():
        if prios != fab.lossless_default and (dev, port) in on_links and (dev in fab.index or dev in host_names):
            lossless.setdefault(dev, {})[port] = prios
    return lossless


def describe(fab: Fabric, routing: Routing, failed: Iterable[str]) -> str:
    gone = sorted(failed)
    state = f"after the failure of {', '.join(gone)}" if gone else "baseline (no failure)"
    model = (
        "eBGP (RFC 7938: shortest AS_PATH, multipath-relax ECMP, AS_PATH loop prevention)"
        if routing == "bgp"
        else "shortest path by hop count with ECMP (IGP)"
    )
    return f"fabric {fab.fabric}, network {fab.network}: forwarding from the {model}, {state}"


def snapshot_from_fabric(
    state: FabricState,
    *,
    routing: Routing = "bgp",
    failed: frozenset[str] = frozenset(),
    network: str = "compute",
    static_routes: Sequence[StaticRoute] = (),
) -> Snapshot:
    """The forwarding snapshot of one RoCE network of ``state`` under a routing model.

    ``failed``: link ids (``a:port--b:port`` as FabricState orders the ends) removed before
    routing; a failed host link removes that host endpoint. ``ValueError`` on unknown names.
    """
    if routing not in ROUTINGS:
        raise ValueError(f"routing {routing!r} is not known (allowed: {', '.join(ROUTINGS)})")
    fab = fabric_of(state, network, static_routes)
    dead, dead_hosts = _failed_indices(fab, failed)
    dead |= fab.down
    routes = route_all(fab, routing, dead)
    return build_snapshot(fab, routes, dead, dead_hosts=dead_hosts, description=describe(fab, routing, failed))
