"""Index one RoCE network of a FabricState as a :class:`~xoff.deadlock.fabric.Fabric` (deadlock.md §5.1).

Switches are the Ethernet switches of that network; every RDMA NIC cabled to it is its own host
endpoint ``host:netdev`` (NCCL traffic is per rail, so a multi-rail host is several endpoints). Each
endpoint's /31 is a destination. Ports on switch-switch links get global ids numbered switch by switch
in interface order, so next-hop tuples list ports in that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import count

import numpy as np
import numpy.typing as npt

from xoff.deadlock.fabric import Fabric, HostEndpoint
from xoff.deadlock.statics import StaticRoute, add_device_static_routes, add_static_route
from xoff.desired.models import Device, FabricState, HostNic, Interface, NetworkPlan, Peer

RANKS = {"leaf": 1, "spine": 2, "super-spine": 3}
Ints = npt.NDArray[np.int64]

FabricLink = tuple[str, str, str, str, str, bool]  # link id, a, a port, b, b port, both ends admin up
End = tuple[str, str]  # (switch, port)


def roce_networks(state: FabricState) -> list[str]:
    """The lossless RoCE networks of a fabric, in FabricState order."""
    return [n for n, plan in state.networks.items() if plan.kind == "roce" and plan.lossless_priorities]


def fabric_of(state: FabricState, network: str = "compute", static_routes: Sequence[StaticRoute] = ()) -> Fabric:
    """Index one RoCE network of ``state``. ``ValueError`` names what is wrong (unknown network, ...)."""
    plan = _roce_plan(state, network)
    switch_devs = [d for d in state.devices.values() if d.kind == "switch" and d.network == network]
    fab = _empty_fabric(state.fabric, network, switch_devs, plan)
    fabric_links, hosts = _scan_links(fab, state)
    _add_links(fab, fabric_links)
    _wire_ports(fab, _number_ports(fab, switch_devs))
    fab.hosts = tuple(hosts)
    lossless, default = fab.lossless_port, fab.lossless_default
    fab.unequal_ends = (
        fab.unequal_ends[0] if fab.unequal_ends is not None else [],
        # no port off the default: both ends of every host link hold it
        [i for i, h in enumerate(hosts) if h.lossless != lossless.get((h.switch, h.switch_port), default)]
        if lossless
        else [],
    )
    fab.classes = tuple(sorted({fab.index[h.switch] for h in hosts}))
    fab.host_class = {h.name: fab.index[h.switch] for h in hosts}
    if static_routes or any(d.static_routes for d in switch_devs):
        gp_of = _port_ids(fab)
        add_device_static_routes(fab, switch_devs, gp_of)
        for route in static_routes:
            add_static_route(fab, route, gp_of)
    return fab


def _roce_plan(state: FabricState, network: str) -> NetworkPlan:
    plan = state.networks.get(network)
    if plan is None or plan.kind != "roce":
        allowed = ", ".join(n for n, p in state.networks.items() if p.kind == "roce") or "none"
        what = "no network" if plan is None else f"{plan.kind} network"
        raise ValueError(f"{what} {network!r} in fabric {state.fabric} (allowed: RoCE networks: {allowed})")
    return plan


def _empty_fabric(fabric: str, network: str, switch_devs: Sequence[Device], plan: NetworkPlan) -> Fabric:
    switches = tuple(d.name for d in switch_devs)
    synthetic = -1
    asns: list[int] = []
    for d in switch_devs:
        if d.bgp is not None:
            asns.append(d.bgp.asn)
        else:  # no BGP configured: a private, unique placeholder so the loop check never fires on it
            asns.append(synthetic)
            synthetic -= 1
    return Fabric(
        fabric=fabric,
        network=network,
        switches=switches,
        index={name: i for i, name in enumerate(switches)},
        rank=tuple(RANKS.get(d.role, 1) for d in switch_devs),
        asn=tuple(asns),
        ports_of=[[] for _ in switches],
        lossless_default=frozenset(plan.lossless_priorities),
    )


def _scan_links(fab: Fabric, state: FabricState) -> tuple[list[FabricLink], list[HostEndpoint]]:  # noqa: C901, PLR0912 -- the hot loop of the index at 100k GPUs: both ends' port facts inline, no call per end
    """The network's switch-switch links and host endpoints; records every end's lossless priorities.
    One pass over every link of the state (304,800 at 100,000 GPUs), in one frame: the port facts inline. The plan
    shares one PFC list among the ports that are alike (27,000 lists for a million ports at 100k GPUs), so each
    list is read once, by identity, into its set (the default's own object when equal to it, so most ends cost one
    lookup and an identity test); the lists belong to ``state``, alive for the whole pass, so no identity is reused."""
    index, devices, network = fab.index, state.devices, fab.network
    lossless_port, default = fab.lossless_port, fab.lossless_default
    by_list: dict[int, frozenset[int]] = {}  # id of an interface's PFC list or a NIC's PFC flags -> the priorities
    fabric_links: list[FabricLink] = []
    hosts: list[HostEndpoint] = []
    for link in state.links:
        if link.network != network:
            continue
        a = la = link.a
        b = lb = link.b
        if a.device not in index:
            if b.device not in index:
                continue
            a, b = b, a
        adev, bdev = devices[a.device], devices.get(b.device)
        if bdev is None:
            continue
        aif, bif = adev.interfaces.get(a.port), bdev.interfaces.get(b.port)
        # admin up unless an end's interface says otherwise (a port the device does not list is up)
        up = (aif is None or aif.admin_up) and (bif is None or bif.admin_up)
        nic = None
        for dev, port, iface in ((adev, a.port, aif), (bdev, b.port, bif)):
            # the port's lossless priorities: a host NIC's PFC flags, else the interface's list; neither: none
            host = dev.host
            nic = host.nics.get(port) if host is not None else None
            if nic is not None:
                found = by_list.get(id(nic.pfc))
                if found is None:
                    found = by_list[id(nic.pfc)] = _as_default(default, (p for p, on in enumerate(nic.pfc) if on))
            elif iface is not None:
                found = by_list.get(id(iface.pfc_priorities))
                if found is None:
                    found = by_list[id(iface.pfc_priorities)] = _as_default(default, iface.pfc_priorities)
            else:
                continue
            if found is not default:  # every reader takes the default for a port it does not hold
                lossless_port[(dev.name if dev.kind != "host" else f"{dev.name}:{port}", port)] = found
        lid = f"{la.device}:{la.port}--{lb.device}:{lb.port}"
        if b.device in index:
            fabric_links.append((lid, a.device, a.port, b.device, b.port, up))
        elif bdev.kind == "host" and up:  # `nic`: the host end's, the last looked up
            hosts.append(_host_endpoint(fab, a, b, lid, aif, nic))
    return fabric_links, hosts


def _as_default(default: frozenset[int], priorities: Iterable[int]) -> frozenset[int]:
    """The set of ``priorities``: ``default`` itself when equal to it (readers test it by identity)."""
    found = frozenset(priorities)
    return default if found == default else found


def _host_endpoint(
    fab: Fabric, a: Peer, b: Peer, lid: str, iface: Interface | None, nic: HostNic | None
) -> HostEndpoint:
    """The host end ``b`` of a link from switch port ``a`` (``iface``: that port's interface; ``nic``: the host's)."""
    name = f"{b.device}:{b.port}"
    plen = int(iface.addresses[0].split("/")[1]) if iface is not None and iface.addresses else 32
    return HostEndpoint(
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


def _add_links(fab: Fabric, fabric_links: Sequence[FabricLink]) -> None:
    """Number the fabric links; each one's lossless priorities are those common to both ends (each distinct
    pair of sets intersected once; every link the default's when no port differs from it)."""
    lossless, default = fab.lossless_port, fab.lossless_default
    fab.link_ids = [link[0] for link in fabric_links]
    fab.link_ends = [link[1:5] for link in fabric_links]
    down = [li for li, link in enumerate(fabric_links) if not link[5]]
    if down:
        fab.down = fab.down | frozenset(down)
    if not lossless:
        fab.link_lossless = [default] * len(fabric_links)
        fab.unequal_ends = ([], [])
        return
    common: dict[tuple[frozenset[int], frozenset[int]], frozenset[int]] = {}
    unequal: list[int] = []
    for li, (sa, sap, sb, sbp) in enumerate(fab.link_ends):
        pair = (lossless.get((sa, sap), default), lossless.get((sb, sbp), default))
        both = common.get(pair)
        if both is None:
            both = common[pair] = pair[0] & pair[1]
        fab.link_lossless.append(both)
        if pair[0] != pair[1]:
            unequal.append(li)
    fab.unequal_ends = (unequal, [])


