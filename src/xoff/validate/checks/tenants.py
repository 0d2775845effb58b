"""Tenant isolation: on RoCE every tenant routes in its own VRF and pauses only its own lossless
priority-group; on InfiniBand no HCA port is a full member of two tenants' partitions.

A tenant's VRF is ``Device.vrfs`` (its ``tenant``, lossless priority and whether it may share), the
ports bound to it ``Interface.vrf``; a tenant partition is a ``Partition`` with ``tenant`` set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from ipaddress import IPv4Interface, IPv4Network

from xoff.contracts.infiniband import IbObservation
from xoff.desired.ib_guids import hca_port_guids
from xoff.desired.models import Device, FabricState, Partition
from xoff.validate.checks.infiniband import InfinibandCheck, _sm
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

_FABRIC_ROLES = frozenset({"leaf_spine", "spine_super_spine"})
FULL = 0x8000


def _tenant_vrfs(subject: FabricState) -> dict[str, tuple[int | None, bool]]:
    """tenant -> (the priority of its lossless class, whether it may share a PG), from every switch's VRFs."""
    out: dict[str, tuple[int | None, bool]] = {}
    for d in subject.devices.values():
        for v in d.vrfs:
            out.setdefault(v.tenant, (v.lossless_priority, v.share_lossless))
    return out


def _no_vrfs(subject: FabricState) -> str | None:
    if not any(d.vrfs for d in subject.devices.values()):
        return "no tenant VRF in this fabric (no RoCE tenants in the intent, or none observed)"
    return None


