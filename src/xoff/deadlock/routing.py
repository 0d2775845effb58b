"""Forwarding from intent: per-destination ECMP next hops from a routing model (deadlock.md §5.1).

One network of a FabricState at a time (compute by default). Switches are the Ethernet switches of
that network; every RDMA NIC cabled to it is its own host endpoint ``host:netdev`` (NCCL traffic is
per rail, so a multi-rail host is several endpoints). Each endpoint's /31 is a destination.

All endpoints behind one switch share the next hops everywhere except at that switch, so routing
runs once per *destination class* (the switch the hosts hang off) and the host port is added per
host when the snapshot is built.

Routing models:

- ``bgp``: eBGP as RFC 7938 runs it: the ASNs of the FabricState (``Device.bgp.asn``), best path =
  shortest AS_PATH, ECMP over every equal-length path (multipath-relax), AS_PATH loop prevention
  (a router rejects a path that holds its own ASN, allowas-in off). A router may hold several
  equal-length paths with different ASNs; it is modelled as advertising all of them (each is a
  possible best path), so a neighbour accepts the route if any of them passes its loop check.
  AS paths never repeat an ASN, so a path is kept as the frozenset of its ASNs.
- ``igp``: shortest path by hop count with ECMP (OSPF/IS-IS with equal link costs).

Both are computed by rounds of a breadth-first propagation from the destination switch; the
failure sweep repairs a computed class incrementally (``repair``) instead of recomputing it.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from xoff.deadlock.model import Link, Snapshot
from xoff.deadlock.statics import add_device_static_routes
from xoff.desired.models import Device, FabricState

Routing = Literal["bgp", "igp"]
ROUTINGS: tuple[Routing, ...] = ("bgp", "igp")
RANKS = {"leaf": 1, "spine": 2, "super-spine": 3}

Paths = frozenset[frozenset[int]]
# One switch's route to one destination class: (distance, next-hop ports, AS paths or None for igp).
# Distance is the hop count (igp) or the AS_PATH length minus one (bgp); 0 at the destination switch.
Entry = tuple[int, tuple[int, ...], Paths | None]
Routes = dict[int, Entry]  # switch index -> its entry; switches without a route are absent
Delta = dict[int, Entry | None]  # changes against a base Routes; None = the route is withdrawn


@dataclass(frozen=True, slots=True)
class StaticRoute:
    """A static route at ``switch`` for the hosts behind switch ``destination``, out of ``ports``.

    It wins over the routing model (administrative distance), is not redistributed, and is
    inactive while all its ports are on failed links (the dynamic route is used then).
    """

    switch: str
    destination: str
    ports: tuple[str, ...]


class PathSets:
    """Interned AS-path sets and their extensions by one ASN (memoised; equal sets are one object)."""

    def __init__(self) -> None:
        self._intern: dict[Paths, Paths] = {}
        self._ext: dict[Paths, dict[int, Paths]] = {}

    def intern(self, paths: Paths) -> Paths:
        return self._intern.setdefault(paths, paths)

    def start(self, a: int) -> Paths:
        return self.intern(frozenset((frozenset((a,)),)))

    def extensions(self, paths: Paths) -> dict[int, Paths]:
        """ASN -> ``paths`` as advertised to a router with that ASN (empty: all rejected); filled lazily."""
        got = self._ext.get(paths)
        if got is None:
            got = self._ext[paths] = {}
        return got

    def extend(self, paths: Paths, a: int) -> Paths:
        return self.intern(frozenset(p | {a} for p in paths if a not in p))

    def union(self, sets: Iterable[Paths]) -> Paths:
        return self.intern(frozenset().union(*sets))


@dataclass(frozen=True, slots=True)
class HostEndpoint:
    """One RDMA NIC on the network: a host of the snapshot, named ``host:netdev``."""

    name: str
    host: str
    port: str
    switch: str
    switch_port: str
    link_id: str
    lossless: frozenset[int]
    address: str | None = None  # the NIC's IPv4 address, when the state has one
    prefixlen: int = 32  # of the switch port's connected subnet (what BGP advertises for this host)


@dataclass
class Fabric:
    """The switch graph of one network in compact form (indices, not names).

    Ports on switch-switch links get global ids (``gp``) numbered switch by switch in interface
    order; ``port_peer[gp]`` is the other end, ``port_link[gp]`` the fabric link.
    """

    fabric: str
    network: str
    switches: tuple[str, ...]
    index: dict[str, int]
    rank: tuple[int, ...]
    asn: tuple[int, ...]
    port_owner: list[int] = field(default_factory=list)
    port_name: list[str] = field(default_factory=list)
    port_peer: list[int] = field(default_factory=list)
    port_link: list[int] = field(default_factory=list)
    ports_of: list[list[int]] = field(default_factory=list)
    neighbours: list[list[tuple[int, int, int]]] = field(default_factory=list)  # per switch: (gp, peer, link)
    ports_to: list[dict[int, list[int]]] = field(default_factory=list)  # per switch: neighbour -> ports
    link_ids: list[str] = field(default_factory=list)
    link_ports: list[tuple[int, int]] = field(default_factory=list)
    link_ends: list[tuple[str, str, str, str]] = field(default_factory=list)  # a, a_port, b, b_port
    link_lossless: list[frozenset[int]] = field(default_factory=list)  # common to both ends
    down: frozenset[int] = frozenset()  # fabric links down in the state itself (admin down)
    hosts: tuple[HostEndpoint, ...] = ()
    classes: tuple[int, ...] = ()  # switches with at least one host endpoint
    lossless_default: frozenset[int] = frozenset()
    lossless_port: dict[tuple[str, str], frozenset[int]] = field(default_factory=dict)
    static: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)  # (class, switch) -> ports
    # (class, switch) -> ports of a static route less specific than the dynamic route: used only without one
    fallback: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    # destination classes are switch indices, except when static routes split a switch's hosts: then the
    # further classes get ids from len(switches) on; ``class_dest`` maps those to their switch
    class_dest: dict[int, int] = field(default_factory=dict)
    host_class: dict[str, int] = field(default_factory=dict)  # host endpoint -> its class
    up_facing: list[bool] = field(default_factory=list)  # gp: its peer ranks higher (rank, name)
    paths: PathSets = field(default_factory=PathSets)  # interned AS-path sets (bgp)
    _adjacency: list[list[tuple[int, int, int]]] | None = None

    def adjacency(self) -> list[list[tuple[int, int, int]]]:
        """Per switch: (the peer's port, the peer switch, the link) for every fabric port, in port order."""
        if self._adjacency is None:
            owner, peer, plink = self.port_owner, self.port_peer, self.port_link
            self._adjacency = [[(peer[gp], owner[peer[gp]], plink[gp]) for gp in ports] for ports in self.ports_of]
        return self._adjacency

    def dest_of(self, c: int) -> int:
        """The switch the hosts of destination class ``c`` hang off."""
        return self.class_dest.get(c, c)

    def link_index(self) -> dict[str, int]:
        return {lid: i for i, lid in enumerate(self.link_ids)}

    def host_links(self) -> dict[str, HostEndpoint]:
        return {h.link_id: h for h in self.hosts}

    def port_label(self, gp: int) -> str:
        return f"{self.switches[self.port_owner[gp]]}:{self.port_name[gp]}"


def _rank_key(fab: Fabric, v: int) -> tuple[int, str]:
    return fab.rank[v], fab.switches[v]


def _pfc(device: Device, port: str) -> frozenset[int] | None:
    """The lossless priorities of one port: a host NIC's PFC flags, else the interface's list."""
    if device.host is not None:
        nic = device.host.nics.get(port)
        if nic is not None:
            return frozenset(p for p, on in enumerate(nic.pfc) if on)
    iface = device.interfaces.get(port)
    return frozenset(iface.pfc_priorities) if iface is not None else None


def _admin_up(device: Device, port: str) -> bool:
    iface = device.interfaces.get(port)
    return iface is None or iface.admin_up


def roce_networks(state: FabricState) -> list[str]:
    """The lossless RoCE networks of a fabric, in FabricState order."""
    return [n for n, plan in state.networks.items() if plan.kind == "roce" and plan.lossless_priorities]


def fabric_of(state: FabricState, network: str = "compute", static_routes: Sequence[StaticRoute] = ()) -> Fabric:
    """Index one RoCE network of ``state``. ``ValueError`` names what is wrong (unknown network, ...)."""
    plan = state.networks.get(network)
    if plan is None or plan.kind != "roce":
        allowed = ", ".join(n for n, p in state.networks.items() if p.kind == "roce") or "none"
        what = "no network" if plan is None else f"{plan.kind} network"
        raise ValueError(f"{what} {network!r} in fabric {state.fabric} (allowed: RoCE networks: {allowed})")
    devices = state.devices
    switch_devs = [d for d in devices.values() if d.kind == "switch" and d.network == network]
    switches = tuple(d.name for d in switch_devs)
    index = {name: i for i, name in enumerate(switches)}
    synthetic = -1
    asns: list[int] = []
    for d in switch_devs:
        if d.bgp is not None:
            asns.append(d.bgp.asn)
        else:  # no BGP configured: a private, unique placeholder so the loop check never fires on it
            asns.append(synthetic)
            synthetic -= 1
    fab = Fabric(
        fabric=state.fabric,
        network=network,
        switches=switches,
        index=index,
        rank=tuple(RANKS.get(d.role, 1) for d in switch_devs),
        asn=tuple(asns),
        ports_of=[[] for _ in switches],
        lossless_default=frozenset(plan.lossless_priorities),
    )
    fabric_links: list[tuple[str, str, str, str, str, bool]] = []
    hosts: list[HostEndpoint] = []
    for link in state.links:
        if link.network != network:
            continue
        a, b = link.a, link.b
        if a.device not in index and b.device in index:
            a, b = b, a
        if a.device not in index:
            continue
        lid = f"{link.a.device}:{link.a.port}--{link.b.device}:{link.b.port}"
        adev, bdev = devices[a.device], devices.get(b.device)
        if bdev is None:
            continue
        for dev, port in ((adev, a.port), (bdev, b.port)):
            found = _pfc(dev, port)
            if found is not None:
                fab.lossless_port[(dev.name if dev.kind != "host" else f"{dev.name}:{port}", port)] = found
        up = _admin_up(adev, a.port) and _admin_up(bdev, b.port)
        if b.device in index:
            fabric_links.append((lid, a.device, a.port, b.device, b.port, up))
        elif bdev.kind == "host" and up:
            name = f"{b.device}:{b.port}"
            nic = bdev.host.nics.get(b.port) if bdev.host is not None else None
            iface = adev.interfaces.get(a.port)
            plen = int(iface.addresses[0].split("/")[1]) if iface is not None and iface.addresses else 32
            hosts.append(
                HostEndpoint(
                    name=name,
                    host=b.device,
                    port=b.port,
                    switch=a.device,
                    switch_port=a.port,
                    link_id=lid,
                    lossless=fab.lossless_port.get((name, b.port), fab.lossless_default),
                    address=nic.address.split("/")[0] if nic is not None and nic.address else None,
                    prefixlen=plen,
                )
            )
    # global port ids in interface order per switch, so next-hop tuples list ports in that order
    order: dict[tuple[str, str], int] = {}
    for dev in switch_devs:
        for pos, port in enumerate(dev.interfaces):
            order[(dev.name, port)] = pos
    ends: list[tuple[tuple[str, str], tuple[str, str]]] = []
    for lid, sa, sap, sb, sbp, link_up in fabric_links:
        ends.append(((sa, sap), (sb, sbp)))
        fab.link_ids.append(lid)
        fab.link_ends.append((sa, sap, sb, sbp))
        common = fab.lossless_port.get((sa, sap), fab.lossless_default) & fab.lossless_port.get(
            (sb, sbp), fab.lossless_default
        )
        fab.link_lossless.append(common)
        if not link_up:
            fab.down |= {len(fab.link_ids) - 1}
    owned = sorted(
        ((end, li) for li, pair in enumerate(ends) for end in pair),
        key=lambda item: (index[item[0][0]], order.get(item[0], 1 << 30), item[0][1]),
    )
    gp_of: dict[tuple[str, str], int] = {}
    for (owner_name, port), li in owned:
        gp = len(fab.port_owner)
        gp_of[(owner_name, port)] = gp
        fab.port_owner.append(index[owner_name])
        fab.port_name.append(port)
        fab.port_link.append(li)
        fab.ports_of[index[owner_name]].append(gp)
    fab.port_peer = [0] * len(fab.port_owner)
    for x, y in ends:
        gx, gy = gp_of[x], gp_of[y]
        fab.port_peer[gx], fab.port_peer[gy] = gy, gx
        fab.link_ports.append((gx, gy))
    fab.neighbours = [
        [(gp, fab.port_owner[fab.port_peer[gp]], fab.port_link[gp]) for gp in ports] for ports in fab.ports_of
    ]
    fab.ports_to = [{} for _ in switches]
    for gp, v in enumerate(fab.port_owner):
        fab.ports_to[v].setdefault(fab.port_owner[fab.port_peer[gp]], []).append(gp)
    fab.up_facing = [
        _rank_key(fab, fab.port_owner[fab.port_peer[gp]]) > _rank_key(fab, fab.port_owner[gp])
        for gp in range(len(fab.port_owner))
    ]
    fab.hosts = tuple(hosts)
    fab.classes = tuple(sorted({index[h.switch] for h in hosts}))
    fab.host_class = {h.name: index[h.switch] for h in hosts}
    add_device_static_routes(fab, switch_devs, gp_of)
    for route in static_routes:
        _add_static(fab, route, gp_of)
    return fab


def _add_static(fab: Fabric, route: StaticRoute, gp_of: Mapping[tuple[str, str], int]) -> None:
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


# -- routing per destination class ----------------------------------------------------------------


def route_class(fab: Fabric, dest: int, routing: Routing, dead: frozenset[int] | set[int]) -> Routes:
    """Every switch's entry towards the hosts behind switch ``dest``; links in ``dead`` do not exist.

    Breadth-first by rounds. Under bgp an AS-path set is extended once per (set, ASN) pair and the
    result interned (``fab.paths``), so switches reached the same way share one object and the loop
    check of a neighbour is one dictionary lookup per port.
    """
    adj = fab.adjacency()
    routes: Routes = {}
    if routing != "bgp":
        routes[dest] = (0, (), None)
        frontier = [dest]
        dist = 0
        while frontier:
            dist += 1
            cand: dict[int, list[int]] = {}
            for n in frontier:
                for q, v, li in adj[n]:
                    if v in routes or (dead and li in dead):
                        continue
                    got = cand.get(v)
                    if got is None:
                        cand[v] = [q]
                    else:
                        got.append(q)
            for v, qs in cand.items():
                qs.sort()
                routes[v] = (dist, tuple(qs), None)
            frontier = list(cand)
        return routes
    asn = fab.asn
    paths = fab.paths
    routes[dest] = (0, (), paths.start(asn[dest]))
    frontier = [dest]
    dist = 0
    while frontier:
        dist += 1
        cand = {}
        via: dict[int, Paths] = {}  # v -> the advertisement it accepts (the first one)
        more: dict[int, list[Paths]] = {}  # v -> every accepted advertisement, when they differ
        for n in frontier:
            paths_n = routes[n][2]
            assert paths_n is not None
            ext = paths.extensions(paths_n)
            for q, v, li in adj[n]:
                if v in routes or (dead and li in dead):
                    continue
                a = asn[v]
                e = ext.get(a)
                if e is None:
                    e = ext[a] = paths.extend(paths_n, a)
                if not e:
                    continue  # every path holds v's ASN: rejected by the loop check
                got = cand.get(v)
                if got is None:
                    cand[v] = [q]
                    via[v] = e
                else:
                    got.append(q)
                    if via[v] is not e:
                        more.setdefault(v, [via[v]]).append(e)
        for v, qs in cand.items():
            qs.sort()
            multi = more.get(v)
            routes[v] = (dist, tuple(qs), via[v] if multi is None else paths.union(multi))
        frontier = list(cand)
    return routes


def route_all(fab: Fabric, routing: Routing, dead: frozenset[int] | set[int]) -> dict[int, Routes]:
    """Every destination class, computed once each."""
    done: dict[int, Routes] = {}  # classes split by static routes share their switch's dynamic routes
    out = {}
    for c in fab.classes:
        dest = fab.dest_of(c)
        if dest not in done:
            done[dest] = route_class(fab, dest, routing, dead)
        out[c] = done[dest]
    return out


def _bgp_entry(fab: Fabric, v: int, get: RouteView, dead: set[int]) -> Entry | None:
    """Switch ``v``'s best routes from its neighbours' current advertisements (shortest accepted AS path)."""
    a = fab.asn[v]
    best = 1 << 30
    nh: list[int] = []
    sources: list[Paths] = []
    base, delta = get.base, get.delta
    for gp, n, li in fab.neighbours[v]:
        if li in dead:
            continue
        e = delta[n] if n in delta else base.get(n)
        if e is None:
            continue
        d = e[0] + 1
        if d > best:
            continue
        paths = e[2]
        if paths is None:
            continue
        for p in paths:
            if a not in p:
                break
        else:
            continue  # every path holds our ASN: rejected by the loop check
        if d < best:
            best, nh, sources = d, [gp], [paths]
        else:
            nh.append(gp)
            sources.append(paths)
    if not nh:
        return None
    return best, tuple(nh), frozenset(p | {a} for paths in sources for p in paths if a not in p)


class RouteView:
    """Reads a class's routes through a delta (the scenario's changes)."""

    __slots__ = ("base", "delta")

    def __init__(self, base: Routes, delta: Delta) -> None:
        self.base, self.delta = base, delta

    def __call__(self, v: int) -> Entry | None:
        if v in self.delta:
            return self.delta[v]
        return self.base.get(v)


def repair(fab: Fabric, routing: Routing, dest: int, base: Routes, delta: Delta, dead: set[int], link: int) -> None:
    """Update ``delta`` (changes to ``base``) for the failure of fabric link ``link``.

    ``dead`` already holds ``link`` and every earlier failure that ``delta`` reflects. igp: the
    two-phase decremental BFS (Ramalingam-Reps: find the switches whose distance grows, then
    re-settle only those from their unaffected neighbours). bgp: path-vector iteration from the
    link's ends until nothing changes; shortest AS_PATH with loop filtering is strictly increasing,
    so it converges to the unique stable state, which is what ``route_class`` computes. A work
    budget bounds pathological cases; past it the class is recomputed and diffed.
    """
    get = RouteView(base, delta)
    if routing == "igp":
        _repair_igp(fab, dest, get, delta, dead, link)
    else:
        _repair_bgp(fab, dest, get, delta, dead, link)


def _repair_igp(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int], link: int) -> None:
    owner, peer, plink, ports_of = fab.port_owner, fab.port_peer, fab.port_link, fab.ports_of
    queue: list[int] = []
    for gp in fab.link_ports[link]:
        x = owner[gp]
        e = get(x)
        if e is not None and gp in e[1]:
            nh = tuple(p for p in e[1] if p != gp)
            delta[x] = (e[0], nh, None)
            if not nh and x != dest:
                queue.append(x)
    affected: set[int] = set()
    while queue:
        x = queue.pop()
        if x in affected:
            continue
        affected.add(x)
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            q = peer[gp]
            y = owner[q]
            if y in affected or y == dest:
                continue
            e = get(y)
            if e is not None and q in e[1]:
                nh = tuple(p for p in e[1] if p != q)
                delta[y] = (e[0], nh, None)
                if not nh:
                    queue.append(y)
    if not affected:
        return
    heap: list[tuple[int, int]] = []
    for x in affected:
        best = -1
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            if y in affected:
                continue
            e = get(y)
            if e is not None and (best < 0 or e[0] + 1 < best):
                best = e[0] + 1
        if best >= 0:
            heap.append((best, x))
    heapq.heapify(heap)
    settled: dict[int, int] = {}
    while heap:
        d, x = heapq.heappop(heap)
        if x in settled:
            continue
        settled[x] = d
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            if y in affected and y not in settled:
                heapq.heappush(heap, (d + 1, y))
    for x in affected:
        d = settled.get(x, -1)
        if d < 0:
            delta[x] = None
            continue
        nh_list = []
        for gp in ports_of[x]:
            if plink[gp] in dead:
                continue
            y = owner[peer[gp]]
            dy = settled.get(y, -1) if y in affected else (e[0] if (e := get(y)) is not None else -1)
            if dy == d - 1:
                nh_list.append(gp)
        delta[x] = (d, tuple(nh_list), None)


