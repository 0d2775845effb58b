"""Resolve the written intent into flat devices: expand patterns, apply defaults -> role -> device
inheritance once (remembering where each value came from), and allocate addresses."""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Network
from typing import Any

from xoff.buffers import get_asic
from xoff.buffers.catalogue import get_sku, sku_asic
from xoff.errors import Location
from xoff.intent import context
from xoff.intent.context import Context
from xoff.intent.devices import HostProfile, IbSwitchEntry, PortSpec, SwitchEntry, SwitchSettings
from xoff.intent.networks import RoceNetwork
from xoff.intent.patterns import PatternError, expand
from xoff.intent.resolved import Host, IbSwitch, Nic, Port, Switch
from xoff.intent.yamlsource import Path_, dotted
from xoff.platforms.load_balancing import refusals
from xoff.platforms.registry import get_platform, names_hwsku

Provenance = dict[tuple[str, str], tuple[Location | None, str]]
_INHERITED = ("platform", "asic", "sku", "hwsku", "network", "mtu", "asn", "ports", "static_routes", "load_balancing")
_REQUIRED = ("platform", "asic", "ports")


def _rank(path: Path_) -> int:
    """How specific the layer a value comes from is: the switch 0, a role 1, the defaults 2."""
    return {"switches": 0, "roles": 1}.get(str(path[0]), 2)


def _canon(name: str) -> str | None:
    try:
        return get_asic_name(name)
    except KeyError:
        return None  # reported where the switch's asic is read


def get_asic_name(name: str) -> str:
    """The canonical name of an ASIC (``KeyError`` when unknown)."""
    return get_asic(name).name


def _names(ctx: Context, pattern: str, path: Path_) -> list[str]:
    try:
        names = expand(pattern)
    except PatternError as exc:
        ctx.report(path, str(exc))
        return []
    if len(names) > ctx.names_left:
        if ctx.names_left >= 0:  # say it once, at the pattern that passes the limit
            ctx.report(
                path,
                f"{pattern!r} takes the names of this intent's patterns past {context.MAX_INTENT_NAMES}"
                f" (allowed: at most {context.MAX_INTENT_NAMES} device and port names per intent)",
            )
        ctx.names_left = -1
        return []
    ctx.names_left -= len(names)
    return names


def _ports(ctx: Context, specs: list[PortSpec], path: Path_, device: str) -> dict[str, Port]:
    ports: dict[str, Port] = {}
    for k, spec in enumerate(specs):
        for name in _names(ctx, spec.name, (*path, k, "name")):
            if name in ports:
                ctx.report((*path, k, "name"), f"{device} lists port {name!r} twice (allowed: each port once)")
                continue
            ports[name] = Port(name, spec.speed, spec.use, spec.mtu, spec.shutdown)
    return ports


