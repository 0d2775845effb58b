"""A RoCE tenant's L3 VNI: the tenant VRF carried across the spines by VXLAN-EVPN (type-5 routes, symmetric
IRB), where every leaf its NICs are cabled to runs a platform that renders EVPN (``Platform.evpn``).

A tenant may write its ``vni``; the others get one allocated from ``FIRST_VNI`` upward in tenant order,
skipping every VNI a tenant writes, so adding a tenant at the end renumbers nobody. A VNI is one tenant's.
A tenant whose leaves or spines cannot render EVPN keeps its VRF on the leaves (no VNI); writing a ``vni`` for it is
refused with one located line.
"""

from __future__ import annotations

from dataclasses import replace

from xoff.intent.context import Context
from xoff.intent.resolved import Switch, Tenant
from xoff.intent.tenants import TenantSpec
from xoff.intent.yamlsource import Path_
from xoff.platforms.registry import get_platform

FIRST_VNI = 50001  # allocated L3 VNIs start here (Cumulus' and Arista's examples use 4001+/10000+; any free range)


def evpn_blocker(switches: list[Switch]) -> Switch | None:
    """The first switch whose platform cannot render EVPN, or None when all can."""
    for sw in switches:
        if not get_platform(sw.platform).evpn:
            return sw
    return None


def refuse_vni(ctx: Context, path: Path_, spec: TenantSpec, leaves: list[Switch], transit: list[Switch]) -> bool:
    """Whether the tenant is carried by EVPN: its leaves and the transit switches (spines) all render it; a
    written ``vni`` one of them cannot carry is reported."""
    if not leaves:
        return False
    blocker = evpn_blocker([*leaves, *transit])
    if blocker is not None and spec.vni is not None:
        ctx.report(
            (*path, "vni"),
            f"{blocker.platform} cannot carry VNI {spec.vni} on {blocker.name}: it renders no VXLAN-EVPN "
            "(allowed: switches of a platform that renders EVPN, or no vni)",
        )
    return blocker is None


def allocate_vnis(ctx: Context, tenants: list[tuple[int, Tenant, TenantSpec, bool]]) -> list[tuple[int, Tenant]]:
    """The tenants with their VNIs: written ones checked unique, the rest allocated in tenant order."""
    taken: dict[int, str] = {}
    for k, t, spec, _ in tenants:
        if spec.vni is None:
            continue
        if spec.vni in taken:
            ctx.report(
                ("tenants", k, "vni"), f"vni {spec.vni} is already used by {taken[spec.vni]} (allowed: one per tenant)"
            )
        taken.setdefault(spec.vni, t.name)
    out: list[tuple[int, Tenant]] = []
    nxt = FIRST_VNI
    for k, t, spec, carried in tenants:
        if not carried or t.vrf is None:
            out.append((k, t))
            continue
        vni = spec.vni
        if vni is None:
            while nxt in taken:
                nxt += 1
            vni = nxt
            taken[vni] = t.name
        out.append((k, replace(t, vni=vni)))
    return out
