"""Tenants across the spines as VXLAN-EVPN: an L3 VNI is one tenant's, and every leaf serving a tenant
gives its VRF the same VNI and route target (type-5 routes are imported by route target and decapsulated
by VNI: a leaf whose VRF has another VNI or RT neither receives nor sends that tenant's routes, and one VNI
in two tenants' VRFs joins them).

A VRF's L3 VNI is ``Vrf.vni`` and its route target ``Vrf.route_target``; on a snapshot, what each NOS reads
back (a value not read is None and is not judged).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import Device, FabricState
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _no_vnis(subject: FabricState) -> str | None:
    if not any(v.vni is not None for d in subject.devices.values() for v in d.vrfs):
        return "no tenant VRF with an L3 VNI in this fabric (no EVPN tenants in the intent, or no VNI observed)"
    return None


@register
class VniUnique(Check):
    """An L3 VNI belongs to one tenant: on no switch do two VRFs share a VNI, and no VNI is given to two
    tenants' VRFs anywhere in the fabric. A VNI shared by two tenants carries each one's type-5 routes into
    the other's VRF: the tenants reach each other's addresses."""

    id = "tenant.vni_unique"
    title = "Every L3 VNI is one tenant's: no two tenants' VRFs share a VNI on any switch"
    reads = ("vrfs",)
    hint = (
        "give each tenant its own vni (tenants[].vni, or leave it out to have one allocated), then re-render and push"
    )

    def applies(self, subject: FabricState) -> str | None:
        return _no_vnis(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        owner: dict[int, tuple[str, str]] = {}  # vni -> (tenant, where first seen)
        for d in sorted(ctx.subject.devices.values(), key=lambda d: d.name):
            for v in sorted(d.vrfs, key=lambda v: v.name):
                if v.vni is None:
                    continue
                first = owner.setdefault(v.vni, (v.tenant, f"{d.name} {v.name}"))
                if first[0] != v.tenant:
                    yield Finding(
                        d.name,
                        f"VRF {v.name}",
                        f"L3 VNI {v.vni} also used by tenant {first[0]} ({first[1]})",
                        "one tenant per VNI",
                        f"{first[0]}, {v.tenant}",
                    )


@register
class EvpnConsistent(Check):
    """Every leaf serving a tenant gives the tenant's VRF the same L3 VNI and route target, and a tenant
    carried by EVPN on one leaf is carried on all of them: type-5 routes are imported by route target and
    decapsulated by VNI, so a leaf that differs neither learns the tenant's remote addresses nor gives them
    its own. Compared with the intent's (the desired state) where there is one, else with the first leaf's."""

    id = "tenant.evpn_consistent"
    title = "Every leaf serving a tenant gives its VRF the same L3 VNI and route target"
    reads = ("vrfs",)
    hint = "render the tenant's VRF on every leaf from the one intent (tenants[].vni) and push to the leaf that differs"

    def applies(self, subject: FabricState) -> str | None:
        return _no_vnis(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        want = _reference(ctx.desired)
        for d in sorted(ctx.subject.devices.values(), key=lambda d: d.name):
            yield from _differs(d, want)


def _reference(desired: FabricState) -> dict[str, tuple[int | None, str | None, str]]:
    """tenant -> (VNI, RT, the device it was taken from): the first leaf (by name) of each tenant."""
    out: dict[str, tuple[int | None, str | None, str]] = {}
    for d in sorted(desired.devices.values(), key=lambda d: d.name):
        for v in d.vrfs:
            out.setdefault(v.tenant, (v.vni, v.route_target, d.name))
    return out


def _differs(d: Device, want: dict[str, tuple[int | None, str | None, str]]) -> Iterator[Finding]:
    for v in d.vrfs:
        ref = want.get(v.tenant)
        if ref is None:
            continue
        vni, rt, source = ref
        if vni != v.vni and (v.vni is not None or vni is not None):
            shown = "none" if v.vni is None else str(v.vni)
            yield Finding(d.name, f"VRF {v.name}", f"L3 VNI of tenant {v.tenant}", f"{vni} (as {source})", shown)
        if rt is not None and v.route_target is not None and rt != v.route_target:
            yield Finding(
                d.name, f"VRF {v.name}", f"route target of tenant {v.tenant}", f"{rt} (as {source})", v.route_target
            )