def _repair_bgp(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int], link: int) -> None:
    todo: deque[int] = deque()
    # switch -> the neighbours whose advertisement changed since it was queued; None = recompute fully
    pending: dict[int, set[int] | None] = {}
    for gp in fab.link_ports[link]:
        x = fab.port_owner[gp]
        e = get(x)
        # an end that did not forward over the link keeps its routes: it lost a candidate it did not pick
        if x != dest and x not in pending and e is not None and gp in e[1]:
            todo.append(x)
            pending[x] = None
    budget = 64 * (len(fab.switches) + 16)
    while todo:
        budget -= 1
        if budget < 0:
            _recompute(fab, dest, get, delta, dead)
            return
        v = todo.popleft()
        changed = pending.pop(v)
        old = get(v)
        new = _bgp_shrunk(fab, v, old, changed, get, dead) if changed is not None and old is not None else None
        if new is None:
            new = _bgp_entry(fab, v, get, dead)
        if new == old:
            continue
        delta[v] = new
        if new is not None and old is not None and new[0] == old[0] and new[2] == old[2]:
            continue  # only the ECMP set changed: neighbours see the same advertisement
        for _, y, li in fab.neighbours[v]:
            if li in dead or y == dest:
                continue
            if y not in pending:
                todo.append(y)
                pending[y] = {v}
            else:
                waiting = pending[y]
                if waiting is not None:
                    waiting.add(v)


