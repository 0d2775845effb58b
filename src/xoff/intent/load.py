"""``load_intent``: files -> validated document -> resolved, checked :class:`Intent`.

Every stage runs on the parts of the intent no broken part touches, so one run reports every
independent problem together, sorted by file and line: a file that cannot be parsed leaves the
others to be judged, a schema problem takes out only its own unit (see :mod:`xoff.intent.damage`),
and devices, addresses, networks and cabling are judged among what resolved. A reference to a unit
that was left out, or a gap it leaves (an uncabled NIC), is not reported: the user never wrote
that mistake. Nothing is returned unless every stage is clean.
"""

from __future__ import annotations

import dataclasses
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path

from pydantic import ValidationError

from xoff.errors import InputError, Problem
from xoff.intent import semantic
from xoff.intent.context import Context
from xoff.intent.damage import Damage, salvage
from xoff.intent.document import IntentDocument
from xoff.intent.files import RawIntent, intent_files, read_intent_parts
from xoff.intent.networks import RoceNetwork
from xoff.intent.pydantic_errors import translate
from xoff.intent.resolve import AddressPool, DeviceResolver
from xoff.intent.resolved import Host, IbSwitch, Intent, Switch
from xoff.intent.tenant_resolve import resolve_tenants
from xoff.intent.wiring import Wiring
from xoff.intent.yamlsource import Path_

_UNSET = IPv4Address(0)  # the resolver's placeholder for an address to allocate
IB_GUID_BASE = 0x0002C90300000000  # Mellanox OUI 00:02:c9, as ibsim fabrics commonly use


@dataclasses.dataclass
class IntentError(InputError):
    """The problems of an intent; ``plannable`` is the intent as resolved when none of them touches what
    the planner reads (only addresses, explicit ASNs, the fabric's own fields or an unknown key are
    wrong), so planning it can report its own problems (headroom, the ASN plan) in the same run."""

    plannable: Intent | None = None


def load_intent(path: Path) -> Intent:
    """Load and resolve an intent file or directory; raise :class:`IntentError` listing every problem."""
    raw = read_intent_parts(path)
    ctx = _validated(raw)
    quiet = [ctx.damage.none()]  # each stage the planner reads found nothing wrong
    before = len(ctx.problems)
    semantic.check_policies(ctx)  # policies name no device: their problems stop none of the stages below

    resolver = DeviceResolver(ctx)
    dev = _resolve_devices(resolver)
    switches, ib_switches, hosts, paths = dev.switches, dev.ib_switches, dev.hosts, dev.paths
    quiet.append(len(ctx.problems) == before)

    # addresses and ASNs are judged among the devices that resolved: a broken device is left out, not guessed
    _allocate(ctx, switches, ib_switches, hosts, dev.need_mgmt, dev.need_loopback)
    unwritten = {*dev.need_mgmt, *dev.need_loopback}  # an address left unallocated was reported by _allocate
    entries = _address_entries(ctx, switches, ib_switches, hosts, paths)
    semantic.check_addresses(ctx, [e for e in entries if not (e[2] == _UNSET and e[0] in unwritten)])
    semantic.check_asns(ctx, switches, paths)
    # networks and cabling judge references among the devices that resolved; one naming a device whose
    # definition failed is left out (that problem is reported), never reported as a problem of its own
    before = len(ctx.problems)
    semantic.check_networks(ctx, switches, ib_switches, hosts)
    wiring = _wire(ctx, dev)
    quiet.append(len(ctx.problems) == before and wiring.whole)
    before = len(ctx.problems)
    tenants = resolve_tenants(ctx, hosts, switches, wiring.links)
    quiet.append(len(ctx.problems) == before)
    intent = Intent(
        document=ctx.doc,
        files=[str(f) for f in intent_files(path)],
        switches=switches,
        ib_switches=ib_switches,
        hosts=hosts,
        links=wiring.links,
        tenants=tenants,
        provenance=resolver.provenance,
        sources=raw.smap,
    )
    if ctx.problems:
        raise IntentError(ctx.problems, plannable=intent if all(quiet) else None)
    return intent


