"""Forwarding from collected FIBs: the deadlock analysis on what the switches actually forward.

The topology, PFC priorities and host endpoints come from a FabricState (the observed one after a
collect, or desired); each switch's forwarding towards each host endpoint is the longest-prefix
match of the endpoint's address in that switch's collected FIB (deadlock.md §5.2). Endpoints are
named as the routing model names them (``host:netdev``), so a snapshot from FIBs and one from the
intent's routing model can be compared port for port.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from xoff.contracts.fib import FibEntry
from xoff.deadlock.forwarding import snapshot_from_fabric
from xoff.deadlock.index_state import RANKS, roce_networks
from xoff.deadlock.model import Link, Snapshot
from xoff.deadlock.routing import Routing
from xoff.desired.models import Device, FabricState


def _lossless(device: Device, port: str) -> frozenset[int] | None:
    if device.host is not None and port in device.host.nics:
        return frozenset(p for p, on in enumerate(device.host.nics[port].pfc) if on)
    iface = device.interfaces.get(port)
    return frozenset(iface.pfc_priorities) if iface is not None else None


class LongestMatch:
    """Longest-prefix match over one FIB: per prefix length, longest first, its networks -> the first entry of
    each, so a lookup is a mask and a dict probe per length present instead of a scan of every entry (the scan
    was most of ``deadlock.cbd`` on a collected 64-device lab). The same entry as the scan: of those containing
    the address, the longest prefix, and of equal ones (the same network) the first in the FIB."""

    def __init__(self, fib: Sequence[FibEntry]) -> None:
        by_length: dict[int, dict[int, FibEntry]] = {}
        for entry in fib:
            by_length.setdefault(entry.prefix.prefixlen, {}).setdefault(int(entry.prefix.network_address), entry)
        self._tables = [
            (int(IPv4Network(f"0.0.0.0/{n}").netmask), by_length[n]) for n in sorted(by_length, reverse=True)
        ]

    def __call__(self, address: IPv4Address) -> FibEntry | None:
        value = int(address)
        for mask, networks in self._tables:
            entry = networks.get(value & mask)
            if entry is not None:
                return entry
        return None


def snapshot_from_fibs(
    state: FabricState, fibs: Mapping[str, Sequence[FibEntry]], network: str = "compute", name: str | None = None
) -> Snapshot:
    """One RoCE network's snapshot with forwarding from ``fibs`` (switch -> its FIB).

    ``ValueError`` when a switch of the network has no collected FIB, or a host endpoint has no
    address: an analysis on partial forwarding would read as "no risk" for what it never saw.
    """
    plan = state.networks.get(network)
    if plan is None or plan.kind != "roce":
        raise ValueError(f"no RoCE network {network!r} in fabric {state.fabric}")
    devices = state.devices
    switches = sorted(d.name for d in devices.values() if d.kind == "switch" and d.network == network)
    missing = [s for s in switches if s not in fibs]
    if missing:
        raise ValueError(f"no FIB collected from {', '.join(missing)}")
    links, lossless, endpoints = _links_of(state, network, set(switches))
    link_ports = {end for lk in links if lk.up for end in ((lk.a, lk.a_port), (lk.b, lk.b_port))}
    forwarding: dict[str, dict[str, tuple[str, ...]]] = {}
    lookup = {switch: LongestMatch(fibs[switch]) for switch in switches}
    for endpoint, address in sorted(endpoints.items()):
        per_switch: dict[str, tuple[str, ...]] = {}
        for switch in switches:
            entry = lookup[switch](address)
            if entry is None:
                continue
            ports = tuple(p for p in entry.ports if (switch, p) in link_ports)
            if ports:
                per_switch[switch] = ports
        forwarding[endpoint] = per_switch
    return Snapshot(
        name=name or f"{state.fabric}-{network}-fib",
        description=f"forwarding of network {network} of {state.fabric} from collected FIBs",
        switches=tuple(switches),
        hosts=tuple(sorted(endpoints)),
        links=tuple(links),
        lossless_default=frozenset(plan.lossless_priorities),
        lossless=lossless,
        rewrites=(),
        forwarding=forwarding,
        ranks={s: RANKS.get(devices[s].role, 1) for s in switches},
    )


def _links_of(
    state: FabricState, network: str, members: set[str]
) -> tuple[list[Link], dict[str, dict[str, frozenset[int]]], dict[str, IPv4Address]]:
    """The network's links (switch first), the lossless priorities of their ends, and each host endpoint's address."""
    devices = state.devices
    links: list[Link] = []
    lossless: dict[str, dict[str, frozenset[int]]] = {}
    endpoints: dict[str, IPv4Address] = {}
    for link in state.links:
        if link.network != network:
            continue
        a, b = link.a, link.b
        if a.device not in members:
            a, b = b, a
        if a.device not in members or b.device not in devices:
            continue
        peer = devices[b.device]
        peer_name = b.device
        if peer.kind == "host":
            nic = peer.host.nics.get(b.port) if peer.host else None
            if nic is None or nic.address is None:
                raise ValueError(f"{b.device}:{b.port}: host endpoint without an address")
            peer_name = f"{b.device}:{b.port}"
            endpoints[peer_name] = IPv4Interface(nic.address).ip
        elif b.device not in members:
            continue
        for dev_name, dev, port in ((a.device, devices[a.device], a.port), (peer_name, peer, b.port)):
            found = _lossless(dev, port)
            if found is not None:
                lossless.setdefault(dev_name, {})[port] = found
        up = devices[a.device].interfaces[a.port].admin_up if a.port in devices[a.device].interfaces else True
        links.append(Link(f"{a.device}:{a.port}--{b.device}:{b.port}", a.device, a.port, peer_name, b.port, up))
    return links, lossless, endpoints


def fibs_from_model(state: FabricState, routing: Routing = "bgp") -> dict[str, list[FibEntry]]:
    """What the switches of every lossless RoCE network would install if they ran the routing model:
    one host route per endpoint with the model's ECMP ports (the inverse of ``snapshot_from_fibs``),
    for snapshots that mirror the intent."""
    fibs: dict[str, list[FibEntry]] = {}
    for network in roce_networks(state):
        switches = [d.name for d in state.devices.values() if d.kind == "switch" and d.network == network]
        if not switches:
            continue
        model = snapshot_from_fabric(state, routing=routing, network=network)
        for switch in switches:
            fibs.setdefault(switch, [])
        for endpoint, per_switch in model.forwarding.items():
            host, _, netdev = endpoint.partition(":")
            host_settings = state.devices[host].host
            nic = host_settings.nics.get(netdev) if host_settings is not None else None
            if nic is None or nic.address is None:
                continue
            prefix = IPv4Network(f"{IPv4Interface(nic.address).ip}/32")
            for switch, ports in per_switch.items():
                fibs[switch].append(FibEntry(prefix, routing, tuple(sorted(ports))))
    return {s: sorted(e, key=lambda x: int(x.prefix.network_address)) for s, e in fibs.items()}