class DeviceResolver:
    """Builds switches, InfiniBand switches and hosts; reports problems into the context."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.doc = ctx.doc
        self.provenance: Provenance = {}
        self.seen: dict[str, Path_] = {}
        self._port_cache: dict[Path_, dict[str, Port] | None] = {}
        # per switch entry: its settled fields and where each came from (_settle)
        self._settled: dict[Path_, tuple[dict[str, Any], list[tuple[str, tuple[Location | None, str]]]]] = {}
        self._refused: set[tuple[Path_, str]] = set()

    def _ports_at(self, specs: list[PortSpec], path: Path_, device: str) -> dict[str, Port] | None:
        """Ports of a spec list, expanded once per place it is written (Port is immutable, so shared);
        None when the list has a problem (reported once), so no device using it resolves half its ports."""
        if path not in self._port_cache:
            before = len(self.ctx.problems)
            ports = _ports(self.ctx, specs, path, device)
            whole = len(self.ctx.problems) == before and self.ctx.names_left >= 0
            self._port_cache[path] = ports if whole else None
        return self._port_cache[path]

    def _claim(self, name: str, path: Path_) -> bool:
        first = self.seen.get(name)
        if first is not None:
            self.ctx.report(
                path, f"duplicate device name {name!r}, first at {self.ctx.at(first)} (allowed: unique device names)"
            )
            self.ctx.damage.devices.every = True  # the entry was meant to be another device: any unknown name may be it
            return False
        self.seen[name] = path
        return True

    def _settle(self, name: str, entry: SwitchEntry, path: Path_) -> dict[str, Any]:
        """Each inherited field from the device, else ``roles.<network>-<role>``, else ``roles.<role>``,
        else ``defaults.switch`` (the network itself comes from the device, its role or the defaults).
        Settled once per entry (an entry of 4,096 super-spines has one answer), a new dict per switch."""
        settled = self._settled.get(path)
        if settled is None:
            settled = self._settled[path] = self._settle_entry(entry, path)
        out, sources = settled
        for field, source in sources:
            self.provenance[(name, field)] = source
        return dict(out)

    def _settle_entry(
        self, entry: SwitchEntry, path: Path_
    ) -> tuple[dict[str, Any], list[tuple[str, tuple[Location | None, str]]]]:
        layers: list[tuple[SwitchSettings, Path_]] = [(entry, path)]
        role = self.doc.roles.get(entry.role)
        if role is not None:
            layers.append((role, ("roles", entry.role)))
        layers.append((self.doc.defaults.switch, ("defaults", "switch")))
        network = next((lay.network for lay, _ in layers if lay.network is not None), "compute")
        scoped = f"{network}-{entry.role}"
        if scoped in self.doc.roles:
            layers.insert(1, (self.doc.roles[scoped], ("roles", scoped)))
        out: dict[str, Any] = {}
        sources: list[tuple[str, tuple[Location | None, str]]] = []
        for field in _INHERITED:
            for layer, lpath in layers:
                if field in layer.model_fields_set and getattr(layer, field) is not None:
                    out[field] = getattr(layer, field)
                    out[f"{field}@"] = (*lpath, field)
                    sources.append((field, (self.ctx.at((*lpath, field)), dotted((*lpath, field)))))
                    break
        return out, sources

    def _device_names(self, pattern: str, path: Path_) -> list[str]:
        """The names a device entry stands for; when they cannot be told, any unknown name may be one of them."""
        before = len(self.ctx.problems)
        names = _names(self.ctx, pattern, path)
        if len(self.ctx.problems) > before or self.ctx.names_left < 0:
            self.ctx.damage.devices.every = True
        return names

    def _lose(self, name: str) -> None:
        """A device that did not resolve (its problem is reported): references to it are not judged."""
        self.ctx.damage.devices.names.add(name)

    def switches(self) -> Iterator[tuple[Switch, Path_, bool, bool]]:
        """Yield (switch, path, mgmt_given, loopback_given); addresses not given are placeholders."""
        for i, entry in enumerate(self.doc.switches):
            path: Path_ = ("switches", i)
            for j, name in enumerate(self._device_names(entry.name, (*path, "name"))):
                if not self._claim(name, (*path, "name")) or self.ctx.damage.switch_settings_lost(entry.role):
                    self._lose(name)  # inherits from a role or default the schema refused, or named twice
                    continue
                sw = self._switch(name, j, entry, path)
                if sw is None:
                    self._lose(name)
                    continue
                yield sw, path, entry.mgmt is not None, entry.loopback is not None

    def _sku(self, name: str, s: dict[str, Any]) -> bool:
        """Settle a switch's ``sku``: its catalogue HWSKU, and the ASIC it sets (an ``asic`` given too must agree)."""
        try:
            sku = get_sku(s["sku"])
        except KeyError as exc:
            self.ctx.report(s["sku@"], str(exc.args[0]))
            return False
        s["sku"] = sku.hwsku
        derived = sku_asic(sku).name
        # an asic from a more general layer (defaults under a role's sku) gives way; one beside the sku conflicts
        if "asic" in s and _rank(s["asic@"]) <= _rank(s["sku@"]) and _canon(s["asic"]) not in (derived, None):
            self.ctx.report(
                s["asic@"],
                f"{name}: asic {s['asic']!r} conflicts with sku {sku.hwsku} ({derived})"
                f" (allowed: {derived}, or remove asic: the sku sets it)",
            )
            return False
        if "asic" not in s or _rank(s["asic@"]) > _rank(s["sku@"]):
            s["asic"], s["asic@"] = derived, s["sku@"]
        return True

    def _switch(self, name: str, j: int, entry: SwitchEntry, path: Path_) -> Switch | None:
        """The j-th switch of an entry, or None (its problems reported)."""
        s = self._settle(name, entry, path)
        if "sku" in s and not self._sku(name, s):
            return None
        missing = [f for f in _REQUIRED if f not in s]
        for f in missing:
            self.ctx.report(
                path, f"{name}: {f} is not set (set it on the switch, in roles.{entry.role} or in defaults.switch)"
            )
        if missing:
            return None
        try:
            asic = get_asic_name(s["asic"])
        except KeyError as exc:
            self.ctx.report(s["asic@"], str(exc.args[0]))
            return None
        if not self._platform_renders(name, s, path):
            return None
        ports = self._ports_at(s["ports"], s["ports@"], name)
        if ports is None:
            return None
        network = s.get("network", "compute")
        net = getattr(self.doc.networks, network)
        mtu: int = s["mtu"] if "mtu" in s else net.switch_mtu if isinstance(net, RoceNetwork) else 9100
        return Switch(
            name=name,
            role=entry.role,
            platform=s["platform"],
            asic=asic,
            sku=s.get("sku"),
            hwsku=s.get("hwsku"),
            network=network,
            mtu=mtu,
            asn=s.get("asn"),
            mgmt=entry.mgmt + j if entry.mgmt else IPv4Address(0),
            loopback=entry.loopback + j if entry.loopback else IPv4Address(0),
            pod=entry.pod,
            plane=entry.plane,
            rack=entry.rack,
            ports=ports,
            static_routes=tuple(s.get("static_routes", ())),
            static_routes_at=s.get("static_routes@", ()),
            load_balancing=s.get("load_balancing"),
        )

    def _platform_renders(self, name: str, s: dict[str, Any], path: Path_) -> bool:
        """Whether the switch's platform renders what it inherits (hwsku, load_balancing); problems reported."""
        if not names_hwsku(s["platform"]) and "hwsku" in s:
            if s["hwsku@"][:2] == path:  # set on this switch: a mistake; inherited: not meant for it
                self.ctx.report(
                    s["hwsku@"], f"{name}: hwsku applies to SONiC only (allowed: remove it, or platform sonic)"
                )
                return False
            del s["hwsku"]
        return "load_balancing" not in s or self._load_balancing(s)

    def _load_balancing(self, s: dict[str, Any]) -> bool:
        """Whether the switch's platform renders its load_balancing block; each refusal reported once per place."""
        found = refusals(s["load_balancing"], get_platform(s["platform"]).load_balancing, s["platform"])
        for field, message in found:
            path = (*s["load_balancing@"], field) if field else s["load_balancing@"]
            if (path, message) not in self._refused:
                self._refused.add((path, message))
                self.ctx.report(path, message)
        return not found

    def ib_switches(self, guid_base: int) -> Iterator[tuple[IbSwitch, Path_, bool]]:
        n = 0
        defaults = self.doc.defaults.ib_switch
        for i, entry in enumerate(self.doc.ib_switches):
            path: Path_ = ("ib_switches", i)
            for j, name in enumerate(self._device_names(entry.name, (*path, "name"))):
                inherits_lost = entry.ports is None and "ib_switch" in self.ctx.damage.defaults
                if not self._claim(name, (*path, "name")) or inherits_lost:
                    self._lose(name)
                    continue
                ports = self._ib_ports(entry, path, name)
                if ports is None:
                    self._lose(name)
                    continue
                n += 1
                yield (
                    IbSwitch(
                        name=name,
                        role=entry.role,
                        model=_pick(entry, defaults, "model") or "quantum2",
                        mgmt=entry.mgmt + j if entry.mgmt else IPv4Address(0),
                        guid=entry.guid or f"0x{guid_base + n:016x}",
                        ports=ports,
                    ),
                    path,
                    entry.mgmt is not None,
                )

    def _ib_ports(self, entry: IbSwitchEntry, path: Path_, name: str) -> dict[str, Port] | None:
        if entry.ports is not None:
            return self._ports_at(entry.ports, (*path, "ports"), name)
        if self.doc.defaults.ib_switch.ports is not None:
            return self._ports_at(self.doc.defaults.ib_switch.ports, ("defaults", "ib_switch", "ports"), name)
        self.ctx.report(path, f"{name}: ports is not set (set it on the switch or in defaults.ib_switch)")
        return None

    def hosts(self) -> Iterator[tuple[Host, Path_, bool]]:
        nic_cache: dict[str, dict[str, Nic] | None] = {}
        for i, entry in enumerate(self.doc.hosts):
            path: Path_ = ("hosts", i)
            names = self._device_names(entry.name, (*path, "name"))
            profile = self._profile(entry.profile, path)
            if profile is not None and entry.profile not in nic_cache:
                before = len(self.ctx.problems)
                nics = self._nics(entry.profile)
                whole = len(self.ctx.problems) == before and self.ctx.names_left >= 0
                nic_cache[entry.profile] = nics if whole else None
            for j, name in enumerate(names):
                if profile is None or nic_cache[entry.profile] is None or not self._claim(name, (*path, "name")):
                    self._lose(name)
                    continue
                yield (
                    Host(
                        name=name,
                        profile_name=entry.profile,
                        profile=profile,
                        mgmt=entry.mgmt + j if entry.mgmt else IPv4Address(0),
                        bmc=entry.bmc + j if entry.bmc else None,
                        unit=entry.unit,
                        nics=nic_cache[entry.profile] or {},
                        rack=entry.rack,
                    ),
                    path,
                    entry.mgmt is not None,
                )

    def _profile(self, name: str, path: Path_) -> HostProfile | None:
        """A host's profile; an unknown one is reported unless its definition was refused by the schema."""
        profiles = self.doc.host_profiles
        profile = profiles.get(name)
        if profile is None and name not in self.ctx.damage.profiles:
            known = ", ".join(sorted(profiles)) or "none defined in host_profiles"
            self.ctx.report((*path, "profile"), f"unknown host profile {name!r} (allowed: {known})")
        return profile

    def _nics(self, profile_name: str) -> dict[str, Nic]:
        nics: dict[str, Nic] = {}
        for k, spec in enumerate(self.doc.host_profiles[profile_name].nics):
            path: Path_ = ("host_profiles", profile_name, "nics", k)
            netdevs = _names(self.ctx, spec.netdev, (*path, "netdev"))
            rdmas = _names(self.ctx, spec.rdma, (*path, "rdma")) if spec.rdma else [None] * len(netdevs)
            if len(rdmas) != len(netdevs):
                self.ctx.report(
                    (*path, "rdma"),
                    f"{spec.rdma!r} names {len(rdmas)} devices but netdev names {len(netdevs)} (allowed: equal counts)",
                )
                continue
            for m, (netdev, rdma) in enumerate(zip(netdevs, rdmas, strict=True)):
                if netdev in nics:
                    self.ctx.report((*path, "netdev"), f"NIC {netdev!r} appears twice in profile {profile_name!r}")
                    continue
                nics[netdev] = Nic(
                    netdev=netdev,
                    rdma=rdma,
                    network=spec.network,
                    rail=None if spec.rail is None else spec.rail + m,
                    gpu=None if spec.gpu is None else spec.gpu + m,
                    speed=spec.speed,
                    mtu=spec.mtu,
                )
        return nics


def _pick(entry: Any, defaults: Any, field: str) -> Any:
    value = getattr(entry, field)
    return value if value is not None else getattr(defaults, field)


class AddressPool:
    """Hands out the next free host address of a prefix, skipping those already taken."""

    def __init__(self, prefix: IPv4Network, taken: set[IPv4Address]) -> None:
        self._hosts = prefix.hosts() if prefix.prefixlen < 31 else iter(prefix)
        self._taken = taken

    def next(self) -> IPv4Address | None:
        for addr in self._hosts:
            if addr not in self._taken:
                self._taken.add(addr)
                return addr
        return None
