"""The switch graph of one RoCE network in compact form (indices, not names), as routing and the sweep read it.

``index_state.fabric_of`` builds it from a FabricState; ``routing`` computes routes on it; ``statics``
records the static-route overrides in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

Paths = frozenset[frozenset[int]]  # a set of AS paths, each kept as the set of its ASNs (they never repeat)


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
    link_ids: list[str] = field(default_factory=list)
    link_ports: list[tuple[int, int]] = field(default_factory=list)
    link_ends: list[tuple[str, str, str, str]] = field(default_factory=list)  # a, a_port, b, b_port
    link_lossless: list[frozenset[int]] = field(default_factory=list)  # common to both ends
    down: frozenset[int] = frozenset()  # fabric links down in the state itself (admin down)
    hosts: tuple[HostEndpoint, ...] = ()
    classes: tuple[int, ...] = ()  # switches with at least one host endpoint
    lossless_default: frozenset[int] = frozenset()
    # (switch or host endpoint, port) -> its lossless priorities where they differ from ``lossless_default``
    # (read with ``.get(key, lossless_default)``: at 100,000 GPUs nearly every port holds the default)
    lossless_port: dict[tuple[str, str], frozenset[int]] = field(default_factory=dict)
    static: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)  # (class, switch) -> ports
    # (class, switch) -> ports of a static route less specific than the dynamic route: used only without one
    fallback: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    # destination classes are switch indices, except when static routes split a switch's hosts: then the
    # further classes get ids from len(switches) on; ``class_dest`` maps those to their switch
    class_dest: dict[int, int] = field(default_factory=dict)
    host_class: dict[str, int] = field(default_factory=dict)  # host endpoint -> its class
    up_facing: list[bool] = field(default_factory=list)  # gp: its peer ranks higher (rank, name)
    # the fabric links and the host endpoints (indices) whose two ends' lossless sets differ, found while
    # indexing (None: not known, look them up)
    unequal_ends: tuple[list[int], list[int]] | None = None
    paths: PathSets = field(default_factory=PathSets)  # interned AS-path sets (bgp)
    _adjacency: list[list[tuple[int, int, int]]] | None = None
    _neighbours: list[list[tuple[int, int, int]]] | None = None
    _ports_to: list[dict[int, list[int]]] | None = None

    # the failure sweep's indexes, built when first read (the baseline-only check never reads them)
    @property
    def neighbours(self) -> list[list[tuple[int, int, int]]]:
        """Per switch: (port, the peer switch, the link) for every fabric port, in port order."""
        if self._neighbours is None:
            owner, peer, plink = self.port_owner, self.port_peer, self.port_link
            self._neighbours = [[(gp, owner[peer[gp]], plink[gp]) for gp in ports] for ports in self.ports_of]
        return self._neighbours

    @property
    def ports_to(self) -> list[dict[int, list[int]]]:
        """Per switch: neighbour switch -> the ports towards it, in port id order."""
        if self._ports_to is None:
            owner, peer = self.port_owner, self.port_peer
            self._ports_to = [{} for _ in self.switches]
            for gp, v in enumerate(owner):
                self._ports_to[v].setdefault(owner[peer[gp]], []).append(gp)
        return self._ports_to

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