def _bgp_shrunk(fab: Fabric, v: int, old: Entry, changed: set[int], get: RouteView, dead: set[int]) -> Entry | None:
    """``v``'s new entry when only the neighbours in ``changed`` changed, or None if a full recompute is needed.

    Unchanged neighbours still offer what they offered: ``v``'s old next hops towards them, and
    nothing shorter. So if one of them remains and no changed neighbour now offers a shorter path,
    the distance stays and only the changed neighbours need evaluating.
    """
    d_v, old_nh, _ = old
    a = fab.asn[v]
    owner, peer, plink = fab.port_owner, fab.port_peer, fab.port_link
    keep = [gp for gp in old_nh if owner[peer[gp]] not in changed and plink[gp] not in dead]
    if not keep:
        return None
    ports_to = fab.ports_to[v]
    before = len(keep)
    for n in changed:
        e = get(n)
        if e is None or e[2] is None or e[0] + 1 > d_v:
            continue
        if all(a in p for p in e[2]):
            continue  # rejected by the loop check
        if e[0] + 1 < d_v:
            return None  # a shorter path appeared: recompute
        keep.extend(gp for gp in ports_to[n] if plink[gp] not in dead)
    added = len(keep) > before
    keep.sort()
    if not added:
        # the kept neighbours are unchanged next hops, so their paths are a subset of the old ones;
        # when one of them alone gives all the old paths (the RFC 7938 norm), nothing else to do
        first = get(owner[peer[keep[0]]])
        if first is not None and first[2] is not None:
            own = frozenset(p | {a} for p in first[2] if a not in p)
            if own == old[2]:
                return d_v, tuple(keep), old[2]
    sources = {get(owner[peer[gp]])[2] for gp in keep}  # type: ignore[index]
    return d_v, tuple(keep), frozenset(p | {a} for paths in sources for p in paths or () if a not in p)