def _number_ports(fab: Fabric, switch_devs: Sequence[Device]) -> list[int]:
    """Global port ids, switch by switch in interface order (ports the device does not list last, by name).
    Returns the port id of every link end (link ``li``'s at ``2 li`` and ``2 li + 1``): a port on several links
    answers for all of them with its last id, as a lookup by (switch, port) would.

    In bulk (409,600 link ends at 100,000 GPUs): each end is one integer, its switch and its port's place there, and
    one stable sort of those numbers the ports (the ends of one port stay in link order, side by side)."""
    ends = fab.link_ends
    if not ends:
        return []
    index = fab.index
    owner = np.array([index[end[k]] for end in ends for k in (0, 2)], dtype=np.int64)  # code 2 li + side
    names = [end[k] for end in ends for k in (1, 3)]
    place = _places(switch_devs, owner, names)
    ends_key = owner * (int(place.max()) + 1) + place  # per code: its port, as (switch, place) in one number
    order = np.argsort(ends_key, kind="stable")  # position (the port id, but for repeats) -> code
    key = ends_key[order]
    first = np.empty(len(key), dtype=bool)
    first[0], first[1:] = True, key[1:] != key[:-1]
    last = np.append(np.flatnonzero(first)[1:] - 1, len(key) - 1)  # per port: the position of its last end
    end_gp = np.empty(len(key), dtype=np.int64)
    end_gp[order] = last[np.cumsum(first) - 1]
    # the lists share one int object per port id and per switch, as ids counted one by one did (``tolist`` makes
    # an object per entry: ~40 MiB more at 100k)
    gp_of, switch_of = list(range(len(key))), list(range(len(switch_devs)))
    fab.port_owner = list(map(switch_of.__getitem__, owner[order].tolist()))
    fab.port_link = (order >> 1).tolist()
    fab.port_name = [names[code] for code in order.tolist()]
    bounds = np.cumsum(np.bincount(owner, minlength=len(switch_devs))).tolist()
    fab.ports_of = [gp_of[lo:hi] for lo, hi in zip([0, *bounds[:-1]], bounds, strict=True)]
    return list(map(gp_of.__getitem__, end_gp.tolist()))


