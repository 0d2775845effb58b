"""Index one RoCE network of a FabricState as a :class:`~xoff.deadlock.fabric.Fabric` (deadlock.md §5.1).

Switches are the Ethernet switches of that network; every RDMA NIC cabled to it is its own host
endpoint ``host:netdev`` (NCCL traffic is per rail, so a multi-rail host is several endpoints). Each
endpoint's /31 is a destination. Ports on switch-switch links get global ids numbered switch by switch
in interface order, so next-hop tuples list ports in that order.
"""

from __future__ import annotations

from collections.abc import Sequence

from xoff.deadlock.fabric import Fabric, HostEndpoint
from xoff.deadlock.statics import StaticRoute, add_device_static_routes, add_static_route
from xoff.desired.models import Device, FabricState, NetworkPlan, Peer

RANKS = {"leaf": 1, "spine": 2, "super-spine": 3}

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
    ends = _add_links(fab, fabric_links)
    gp_of = _number_ports(fab, switch_devs, ends)
    _wire_ports(fab, ends, gp_of)
    fab.hosts = tuple(hosts)
    fab.classes = tuple(sorted({fab.index[h.switch] for h in hosts}))
    fab.host_class = {h.name: fab.index[h.switch] for h in hosts}
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


def _port_facts(device: Device, port: str) -> tuple[frozenset[int] | None, bool]:
    """One port's lossless priorities (a host NIC's PFC flags, else the interface's list; None: neither) and
    whether it is admin up (a port the device does not list is)."""
    iface = device.interfaces.get(port)
    up = iface is None or iface.admin_up
    if device.host is not None:
        nic = device.host.nics.get(port)
        if nic is not None:
            return frozenset(p for p, on in enumerate(nic.pfc) if on), up
    return (frozenset(iface.pfc_priorities) if iface is not None else None), up


def _scan_links(fab: Fabric, state: FabricState) -> tuple[list[FabricLink], list[HostEndpoint]]:
    """The network's switch-switch links and host endpoints; records every end's lossless priorities.
    One pass over every link of the state (304,800 at 100,000 GPUs): kept in one frame, lookups hoisted."""
    index, devices, network = fab.index, state.devices, fab.network
    lossless_port = fab.lossless_port
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
        found, a_up = _port_facts(adev, a.port)
        if found is not None:
            lossless_port[(adev.name if adev.kind != "host" else f"{adev.name}:{a.port}", a.port)] = found
        found, b_up = _port_facts(bdev, b.port)
        if found is not None:
            lossless_port[(bdev.name if bdev.kind != "host" else f"{bdev.name}:{b.port}", b.port)] = found
        up = a_up and b_up
        lid = f"{la.device}:{la.port}--{lb.device}:{lb.port}"
        if b.device in index:
            fabric_links.append((lid, a.device, a.port, b.device, b.port, up))
        elif bdev.kind == "host" and up:
            hosts.append(_host_endpoint(fab, adev, a, bdev, b, lid))
    return fabric_links, hosts


def _host_endpoint(fab: Fabric, switch: Device, a: Peer, host: Device, b: Peer, lid: str) -> HostEndpoint:
    name = f"{b.device}:{b.port}"
    nic = host.host.nics.get(b.port) if host.host is not None else None
    iface = switch.interfaces.get(a.port)
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


def _add_links(fab: Fabric, fabric_links: Sequence[FabricLink]) -> list[tuple[End, End]]:
    """Number the fabric links; each one's lossless priorities are those common to both ends."""
    ends: list[tuple[End, End]] = []
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
    return ends


def _number_ports(fab: Fabric, switch_devs: Sequence[Device], ends: Sequence[tuple[End, End]]) -> dict[End, int]:
    """Global port ids, switch by switch in interface order (ports the device does not list last, by name)."""
    index = fab.index
    mine: list[dict[str, list[int]]] = [{} for _ in switch_devs]  # per switch: port -> its links, in link order
    for li, pair in enumerate(ends):
        for owner_name, port in pair:
            mine[index[owner_name]].setdefault(port, []).append(li)
    gp_of: dict[End, int] = {}
    owner_of, name_of, link_of = fab.port_owner, fab.port_name, fab.port_link
    for v, dev in enumerate(switch_devs):
        ports = mine[v]
        if not ports:
            continue
        listed = [p for p in dev.interfaces if p in ports]
        if len(listed) < len(ports):
            known = set(listed)
            listed += sorted(p for p in ports if p not in known)
        name = dev.name
        ids = fab.ports_of[v]
        for port in listed:
            for li in ports[port]:
                gp = len(owner_of)
                gp_of[(name, port)] = gp
                owner_of.append(v)
                name_of.append(port)
                link_of.append(li)
                ids.append(gp)
    return gp_of


def _wire_ports(fab: Fabric, ends: Sequence[tuple[End, End]], gp_of: dict[End, int]) -> None:
    """Peers and the up-facing flag of every global port."""
    fab.port_peer = [0] * len(fab.port_owner)
    for x, y in ends:
        gx, gy = gp_of[x], gp_of[y]
        fab.port_peer[gx], fab.port_peer[gy] = gy, gx
        fab.link_ports.append((gx, gy))
    owner, peer = fab.port_owner, fab.port_peer
    # up-facing: the peer ranks higher, by (rank, name); each switch's place in that order compares the same
    by_rank = sorted(range(len(fab.switches)), key=lambda v: (fab.rank[v], fab.switches[v]))
    place = [0] * len(by_rank)
    for k, v in enumerate(by_rank):
        place[v] = k
    fab.up_facing = [place[owner[peer[gp]]] > place[owner[gp]] for gp in range(len(owner))]
