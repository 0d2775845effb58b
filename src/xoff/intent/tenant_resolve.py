"""Tenants resolved: each tenant's NICs (host, netdev) from its hosts, NICs and GPUs, and its
partition or VRF settings, with every problem located at the field that causes it."""

from __future__ import annotations

import re

from xoff.intent.context import Context
from xoff.intent.networks import InfinibandNetwork, RoceNetwork
from xoff.intent.patterns import PatternError, expand
from xoff.intent.resolved import Host, Link, Switch, Tenant
from xoff.intent.tenant_vni import allocate_vnis, refuse_vni
from xoff.intent.tenants import TenantSpec
from xoff.intent.yamlsource import Path_
from xoff.platforms.registry import get_platform

COMPUTE = "compute"
VRF_PREFIX = "Vrf-"  # SONiC's VRF names start with "Vrf" (sonic-vrf.yang); every NOS accepts the prefix
_VRF_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,14}$")  # a Linux netdev (IFNAMSIZ 16), as SONiC/Cumulus/FRR make


def resolve_tenants(
    ctx: Context, hosts: dict[str, Host], switches: dict[str, Switch], links: list[Link]
) -> list[Tenant]:
    """Every tenant the intent names, or none when one of them is wrong (each problem reported)."""
    before = len(ctx.problems)
    found: list[tuple[int, Tenant, TenantSpec, bool]] = []
    owner: dict[tuple[str, str], str] = {}
    if not ctx.doc.tenants:
        return []
    transit = _transit(switches, links, hosts)
    across = {end: (other, i) for i, lk in enumerate(links) for end, other in ((lk.a, lk.b), (lk.b, lk.a))}
    for k, spec in enumerate(ctx.doc.tenants):
        path: Path_ = ("tenants", k)
        written = _owned(ctx, path, spec, hosts)
        nics = list(written)
        for nic, where in written.items():
            if nic in owner and owner[nic] != spec.name:
                ctx.report(
                    where, f"{nic[0]}:{nic[1]} belongs to tenant {owner[nic]} already (allowed: one tenant per NIC)"
                )
            owner.setdefault(nic, spec.name)
        tenant = _settings(ctx, path, spec, nics)
        if tenant is not None:
            leaves = _leaves(tenant, switches, across)
            _renderable(ctx, path, spec, tenant, leaves)
            found.append((k, tenant, spec, tenant.vrf is not None and refuse_vni(ctx, path, spec, leaves, transit)))
    out = allocate_vnis(ctx, found)
    _unique(ctx, out)
    return [t for _, t in out] if len(ctx.problems) == before else []


def _owned(ctx: Context, path: Path_, spec: TenantSpec, hosts: dict[str, Host]) -> dict[tuple[str, str], Path_]:
    """The compute NICs a tenant owns, in intent order, each with the entry that first names it."""
    found: dict[tuple[str, str], Path_] = {}
    for m, item in enumerate(spec.hosts):
        for host in _names(ctx, (*path, "hosts", m), item, hosts):
            nics = [n.netdev for n in hosts[host].nics.values() if n.network == COMPUTE]
            if not nics:
                ctx.report((*path, "hosts", m), f"{host} has no NIC on the compute network (allowed: hosts with one)")
            for n in nics:
                found.setdefault((host, n), (*path, "hosts", m))
    for field in ("nics", "gpus"):
        for m, item in enumerate(getattr(spec, field)):
            for nic in _pairs(ctx, (*path, field, m), item, hosts, by_gpu=field == "gpus"):
                found.setdefault(nic, (*path, field, m))
    if not spec.hosts and not spec.nics and not spec.gpus:
        ctx.report(path, f"tenant {spec.name} owns nothing (allowed: hosts, nics or gpus)")
    return found


def _names(ctx: Context, path: Path_, pattern: str, hosts: dict[str, Host]) -> list[str]:
    try:
        names = expand(pattern)
    except PatternError as exc:
        ctx.report(path, str(exc))
        return []
    out = []
    for name in names:
        if name in hosts:
            out.append(name)
        elif name not in ctx.damage.devices:
            ctx.report(path, f"no host named {name!r} (allowed: a host of this intent)")
    return out


def _pairs(ctx: Context, path: Path_, item: str, hosts: dict[str, Host], *, by_gpu: bool) -> list[tuple[str, str]]:
    """``host:netdev`` or ``host:gpu`` -> the compute NICs it names."""
    what = "GPU index" if by_gpu else "netdev"
    head, sep, tail = item.partition(":")
    if not sep or not head or not tail:
        form, example = ("host:gpu", "gpu01:0") if by_gpu else ("host:netdev", "gpu01:eth0")
        ctx.report(path, f"{item!r} is not {form} (allowed: e.g. {example})")
        return []
    try:
        parts = expand(tail)
    except PatternError as exc:
        ctx.report(path, str(exc))
        return []
    out: list[tuple[str, str]] = []
    for host in _names(ctx, path, head, hosts):
        compute = [n for n in hosts[host].nics.values() if n.network == COMPUTE]
        for part in parts:
            hit = [n.netdev for n in compute if (str(n.gpu) if by_gpu else n.netdev) == part]
            if not hit:
                ctx.report(path, f"{host} has no compute NIC with {what} {part} (allowed: its compute NICs)")
            out += [(host, n) for n in hit]
    return out


def _settings(ctx: Context, path: Path_, spec: TenantSpec, nics: list[tuple[str, str]]) -> Tenant | None:
    net = ctx.doc.networks.compute
    if COMPUTE in ctx.damage.networks:
        return None
    if isinstance(net, InfinibandNetwork):
        return _ib_tenant(ctx, path, spec, nics)
    if isinstance(net, RoceNetwork):
        return _roce_tenant(ctx, path, spec, nics, net)
    return None  # pragma: no cover - the schema allows only these two