def _recompute(fab: Fabric, dest: int, get: RouteView, delta: Delta, dead: set[int]) -> None:
    fresh = route_class(fab, dest, "bgp", dead)
    touched = set(get.base) | set(delta) | set(fresh)
    for v in touched:
        new = fresh.get(v)
        if new != get(v):
            delta[v] = new


def apply_delta(base: Routes, delta: Delta) -> Routes:
    out = dict(base)
    for v, e in delta.items():
        if e is None:
            out.pop(v, None)
        else:
            out[v] = e
    return out


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


# -- snapshots ----------------------------------------------------------------------------------------


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
    names = fab.port_name
    shared: dict[tuple[int, tuple[int, ...]], tuple[str, ...]] = {}
    vectors: dict[int, dict[str, tuple[str, ...]]] = {}
    own: dict[int, tuple[str, ...]] = {}  # class -> egress of its own switch, when a static route overrides it
    statics: dict[int, list[int]] = {}
    for c, v in [*fab.static, *fab.fallback]:
        statics.setdefault(c, []).append(v)
    for c, per in routes.items():
        vec: dict[str, tuple[str, ...]] = {}
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
    lossless: dict[str, dict[str, frozenset[int]]] = {}
    host_names = {h.name for h in hosts}
    on_links = {(x.a, x.a_port) for x in links} | {(x.b, x.b_port) for x in links}
    for (dev, port), prios in fab.lossless_port.items():
        if prios != fab.lossless_default and (dev, port) in on_links and (dev in fab.index or dev in host_names):
            lossless.setdefault(dev, {})[port] = prios
    return Snapshot(
        name=name or f"{fab.fabric}-{fab.network}",
        description=description,
        switches=fab.switches,
        hosts=tuple(h.name for h in hosts),
        links=tuple(links),
        lossless_default=fab.lossless_default,
        lossless=lossless,
        rewrites=(),
        forwarding=forwarding,
        ranks=dict(zip(fab.switches, fab.rank, strict=True)),
    )


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
