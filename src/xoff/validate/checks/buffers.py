"""Lossless headroom per priority group and per port (reference/lossless.md §1.3-1.4, §6 rule 4)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from xoff.buffers import (
    AsicSpec,
    Headroom,
    HeadroomUnavailable,
    PgReservation,
    always_eight_lanes,
    check_port_headroom,
)
from xoff.buffers.catalogue import switch_asic
from xoff.buffers.guidance import guidance_for
from xoff.desired.builders.buffers import port_headroom, rule_headroom
from xoff.desired.models import BufferProfile, Buffers, Device, HeadroomRule
from xoff.validate.checks.common import needs_roce
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

_DEFAULT_PORT_MTU = 9100  # SONiC's PORT mtu default, which its headroom calculation uses


def pg_numbers(key: str) -> list[int]:
    """``"3-4"`` -> [3, 4]; ``"3"`` -> [3]."""
    lo, _, hi = key.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def _priority_of_pg(dev: Device, pg: int) -> int | None:
    if dev.qos is None:
        return None
    return next((p for p, g in sorted(dev.qos.pfc_priority_to_priority_group.items()) if g == pg), None)


class _Required:
    """The headroom rule's answer per (speed, cable, MTU), computed once per device: the intent's row for
    the device's ASIC when there is one (the plan used it), else the ASIC's lookup row or formula."""

    def __init__(self, asic: AsicSpec, buffers: Buffers, plan: Buffers | None, platform: str) -> None:
        self.asic, self.buffers = asic, buffers
        self.rules: list[HeadroomRule] = plan.headroom_rules if plan is not None else []
        self.rounding: Literal["exact", "up"] = plan.cable_rounding if plan is not None else "exact"
        # A gearbox is hardware: its delay comes from the plan (SONiC keeps it in STATE_DB, not collected).
        self.gearbox_ns = (plan.gearbox_delay_ns if plan is not None else None) or 0
        pool = next((p for p in buffers.pools if p.name == "ingress_lossless_pool"), None)
        self.shp = bool(pool is not None and pool.xoff) or bool(buffers.over_subscribe_ratio)
        # the NOS's published guidance, as the plan applies it (EOS on Trident, Cumulus on Spectrum)
        self.guides = guidance_for(platform, asic.name)
        self._cache: dict[tuple[int, int, int], Headroom | str] = {}

    def __call__(self, speed: int, cable: int, mtu: int) -> Headroom | str:
        key = (speed, cable, mtu)
        if key not in self._cache and (row := rule_headroom(self.rules, speed, cable)) is not None:
            self._cache[key] = row
        if key not in self._cache:
            b = self.buffers
            knobs = (b.lossless_mtu, b.small_packet_percent, self.shp, self.gearbox_ns, self.rounding)
            try:
                self._cache[key] = port_headroom(self.guides, (self.asic, speed, cable, b.model, mtu, knobs))
            except HeadroomUnavailable as exc:
                self._cache[key] = str(exc)
        return self._cache[key]


@register
class PgHeadroom(Check):
    """A lossless PG whose headroom is below what its port's speed, cable length and MTU need (the intent's
    ``headroom_rows`` entry for the switch's SKU or ASIC when there is one, as the plan used; else the row of
    the SKU's own ``pg_profile_lookup.ini`` (the ASIC's table without a SKU; never a formula in the static model),
    or SONiC's Mellanox formula in the dynamic model; on EOS and Cumulus, the vendors' published guidance as the
    plan applies it, ``buffers/guidance.py``): in-flight bytes after a pause overflow
    and the lossless class drops. Also a port whose lossless PGs together reserve more than the ASIC can
    give (the catalog's ``max_port_headroom_bytes``, else the ingress lossless pool; the shared-headroom
    cap with SHP). On Mellanox the port total is SONiC's ``buffer_check_headroom_mellanox.lua``: 4096 +
    the lossy PG reserve + the egress mirror + every PG's size, a size-0 (lossy) PG counting as the
    pipeline latency, and it must stay strictly below the limit. Read-back values are allowed one ASIC
    cell of rounding."""

    class Params(CheckParams):
        max_port_headroom_bytes: int | None = None  # None: the ingress lossless pool size

    id = "lossless.headroom"
    tags = ("buffers",)
    reads = (
        "buffers.port_priority_groups",
        "buffers.profiles",
        "buffers.pools",
        "interfaces.*.speed_mbps",
        "interfaces.*.cable_m",
        "interfaces.*.mtu",
        "qos.pfc_priority_to_priority_group",
        "qos.tc_to_priority_group",
    )
    title = "Headroom per lossless PG >= the rule for its speed, cable and MTU; port total within the ASIC's limit"
    hint = "regenerate the PG profile for the port's speed and cable length (xoff render), or fix CABLE_LENGTH"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return needs_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_port_headroom_bytes
        # devices alike in what a port's verdict reads (the same buffers and plan objects: the plan shares them,
        # ASIC, platform, TC -> PG map) share the rule's answers and the ports found sound
        alike: dict[tuple[object, ...], tuple[_Required, set[tuple[object, ...]]]] = {}
        for dev in ctx.subject.devices.values():
            if dev.buffers is not None and dev.asic is not None and dev.buffers.port_priority_groups:
                want = ctx.desired.devices.get(dev.name)
                plan = want.buffers if want is not None else None
                tc_pg = tuple(dev.qos.tc_to_priority_group.items()) if dev.qos is not None else None
                key = (id(dev.buffers), id(plan), dev.asic, dev.platform, tc_pg)
                known = alike.get(key)
                if known is None:
                    asic = switch_asic(dev.asic, plan.sku if plan is not None else None)
                    known = alike[key] = (_Required(asic, dev.buffers, plan, dev.platform), set())
                yield from _device(dev, dev.buffers, known[0], limit, known[1])


def _min_size(profile: BufferProfile, need: Headroom) -> int:
    """xon + xoff; a row of the vendor's own table that reserves less (SONiC's SKUs whose size = xon: headroom
    shared) sets its own floor. An intent's row gets no such allowance."""
    if need.source.startswith("lookup: "):
        return min(profile.xon + profile.xoff, need.size)
    return profile.xon + profile.xoff