def _ib_tenant(ctx: Context, path: Path_, spec: TenantSpec, nics: list[tuple[str, str]]) -> Tenant | None:
    for field in ("vrf", "vni", "lossless_class", "share_lossless"):
        if field in spec.model_fields_set:
            ctx.report((*path, field), f"{field} is for a RoCE compute network; this one is InfiniBand (allowed: pkey)")
    if spec.pkey is None:
        ctx.report(path, f"tenant {spec.name} needs a pkey on an InfiniBand compute network (allowed: 0x0001..0x7ffe)")
        return None
    net = ctx.doc.networks.compute
    assert isinstance(net, InfinibandNetwork)
    if spec.service_level is not None and net.qos.sl2vl[spec.service_level] >= net.qos.max_vls:
        vl = net.qos.sl2vl[spec.service_level]
        ctx.report((*path, "service_level"), f"SL {spec.service_level} maps to VL {vl}, not a data VL of this fabric")
    return Tenant(spec.name, tuple(nics), spec.pkey, spec.membership, spec.service_level, None, None, None, False)


def _roce_tenant(
    ctx: Context, path: Path_, spec: TenantSpec, nics: list[tuple[str, str]], net: RoceNetwork
) -> Tenant | None:
    for field in ("pkey", "membership", "service_level"):
        if field in spec.model_fields_set:
            ctx.report((*path, field), f"{field} is for an InfiniBand compute network; this one is RoCE (allowed: vrf)")
    policy = ctx.doc.qos_policies.get(net.qos_policy)
    if policy is None:
        return None  # reported where the network names it
    lossless = policy.lossless_classes
    name = spec.lossless_class or policy.rdma_class
    if name is None or name not in lossless:
        allowed = ", ".join(lossless) or f"none: policy {net.qos_policy} has no lossless class"
        shown = "the policy's RDMA class" if spec.lossless_class is None else repr(name)
        ctx.report(
            (*path, "lossless_class"), f"{shown} is not a lossless class of {net.qos_policy} (allowed: {allowed})"
        )
        return None
    vrf = spec.vrf or f"{VRF_PREFIX}{spec.name}"
    if not _VRF_RE.match(vrf):
        where = (*path, "vrf") if spec.vrf else (*path, "name")
        ctx.report(
            where, f"VRF name {vrf!r} is not a Linux VRF device name (allowed: {_VRF_RE.pattern}, 15 characters)"
        )
    return Tenant(spec.name, tuple(nics), None, "full", None, vrf, name, lossless[name].priority, spec.share_lossless)


def _unique(ctx: Context, tenants: list[tuple[int, Tenant]]) -> None:
    """Tenant names, PKeys (also against the network's own partitions) and VRFs are each used once."""
    net = ctx.doc.networks.compute
    taken_pkeys = {p.pkey: p.name for p in net.partitions} if isinstance(net, InfinibandNetwork) else {}
    seen: dict[str, dict[object, str]] = {"name": {}, "pkey": {}, "vrf": {"default": "(the underlay)"}}
    for pkey, name in taken_pkeys.items():
        seen["pkey"][pkey] = name
    for k, t in tenants:
        for field, value in (("name", t.name), ("pkey", t.pkey), ("vrf", t.vrf)):
            if value is None:
                continue
            if value in seen[field] or (field == "pkey" and value == 0x7FFF):
                shown = f"{value:#06x}" if isinstance(value, int) else repr(value)
                other = seen[field].get(value, "the default partition")
                ctx.report(
                    ("tenants", k, field), f"{field} {shown} is already used by {other} (allowed: one per tenant)"
                )
            seen[field].setdefault(value, t.name)


def _leaves(
    tenant: Tenant, switches: dict[str, Switch], across: dict[tuple[str, str], tuple[tuple[str, str], int]]
) -> list[Switch]:
    """The switches a tenant's NICs are cabled to, in cabling order (``across``: each cable end -> the other end
    and the link's index), from the tenant's NICs rather than a pass over every link per tenant."""
    first: dict[str, int] = {}
    for nic in tenant.nics:
        hit = across.get(nic)
        if hit is not None and hit[0][0] in switches:
            name, index = hit[0][0], hit[1]
            first[name] = min(index, first.get(name, index))
    return [switches[name] for name in sorted(first, key=first.__getitem__)]


def _transit(switches: dict[str, Switch], links: list[Link], hosts: dict[str, Host]) -> list[Switch]:
    """The compute network's switches cabled to no host (spines, super-spines): every tenant crosses them."""
    facing = {end[0] for link in links for end, other in ((link.a, link.b), (link.b, link.a)) if other[0] in hosts}
    return [s for s in switches.values() if s.network == COMPUTE and s.name not in facing]


def _renderable(ctx: Context, path: Path_, spec: TenantSpec, tenant: Tenant, leaves: list[Switch]) -> None:
    """A RoCE tenant's VRF can be rendered on every leaf its NICs are cabled to (the platform's VRF names)."""
    if tenant.vrf is None:
        return
    for sw in leaves:
        pattern = get_platform(sw.platform).vrf_names
        if pattern is None or not re.fullmatch(pattern, tenant.vrf):
            where = (*path, "vrf") if spec.vrf else (*path, "name")
            allowed = f"VRF names matching {pattern}" if pattern else "leaves of a platform that renders VRFs"
            ctx.report(where, f"{sw.platform} cannot render VRF {tenant.vrf!r} on {sw.name} (allowed: {allowed})")
            return