def _validated(raw: RawIntent) -> Context:
    """The document; or, with the problems so far reported, the parts of it the schema accepted, so the
    stages after the schema still judge them (see :mod:`xoff.intent.damage`)."""
    problems, damage = list(raw.problems), Damage()
    try:
        doc = IntentDocument.model_validate(raw.data)
    except ValidationError as exc:
        found = translate(exc, raw.data, raw.smap, IntentDocument)
        if raw.unread:  # a section missing here may be in the file that could not be read
            found = [p for p in found if not _missing_section(p)]
        problems += found
        salvaged = salvage(exc, raw.data)
        if salvaged is None:
            raise InputError(problems) from None
        kept, damage = salvaged
        try:
            doc = IntentDocument.model_validate(kept)
        except ValidationError:
            raise InputError(problems) from None
    if raw.unread:
        damage.lose_unread()
    return Context(doc, raw.smap, problems=problems, damage=damage)


def _missing_section(problem: Problem) -> bool:
    return "." not in problem.path and "[" not in problem.path and problem.message.startswith("required field")


@dataclasses.dataclass
class _Devices:
    """The resolved devices, where each was written, and those still needing an allocated address."""

    switches: dict[str, Switch] = dataclasses.field(default_factory=dict)
    ib_switches: dict[str, IbSwitch] = dataclasses.field(default_factory=dict)
    hosts: dict[str, Host] = dataclasses.field(default_factory=dict)
    paths: dict[str, Path_] = dataclasses.field(default_factory=dict)
    need_mgmt: list[str] = dataclasses.field(default_factory=list)
    need_loopback: list[str] = dataclasses.field(default_factory=list)


def _resolve_devices(resolver: DeviceResolver) -> _Devices:
    dev = _Devices()
    for sw, p, mgmt_given, lo_given in resolver.switches():
        dev.switches[sw.name], dev.paths[sw.name] = sw, p
        if not mgmt_given:
            dev.need_mgmt.append(sw.name)
        if not lo_given:
            dev.need_loopback.append(sw.name)
    for ib, p, mgmt_given in resolver.ib_switches(IB_GUID_BASE):
        dev.ib_switches[ib.name], dev.paths[ib.name] = ib, p
        if not mgmt_given:
            dev.need_mgmt.append(ib.name)
    for host, p, mgmt_given in resolver.hosts():
        dev.hosts[host.name], dev.paths[host.name] = host, p
        if not mgmt_given:
            dev.need_mgmt.append(host.name)
    return dev


def _wire(ctx: Context, dev: _Devices) -> Wiring:
    """Cable (explicit links, generators), check rails, address the links, and place switches in their pods."""
    switches, paths = dev.switches, dev.paths
    wiring = Wiring(ctx, switches, dev.ib_switches, dev.hosts)
    before = len(ctx.problems)
    wiring.explicit()
    wiring.generate()
    # a rejected or left-out cable would also show up as an uncabled NIC or a route with no next hop: say it once
    whole = len(ctx.problems) == before and not wiring.skipped and not ctx.damage.cabling
    wiring.whole = whole
    if whole:  # no cable was rejected, so every port the cabling took is a cable's end
        semantic.check_rails(ctx, dev.hosts, wiring.used, paths)
    addressed = whole and len(ctx.problems) == before and not ctx.damage.networks  # addresses on right cables only
    wiring.finish(addressed)
    if addressed:
        semantic.check_static_routes(ctx, switches, wiring.links)
    placed: dict[str, dict[str, int]] = {}
    _place(ctx, dev, "pod", wiring.pod_of, placed)
    _place(ctx, dev, "plane", wiring.plane_of, placed)
    for name, values in placed.items():  # one new switch each, with its pod and plane (7,296 at 100k GPUs)
        sw = switches[name]
        switches[name] = dataclasses.replace(sw, pod=values.get("pod", sw.pod), plane=values.get("plane", sw.plane))
    return wiring


def _place(
    ctx: Context, dev: _Devices, what: str, placed_by_cabling: dict[str, int], placed: dict[str, dict[str, int]]
) -> None:
    """The pod or plane the cabling generators gave each switch, into ``placed``; one written otherwise is a
    located error."""
    switches, paths = dev.switches, dev.paths
    for name, value in placed_by_cabling.items():
        sw = switches.get(name)
        written = None if sw is None else getattr(sw, what)
        if sw is not None and written is not None and written != value:
            ctx.report(
                (*paths[name], what), f"{name} is in {what} {written} here but cabling puts it in {what} {value}"
            )
        elif sw is not None:
            placed.setdefault(name, {})[what] = value