def _device(
    dev: Device, buffers: Buffers, required: _Required, limit: int | None, sound: set[tuple[object, ...]]
) -> Iterator[Finding]:
    pool = next((p for p in buffers.pools if p.name == "ingress_lossless_pool"), None)
    cap = limit if limit is not None else (pool.size if pool is not None else None)
    # a port's verdict depends on the port only through its PG map and its speed, cable and MTU: ports alike
    # to one already found sound (on this device or an alike one) are sound; findings name their port
    for port, pgs in buffers.port_priority_groups.items():
        iface = dev.interfaces.get(port)
        key = (tuple(pgs.items()), *((iface.speed_mbps, iface.cable_m, iface.mtu) if iface is not None else ()))
        if key in sound:
            continue
        found = [*_port_pgs(dev, buffers, required, port, pgs), *_port_limits(dev, buffers, required, port, pgs, cap)]
        if found:
            yield from found
        else:
            sound.add(key)


def _port_pgs(dev: Device, buffers: Buffers, required: _Required, port: str, pgs: dict[str, str]) -> Iterator[Finding]:
    cell = required.asic.cell_size or 0
    iface = dev.interfaces.get(port)
    for key, name in pgs.items():
        prio = _priority_of_pg(dev, pg_numbers(key)[0])
        profile = buffers.profiles.get(name)
        if profile is None:
            yield Finding(dev.name, f"{port} PG {key}", f"profile {name} does not exist", name, "none", port, prio)
            continue
        if iface is None or iface.speed_mbps is None or iface.cable_m is None:
            continue
        need = required(iface.speed_mbps, iface.cable_m, iface.mtu or _DEFAULT_PORT_MTU)
        if isinstance(need, str):
            yield Finding(dev.name, f"{port} PG {key}", f"no headroom rule applies: {need}", None, None, port, prio)
        elif profile.xoff + cell < need.xoff:
            yield Finding(
                dev.name,
                f"{port} PG {key}",
                f"xoff of {name} below the rule for {iface.speed_mbps // 1000}G {iface.cable_m} m ({need.source})",
                f">= {need.xoff}",
                str(profile.xoff),
                port,
                prio,
            )
        elif (
            required.asic.size_is_xon_plus_xoff and not required.shp and profile.size + cell < _min_size(profile, need)
        ):
            yield Finding(
                dev.name,
                f"{port} PG {key}",
                f"size of {name} below xon + xoff",
                f">= {_min_size(profile, need)}",
                str(profile.size),
                port,
                prio,
            )


def _reservations(dev: Device, buffers: Buffers, pgs: dict[str, str]) -> list[PgReservation]:
    """The port's PGs as SONiC's port check counts them: the lossless ones with their profiles, and each
    other PG of the observed TC -> PG map as a size-0 lossy PG (SONiC's ``ingress_lossy_profile``)."""
    out = [PgReservation(key, p.size, p.xon, p.xoff) for key, name in pgs.items() if (p := buffers.profiles.get(name))]
    lossless = {n for key in pgs for n in pg_numbers(key)}
    if dev.qos is not None:
        out += [PgReservation(str(pg), 0) for pg in sorted(set(dev.qos.tc_to_priority_group.values()) - lossless)]
    return out


def _port_limits(
    dev: Device, buffers: Buffers, required: _Required, port: str, pgs: dict[str, str], cap: int | None
) -> Iterator[Finding]:
    asic = required.asic
    if not asic.dynamic_formula:  # Broadcom: the lossless PGs' reserved sizes against the limit
        total = sum(p.size * len(pg_numbers(k)) for k, n in pgs.items() if (p := buffers.profiles.get(n)))
        if cap is not None and total > cap:
            yield Finding(
                dev.name, port, "lossless headroom of the port exceeds the limit", f"<= {cap}", str(total), port
            )
        return
    # Mellanox: SONiC's buffer_check_headroom_mellanox (4096 + lossy PG reserve + egress mirror + PGs).
    speed = iface.speed_mbps if (iface := dev.interfaces.get(port)) is not None else None
    verdict = check_port_headroom(
        asic,
        _reservations(dev, buffers, pgs),
        max_headroom_size=cap,
        shared_headroom_pool=required.shp,
        eight_lanes=speed is not None and always_eight_lanes(asic.name, speed),
    )
    if cap is not None and verdict.total >= cap:
        yield Finding(
            dev.name,
            port,
            "lossless headroom of the port exceeds the limit (SONiC's port check: 4096 + lossy PG reserve + "
            "egress mirror + PGs must stay strictly below it)",
            f"< {cap}",
            str(verdict.total),
            port,
        )
    if verdict.shared_limit is not None and verdict.shared > verdict.shared_limit:
        yield Finding(
            dev.name,
            port,
            "shared headroom of the port exceeds the ASIC cap",
            f"<= {verdict.shared_limit}",
            str(verdict.shared),
            port,
        )