@register
class LosslessIsolation(Check):
    """No two tenants share a lossless priority-group on any switch port unless each of them allows it
    (``share_lossless``): a tenant whose traffic shares a PG with another's can be paused by it (PFC
    pauses the whole priority), so one tenant's incast stalls the other. A port bound to a tenant's VRF
    carries that tenant; a fabric link (leaf-spine, spine-super-spine) carries every tenant."""

    id = "tenant.lossless_isolation"
    title = "No tenant shares a lossless priority-group with another on any port, unless the intent allows it"
    reads = ("vrfs", "interfaces.*.vrf", "qos.pfc_priority_to_priority_group")
    hint = "give each tenant its own lossless class (tenants[].lossless_class on another priority), or set share_lossless: true on the tenants that may share"

    def applies(self, subject: FabricState) -> str | None:
        return _no_vrfs(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        tenants = _tenant_vrfs(ctx.subject)
        for d in ctx.subject.devices.values():
            if d.kind == "switch" and d.qos is not None:
                yield from self._device(d, tenants)

    def _device(self, d: Device, tenants: dict[str, tuple[int | None, bool]]) -> Iterator[Finding]:
        assert d.qos is not None
        vrf_tenant = {v.name: v.tenant for v in d.vrfs}
        for iface in d.interfaces.values():
            if iface.vrf is not None:
                on_port = [vrf_tenant.get(iface.vrf, iface.vrf)]
            elif iface.link_role in _FABRIC_ROLES:
                on_port = list(tenants)
            else:
                continue
            by_pg: dict[int, list[str]] = {}
            for t in on_port:
                prio = tenants.get(t, (None, False))[0]
                pg = None if prio is None else d.qos.pfc_priority_to_priority_group.get(prio)
                if pg is not None:
                    by_pg.setdefault(pg, []).append(t)
            for pg, names in sorted(by_pg.items()):
                strict = [t for t in names if not tenants[t][1]]
                if len(names) > 1 and strict:
                    yield Finding(
                        d.name,
                        iface.name,
                        f"lossless PG {pg} shared by tenants {', '.join(sorted(names))}",
                        "one tenant per lossless PG, or share_lossless on each",
                        f"{', '.join(sorted(strict))} not allowed to share",
                        port=iface.name,
                    )


@register
class RouteIsolation(Check):
    """No host reaches another tenant's addresses, judged from the routing the switches are given: a VRF
    originates only the links of its own ports, one VRF name is one tenant on every switch, and neither the
    underlay's BGP nor a static route of the default VRF carries a tenant's link (a route there would lead
    other hosts to it). ``tenant.port_vrf`` judges the ports' VRFs on the running switches."""

    id = "tenant.route_isolation"
    title = "No host reaches another tenant's addresses: ports in their tenant's VRF, no route leaks between VRFs"
    reads = ("vrfs", "interfaces.*.vrf", "bgp.networks", "static_routes")
    hint = (
        "bind the port to its tenant's VRF and originate its link in that VRF only (re-render from the intent and push)"
    )

    def applies(self, subject: FabricState) -> str | None:
        return _no_vrfs(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        owner: dict[str, str] = {}
        for d in ctx.subject.devices.values():
            yield from _leaks(d, owner)


@register
class PortVrf(Check):
    """On the running switches every port routes in the VRF the intent gives it: a tenant's host port in the
    default VRF or in another tenant's VRF reaches (and is reached by) addresses that are not its tenant's, and a
    port the intent leaves in the default VRF (every port, without tenants) must not sit in another. Read back from SONiC ``INTERFACE``
    ``vrf_name``, EOS ``vrf`` and NVUE ``ip vrf``."""

    id = "tenant.port_vrf"
    title = "Every running port is in the VRF the intent gives it (tenant ports in their tenant's VRF)"
    needs = frozenset({"observed"})
    reads = ("interfaces.*.vrf",)
    hint = "bind the port to its tenant's VRF as rendered (re-push the switch's configuration)"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for d in ctx.subject.devices.values():
            want = ctx.desired.devices.get(d.name)
            if want is None or d.kind != "switch":
                continue
            for name, iface in want.interfaces.items():
                have = d.interfaces.get(name)
                if iface.kind == "ethernet" and have is not None and have.vrf != iface.vrf:
                    problem = "tenant port not in its VRF" if iface.vrf else "port in a tenant's VRF"
                    yield Finding(d.name, name, problem, iface.vrf or "default", have.vrf or "default", port=name)


def _leaks(d: Device, owner: dict[str, str]) -> Iterator[Finding]:
    """A device's VRFs, underlay BGP and static routes against its own port bindings."""
    port_net = {name: (i.vrf, str(IPv4Interface(a).network)) for name, i in d.interfaces.items() for a in i.addresses}
    vrf_of_net = {net: vrf for vrf, net in port_net.values() if vrf is not None}
    for v in d.vrfs:
        if owner.setdefault(v.name, v.tenant) != v.tenant:
            yield Finding(d.name, f"VRF {v.name}", "one VRF name used by two tenants", owner[v.name], v.tenant)
        for net in v.networks:
            bound = vrf_of_net.get(str(IPv4Network(net)))
            if bound != v.name:
                other = bound or "no port of this VRF"
                yield Finding(d.name, f"VRF {v.name}", f"originates {net}", "only its own ports' links", other)
    if d.bgp is not None:
        for net in d.bgp.networks:
            if str(IPv4Network(net)) in vrf_of_net:
                vrf = vrf_of_net[str(IPv4Network(net))]
                yield Finding(d.name, "BGP (default VRF)", f"originates {net} of {vrf}", f"in {vrf} only", "default")
    for r in d.static_routes:
        out_vrf = port_net.get(r.interface, (None, ""))[0]
        if out_vrf is not None:
            yield Finding(
                d.name, f"static route {r.prefix}", f"default VRF routes out of {r.interface}", "none", out_vrf
            )


@register
class PkeyLeak(InfinibandCheck):
    """PKeys do not leak between tenants: no HCA port is a full member of two tenants' partitions, and no
    partition has full members of two tenants (full members of one partition reach each other). Judged on
    the intent's partitions and, with a snapshot, on every HCA port's PKey table read back."""

    id = "tenant.pkey_leak"
    title = "No HCA port a full member of two tenants' partitions; no partition joins two tenants' hosts"
    reads = ("subnet_manager.partitions",)
    hint = "make a host a full member of its own tenant's partition only (limited elsewhere), in partitions.conf, then resweep OpenSM"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        reason = super().skip_reason(ctx)
        found = _sm(ctx.desired)
        if reason is None and found is not None and not any(p.tenant for p in found[1].partitions):
            return "no tenant partition in this fabric (no InfiniBand tenants in the intent)"
        return reason

    def judge(self, desired: FabricState, observed: IbObservation | None) -> Iterable[Finding]:
        found = _sm(desired)
        assert found is not None
        parts = found[1].partitions
        tenant_of_pkey = {p.pkey: p.tenant for p in parts if p.tenant is not None}
        nic_owner = {nic: p.tenant for p in parts if p.tenant for nic in _held(desired, p)}
        full = _observed_full(desired, observed) if observed is not None else _intended_full(desired, parts)
        for (host, netdev), pkeys in sorted(full.items()):
            tenants = sorted({tenant_of_pkey[k] for k in pkeys if k in tenant_of_pkey})
            if len(tenants) > 1:
                yield Finding(host, netdev, "full member of two tenants' partitions", "one", ", ".join(tenants))
        by_pkey: dict[int, set[str]] = {}
        for nic, pkeys in full.items():
            for k in pkeys:
                if k not in tenant_of_pkey and nic in nic_owner:
                    by_pkey.setdefault(k, set()).add(nic_owner[nic])
        for k, tenants_in in sorted(by_pkey.items()):
            if len(tenants_in) > 1:
                yield Finding(
                    found[0],
                    f"PKey {k:#06x}",
                    "full members of several tenants",
                    "one tenant",
                    ", ".join(sorted(tenants_in)),
                )


def _held(desired: FabricState, p: Partition) -> list[tuple[str, str]]:
    return [nic for nic in hca_port_guids(desired) if p.holds(*nic)]


def _intended_full(desired: FabricState, parts: list[Partition]) -> dict[tuple[str, str], set[int]]:
    out: dict[tuple[str, str], set[int]] = {}
    for p in parts:
        if p.membership == "full":
            for nic in _held(desired, p):
                out.setdefault(nic, set()).add(p.pkey & 0x7FFF)
    return out


def _observed_full(desired: FabricState, observed: IbObservation) -> dict[tuple[str, str], set[int]]:
    """(host, netdev) -> the PKeys its HCA port holds as a full member, read back (ports not found: left out)."""
    ports = observed.port_by_guid()
    out: dict[tuple[str, str], set[int]] = {}
    for nic, guid in hca_port_guids(desired).items():
        ref = ports.get(guid)
        table = None if ref is None else observed.pkeys.get(ref.guid, {}).get(ref.port)
        if table is not None:
            out[nic] = {k & 0x7FFF for k in table if k & FULL}
    return out
