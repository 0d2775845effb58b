"""Cabling: explicit links and generators become one list of checked, addressed links."""

from __future__ import annotations

from collections.abc import Iterator

from xoff.intent.cabling import Clos3, LeafSpine, RailOptimized
from xoff.intent.context import Context
from xoff.intent.networks import InfinibandNetwork, RoceNetwork
from xoff.intent.patterns import PatternError, expand_names
from xoff.intent.qos import CableLengths
from xoff.intent.resolved import Host, IbSwitch, Link, Port, Switch
from xoff.intent.yamlsource import Path_

_TIER = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
_ROLE_OF_TIERS = {(0, 1): "host_leaf", (1, 2): "leaf_spine", (2, 3): "spine_super_spine"}
_USE_LABEL = {"uplink": "uplink", "downlink": "downlink"}
_DEFAULT_LENGTHS = CableLengths()


def _speed(mbps: int) -> str:
    return f"{mbps // 1000}G"


class Wiring:
    """Checks each cable end, tracks used ports, and hands out free ports to generators."""

    def __init__(
        self,
        ctx: Context,
        switches: dict[str, Switch],
        ib_switches: dict[str, IbSwitch],
        hosts: dict[str, Host],
    ) -> None:
        self.ctx = ctx
        self.switches = switches
        self.ib_switches = ib_switches
        self.hosts = hosts
        self.used: dict[tuple[str, str], Path_] = {}
        # each checked cable as Link's fields but its /31, until finish() makes its Link (once: addressed or not)
        self._cables: list[tuple[tuple[str, str], tuple[str, str], int, int, str, str, str]] = []
        self.links: list[Link] = []  # finish()
        self.pod_of: dict[str, int] = {}
        self.plane_of: dict[str, int] = {}  # clos3: spine i of every pod and its super-spines are plane i + 1
        # per (device, use, speed), once: how many of its ports are of that use and speed, and an iterator over them
        # in order, where _free (per generated cable) goes on from the last it gave
        self._fits: dict[tuple[str, str, int | None], tuple[int, Iterator[Port]]] = {}
        self._lengths: dict[tuple[str, str], int] = {}  # (role, network) -> default cable length, once
        self._tiers: dict[str, tuple[int, str]] = {}  # per device, once: _tier_of
        self.skipped = False  # a cable to a device that did not resolve was left out: the cabling is incomplete
        self.whole = False  # every cable is right (and the links were addressed)

    # -- ends -----------------------------------------------------------------------------------
    def _port_speed(self, device: str, port: str, path: Path_) -> int | None:
        dev = self.switches.get(device) or self.ib_switches.get(device)
        if dev is not None:
            p = dev.ports.get(port)
            if p is None:
                self.ctx.report(path, f"{device} has no port {port!r} ({_port_summary(list(dev.ports))})")
                return None
            return p.speed
        host = self.hosts.get(device)
        if host is not None:
            nic = host.nics.get(port)
            if nic is None:
                known = ", ".join(host.nics) or "none"
                self.ctx.report(path, f"{device} has no NIC {port!r} (allowed: {known})")
                return None
            return nic.speed
        if device in self.ctx.damage.devices:  # its definition has a problem of its own, reported there
            self.skipped = True
            return None
        self.ctx.report(
            path, f"no device named {device!r} (allowed: a switch, InfiniBand switch or host of this intent)"
        )
        return None

    def _tier_of(self, device: str) -> tuple[int, str]:
        """The device's tier (0: a host) and the network its links are on when it is their upper end."""
        dev = self.switches.get(device) or self.ib_switches.get(device)
        sw = self.switches.get(device)
        tier = self._tiers[device] = (
            0 if dev is None else _TIER[dev.role],
            sw.network if sw is not None else "compute",
        )
        return tier

    def add(
        self,
        a: tuple[str, str],
        b: tuple[str, str],
        speed: int | None,
        length: int | None,
        path: Path_,
        origin: str,
    ) -> None:
        """Check and record one cable; ``path`` is where to point when something is wrong with it."""
        ok = True
        speeds = []
        explicit = origin.startswith("links")
        for end, sub in ((a, "a"), (b, "b")):
            epath = (*path, sub) if explicit else path
            s = self._port_speed(end[0], end[1], epath)
            if s is None:
                ok = False
                continue
            speeds.append(s)
            ok = self._take(end, epath) and ok
        if not ok:
            return
        if speeds[0] != speeds[1]:
            self.ctx.report(
                path,
                f"speeds differ: {a[0]}:{a[1]} is {_speed(speeds[0])}, {b[0]}:{b[1]} is {_speed(speeds[1])}"
                " (allowed: equal speeds at both ends)",
            )
            return
        if speed is not None and speed != speeds[0]:
            self.ctx.report(
                (*path, "speed"),
                f"link speed {_speed(speed)} differs from its ports' {_speed(speeds[0])} (allowed: {_speed(speeds[0])})",
            )
            return
        self._record(a, b, speeds[0], length, path, origin)

    def _take(self, end: tuple[str, str], path: Path_) -> bool:
        """Mark ``end`` cabled here; False (reported) when a cable took it already."""
        first = self.used.get(end)
        if first is not None:
            self.ctx.report(
                path, f"{end[0]}:{end[1]} is already cabled at {self.ctx.at(first)} (allowed: one link per port)"
            )
            return False
        self.used[end] = path
        return True

    def _record(
        self, a: tuple[str, str], b: tuple[str, str], speed: int, length: int | None, path: Path_, origin: str
    ) -> None:
        """Record a cable whose ends exist, were free, and have one ``speed``, if both are on one network."""
        tier_a, network = self._tiers.get(a[0]) or self._tier_of(a[0])
        tier_b, network_b = self._tiers.get(b[0]) or self._tier_of(b[0])
        # two switches' networks are their own; a host's is its NIC's (tier 0)
        on_a = network if tier_a else self.hosts[a[0]].nics[a[1]].network
        on_b = network_b if tier_b else self.hosts[b[0]].nics[b[1]].network
        if on_a != on_b:
            self._networks_differ(a, b, path)
            return
        # the upper tier is always the a end, so addressing and reports read top-down
        if tier_a < tier_b:
            a, b, tier_a, tier_b, network = b, a, tier_b, tier_a, network_b
        role = _ROLE_OF_TIERS.get((tier_b, tier_a), "other")
        if length is None:
            length = self._lengths.get((role, network))
            if length is None:
                length = self._lengths[role, network] = self._default_length(role, network)
        self._cables.append((a, b, speed, length, role, network, origin))

    def _networks_differ(self, a: tuple[str, str], b: tuple[str, str], path: Path_) -> None:
        (n1, k1), (n2, k2) = self._end(*a), self._end(*b)
        w1, w2 = self._network_of(*a), self._network_of(*b)
        self.ctx.report(
            path,
            f"{k1} {n1} is on the {w1} network but {k2} {n2} is on the {w2} network (allowed: both ends on one network)",
        )

    def _network_of(self, dev: str, port: str) -> str:
        host = self.hosts.get(dev)
        if host is not None:
            return host.nics[port].network
        return "compute" if dev in self.ib_switches else self.switches[dev].network

    def _end(self, dev: str, port: str) -> tuple[str, str]:
        """A cable end's name for reports, and what it is."""
        if dev in self.hosts:
            return f"{dev}:{port}", "NIC"
        return dev, "InfiniBand switch" if dev in self.ib_switches else "switch"

    def _default_length(self, role: str, network: str) -> int:
        lengths = _DEFAULT_LENGTHS
        net = getattr(self.ctx.doc.networks, network, None)
        if isinstance(net, InfinibandNetwork):
            lengths = net.cable_lengths
        policy = self.ctx.doc.qos_policies.get(getattr(net, "qos_policy", "") or "")
        if policy is not None:
            lengths = policy.cable_lengths
        return int(getattr(lengths, role, lengths.leaf_spine))

    # -- explicit links ---------------------------------------------------------------------------
    def explicit(self) -> None:
        for i, spec in enumerate(self.ctx.doc.links):
            path: Path_ = ("links", i)
            a = tuple(spec.a.split(":", 1))
            b = tuple(spec.b.split(":", 1))
            self.add((a[0], a[1]), (b[0], b[1]), spec.speed, spec.length, path, f"links[{i}]")

    # -- generators -------------------------------------------------------------------------------
    def generate(self) -> None:
        for i, gen in enumerate(self.ctx.doc.cabling):
            path: Path_ = ("cabling", i)
            if isinstance(gen, LeafSpine):
                self._leaf_spine(gen, path)
            elif isinstance(gen, Clos3):
                self._clos3(gen, path)
            else:
                self._rail(gen, path)

    def _select(self, names: str | list[str], path: Path_, kinds: str) -> list[str] | None:
        try:
            out = expand_names(names)
        except PatternError as exc:
            self.ctx.report(path, str(exc))
            return None
        pool = self.hosts if kinds == "host" else {**self.switches, **self.ib_switches}
        missing = [n for n in out if n not in pool]
        if missing and all(n in self.ctx.damage.devices for n in missing):
            self.skipped = True  # a device it names did not resolve (reported there): the generator is not run
            return None
        missing = [n for n in missing if n not in self.ctx.damage.devices]
        if missing:
            what = "host" if kinds == "host" else "switch"
            where = path
            if isinstance(names, list):  # point at the list item that names it
                where = next(((*path, k) for k, item in enumerate(names) if missing[0] in expand_names(item)), path)
            more = f", and {len(missing) - 1} more" if len(missing) > 1 else ""
            self.ctx.report(where, f"no {what} named {missing[0]!r}{more} (allowed: a {what} of this intent)")
            return None
        return out

    def _free(
        self, device: str, use: str, path: Path_, toward: str | tuple[str, str], speed: int | None = None
    ) -> Port | None:
        """The next uncabled port of ``device`` for this use (and speed, when the other end has one)."""
        key = (device, use, speed)
        fits = self._fits.get(key) or self._fitting(key)
        used = self.used
        for port in fits[1]:  # skips, for good, the ports cabled since: a port once cabled stays cabled
            if (device, port.name) not in used:
                return port
        at = f" {_speed(speed)}" if speed is not None else ""
        other = toward if isinstance(toward, str) else ":".join(toward)  # a NIC's name only when it is said
        self.ctx.report(
            path,
            f"{device} has no free{at} {_USE_LABEL[use]} port for its link to {other}"
            f" ({fits[0]}{at} {use} or 'any' ports, all cabled)",
        )
        return None

    def _fitting(self, key: tuple[str, str, int | None]) -> tuple[int, Iterator[Port]]:
        device, use, speed = key
        dev = self.switches.get(device) or self.ib_switches.get(device)
        assert dev is not None
        ports = [p for p in dev.ports.values() if p.use in (use, "any") and (speed is None or p.speed == speed)]
        fits = self._fits[key] = (len(ports), iter(ports))
        return fits

    def _pair(self, low: str, high: str, length: int | None, path: Path_, origin: str) -> None:
        up = self._free(low, "uplink", path, high)
        if up is None:
            return
        down = self._free(high, "downlink", path, low, up.speed)
        if down is not None:  # two free ports of one speed: what add() would check holds already
            self.used[high, down.name] = self.used[low, up.name] = path
            self._record((high, down.name), (low, up.name), up.speed, length, path, origin)

    def _leaf_spine(self, gen: LeafSpine, path: Path_) -> None:
        leaves = self._select(gen.leaves, (*path, "leaves"), "switch")
        spines = self._select(gen.spines, (*path, "spines"), "switch")
        if leaves is None or spines is None:
            return
        for leaf in leaves:
            for spine in spines:
                for _ in range(gen.links_per_pair):
                    self._pair(leaf, spine, gen.length, path, f"cabling[{path[1]}] (leaf_spine)")

    def _clos3(self, gen: Clos3, path: Path_) -> None:
        leaves = self._select(gen.leaves, (*path, "leaves"), "switch")
        spines = self._select(gen.spines, (*path, "spines"), "switch")
        supers = self._select(gen.super_spines, (*path, "super_spines"), "switch")
        if leaves is None or spines is None or supers is None:
            return
        for what, group in (("leaves", leaves), ("spines", spines)):
            if len(group) % gen.pods:
                self.ctx.report((*path, what), f"{len(group)} {what} do not split evenly into {gen.pods} pods")
                return
        per_pod_leaves, per_pod_spines = len(leaves) // gen.pods, len(spines) // gen.pods
        if len(supers) % per_pod_spines:
            self.ctx.report(
                (*path, "super_spines"),
                f"{len(supers)} super-spines do not split evenly into {per_pod_spines} planes (one per spine of a pod)",
            )
            return
        plane_size = len(supers) // per_pod_spines
        origin = f"cabling[{path[1]}] (clos3)"
        for pod in range(gen.pods):
            pod_leaves = leaves[pod * per_pod_leaves : (pod + 1) * per_pod_leaves]
            pod_spines = spines[pod * per_pod_spines : (pod + 1) * per_pod_spines]
            for name in pod_leaves + pod_spines:
                self.pod_of[name] = pod + 1
            for leaf in pod_leaves:
                for spine in pod_spines:
                    self._pair(leaf, spine, gen.leaf_spine_length, path, origin)
            for plane, spine in enumerate(pod_spines):
                self.plane_of[spine] = plane + 1
                for sup in supers[plane * plane_size : (plane + 1) * plane_size]:
                    self.plane_of[sup] = plane + 1
                    self._pair(spine, sup, gen.spine_super_spine_length, path, origin)

    def _rail(self, gen: RailOptimized, path: Path_) -> None:
        hosts = self._select(gen.hosts, (*path, "hosts"), "host")
        leaves = self._select(gen.leaves, (*path, "leaves"), "switch")
        if hosts is None or leaves is None:
            return
        origin = f"cabling[{path[1]}] (rail_optimized)"
        for host in hosts:
            nics = [n for n in self.hosts[host].nics.values() if n.network == gen.network]
            for nic in nics:
                if nic.rail is None or nic.rail >= len(leaves):
                    rail = "no rail" if nic.rail is None else f"rail {nic.rail}"
                    self.ctx.report(
                        (*path, "leaves"),
                        f"{host}:{nic.netdev} has {rail} (allowed: rails 0..{len(leaves) - 1}, one leaf per rail)",
                    )
                    return
                leaf = leaves[nic.rail]
                free = self._free(leaf, "downlink", path, (host, nic.netdev), nic.speed)
                if free is None:
                    return
                # a free port of the NIC's speed: only the NIC may have been cabled already
                self.used[leaf, free.name] = path
                if self._take((host, nic.netdev), path):
                    self._record((leaf, free.name), (host, nic.netdev), nic.speed, gen.length, path, origin)

    # -- addressing -------------------------------------------------------------------------------
    def finish(self, address: bool) -> None:
        """The cables as ``links``; with ``address``, a /31 per routed Ethernet link from its network's p2p pool
        (the upper end takes the even one), up to the first pool that runs out (reported)."""
        pools: dict[str, list[int]] = {}  # network -> [its first address, its size, the next free offset]
        links = self.links = []
        ib = self.ib_switches if address else None
        for cable in self._cables:
            if ib is None or cable[0][0] in ib:
                links.append(_link(*cable, None))
                continue
            network = cable[5]
            pool = pools.get(network) or self._pool(network, pools)
            if not pool:  # a network that is not defined: said by the network checks, nothing to address from
                links.append(_link(*cable, None))
                continue
            first, size, cursor = pool
            if cursor + 2 > size:
                self._exhausted(network, size)
                ib = None  # the rest is left unaddressed
                links.append(_link(*cable, None))
                continue
            pool[2] = cursor + 2
            links.append(_link(*cable, first + cursor))

    def _pool(self, network: str, pools: dict[str, list[int]]) -> list[int]:
        net = getattr(self.ctx.doc.networks, network)
        if not isinstance(net, RoceNetwork):
            pools[network] = []
        else:
            pools[network] = [int(net.p2p_prefix.network_address), net.p2p_prefix.num_addresses, 0]
        return pools[network]

    def _exhausted(self, network: str, size: int) -> None:
        prefix = getattr(self.ctx.doc.networks, network).p2p_prefix
        need = sum(1 for c in self._cables if c[5] == network and c[0][0] not in self.ib_switches)
        self.ctx.report(
            ("networks", network, "p2p_prefix"),
            f"{prefix} holds {size // 2} /31s but {need} links need one"
            f" (allowed: a prefix of /{32 - (2 * need - 1).bit_length()} or shorter)",
        )


# Link(...) through its slots' own setters: a frozen dataclass's __init__ goes through object.__setattr__ once per
# field, twice the time (304,800 links at 100,000 GPUs)
_A, _B, _SPEED, _LENGTH, _ROLE, _NETWORK, _ORIGIN, _P2P = (getattr(Link, f).__set__ for f in Link.__slots__)


def _link(
    a: tuple[str, str],
    b: tuple[str, str],
    speed: int,
    length: int,
    role: str,
    network: str,
    origin: str,
    p2p: int | None,
) -> Link:
    link = object.__new__(Link)
    _A(link, a)
    _B(link, b)
    _SPEED(link, speed)
    _LENGTH(link, length)
    _ROLE(link, role)
    _NETWORK(link, network)
    _ORIGIN(link, origin)
    _P2P(link, p2p)
    return link


def _port_summary(names: list[str]) -> str:
    if not names:
        return "it has no ports"
    if len(names) <= 6:
        return "allowed: " + ", ".join(names)
    return f"allowed: {names[0]}, {names[1]}, ... {names[-1]} ({len(names)} ports)"