def _places(switch_devs: Sequence[Device], owner: Ints, names: list[str]) -> Ints:
    """Each link end's place among its switch's ports: the interface order, then the ports not listed by name.
    Switch by switch, so that one switch's port -> place map is held at a time (all of them: ~50 MiB at 100k)."""
    place = np.empty(len(names), dtype=np.int64)
    codes = np.argsort(owner, kind="stable").tolist()  # the link ends switch by switch
    lo = 0
    for v, hi in enumerate(np.cumsum(np.bincount(owner, minlength=len(switch_devs))).tolist()):
        mine, lo = codes[lo:hi], hi
        if not mine:
            continue
        listing = switch_devs[v].interfaces
        at = dict(zip(listing, count()))
        got = [at.get(names[code], -1) for code in mine]
        if -1 in got:  # ports the switch does not list: after those it does, by name
            after = {p: len(listing) + i for i, p in enumerate(sorted({names[c] for c in mine} - at.keys()))}
            got = [after[names[code]] if g < 0 else g for code, g in zip(mine, got, strict=True)]
        place[mine] = got
    return place


def _port_ids(fab: Fabric) -> dict[End, int]:
    """(switch, port) -> its global port id (the last one, for a port on several links): for static routes."""
    switches = fab.switches
    return {(switches[v], port): gp for gp, (v, port) in enumerate(zip(fab.port_owner, fab.port_name, strict=True))}


def _wire_ports(fab: Fabric, end_gp: list[int]) -> None:
    """Peers and the up-facing flag of every global port."""
    fab.port_peer = peer_of = [0] * len(fab.port_owner)
    for gx, gy in zip(end_gp[0::2], end_gp[1::2], strict=True):
        peer_of[gx], peer_of[gy] = gy, gx
    fab.link_ports = list(zip(end_gp[0::2], end_gp[1::2], strict=True))
    # up-facing: the peer ranks higher, by (rank, name); each switch's place in that order compares the same
    by_rank = sorted(range(len(fab.switches)), key=lambda v: (fab.rank[v], fab.switches[v]))
    place = np.empty(len(by_rank), dtype=np.int64)
    place[np.array(by_rank, dtype=np.int64)] = np.arange(len(by_rank), dtype=np.int64)
    owner = np.array(fab.port_owner, dtype=np.int64)
    peer = np.array(peer_of, dtype=np.int64)
    fab.up_facing = (place[owner[peer]] > place[owner]).tolist() if len(owner) else []