def _allocate(
    ctx: Context,
    switches: dict[str, Switch],
    ib_switches: dict[str, IbSwitch],
    hosts: dict[str, Host],
    need_mgmt: list[str],
    need_loopback: list[str],
) -> None:
    """Give each device without an explicit address the next free one of its pool, in intent order."""
    given: dict[str, dict[str, IPv4Address]] = {}
    _next_free(ctx, switches, need_mgmt, need_loopback, [switches, ib_switches, hosts], given)
    for name, values in given.items():  # one new device each, with its mgmt address and loopback
        _set(switches, ib_switches, hosts, name, values)


def _next_free(
    ctx: Context,
    switches: dict[str, Switch],
    need_mgmt: list[str],
    need_loopback: list[str],
    devices: list[dict[str, Switch] | dict[str, IbSwitch] | dict[str, Host]],
    given: dict[str, dict[str, IPv4Address]],
) -> None:
    """The addresses ``_allocate`` gives, into ``given``: up to the first pool that runs out (reported)."""
    mgmt = ctx.doc.networks.management
    if "management" in ctx.damage.networks:
        need_mgmt = []  # no prefix was read to allocate from
    need_loopback = [n for n in need_loopback if switches[n].network not in ctx.damage.networks]
    taken = {d.mgmt for group in devices for d in group.values()}
    taken |= {d.bmc for d in devices[2].values() if isinstance(d, Host) and d.bmc is not None}
    if mgmt.gateway is not None:
        taken.add(mgmt.gateway)
    pool = AddressPool(mgmt.prefix, taken)
    for name in need_mgmt:
        addr = pool.next()
        if addr is None:
            ctx.report(
                ("networks", "management", "prefix"),
                f"{mgmt.prefix} has no free address left for {name} (allowed: a larger prefix, or explicit mgmt addresses)",
            )
            return
        given[name] = {"mgmt": addr}
    pools: dict[str, AddressPool] = {}
    for name in need_loopback:
        sw = switches[name]
        net = getattr(ctx.doc.networks, sw.network)
        if not isinstance(net, RoceNetwork):
            continue
        if sw.network not in pools:
            pools[sw.network] = AddressPool(net.loopback_prefix, {s.loopback for s in switches.values()})
        addr = pools[sw.network].next()
        if addr is None:
            ctx.report(
                ("networks", sw.network, "loopback_prefix"),
                f"{net.loopback_prefix} has no free address left for {name} (allowed: a larger prefix)",
            )
            return
        given.setdefault(name, {})["loopback"] = addr


def _set(
    switches: dict[str, Switch],
    ib: dict[str, IbSwitch],
    hosts: dict[str, Host],
    name: str,
    values: dict[str, IPv4Address],
) -> None:
    if name in switches:
        sw = switches[name]
        mgmt, loopback = values.get("mgmt", sw.mgmt), values.get("loopback", sw.loopback)
        switches[name] = dataclasses.replace(sw, mgmt=mgmt, loopback=loopback)
    elif name in ib:
        ib[name] = dataclasses.replace(ib[name], mgmt=values["mgmt"])  # an InfiniBand switch has no loopback
    else:
        hosts[name] = dataclasses.replace(hosts[name], mgmt=values["mgmt"])


def _address_entries(
    ctx: Context,
    switches: dict[str, Switch],
    ib_switches: dict[str, IbSwitch],
    hosts: dict[str, Host],
    paths: dict[str, Path_],
) -> list[tuple[str, str, IPv4Address, Path_, IPv4Network | None]]:
    mgmt_prefix = ctx.doc.networks.management.prefix
    out: list[tuple[str, str, IPv4Address, Path_, IPv4Network | None]] = []
    for sw in switches.values():
        out.append((sw.name, "mgmt address", sw.mgmt, (*paths[sw.name], "mgmt"), mgmt_prefix))
        net = getattr(ctx.doc.networks, sw.network)
        lo_prefix = net.loopback_prefix if isinstance(net, RoceNetwork) else None
        out.append((sw.name, "loopback", sw.loopback, (*paths[sw.name], "loopback"), lo_prefix))
    for ib in ib_switches.values():
        out.append((ib.name, "mgmt address", ib.mgmt, (*paths[ib.name], "mgmt"), mgmt_prefix))
    for host in hosts.values():
        out.append((host.name, "mgmt address", host.mgmt, (*paths[host.name], "mgmt"), mgmt_prefix))
        if host.bmc is not None:
            out.append((host.name, "BMC address", host.bmc, (*paths[host.name], "bmc"), mgmt_prefix))
    return out
