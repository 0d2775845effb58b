"""Buffer pools and per-port lossless headroom (reference/lossless.md §1.3-1.4, §6 rule 4)."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from xoff.buffers import AsicSpec, Headroom, HeadroomUnavailable, always_eight_lanes, get_asic, headroom_for
from xoff.buffers.catalogue import get_sku, switch_asic
from xoff.buffers.guidance import Guidance, guidance_for, guided
from xoff.buffers.pools import pool_fit
from xoff.desired.models import BufferPool, BufferProfile, Buffers, HeadroomRule
from xoff.errors import InputError, Problem
from xoff.intent.qos import HeadroomRow, QosPolicy
from xoff.intent.resolved import Switch

INGRESS_LOSSLESS_POOL = "ingress_lossless_pool"


def _pools(asic: AsicSpec, mode: str) -> list[BufferPool]:
    p = asic.pools
    return [
        BufferPool(
            name=INGRESS_LOSSLESS_POOL,
            type="ingress",
            mode="dynamic",
            size=p.ingress_lossless_pool,
            xoff=p.shared_headroom_pool_xoff,
        ),
        BufferPool(name="ingress_lossy_pool", type="ingress", mode="dynamic", size=p.ingress_lossy_pool),
        BufferPool(
            name="egress_lossless_pool",
            type="egress",
            mode="dynamic" if mode == "dynamic" else "static",
            size=p.egress_lossless_pool,
        ),
        BufferPool(name="egress_lossy_pool", type="egress", mode="dynamic", size=p.egress_lossy_pool),
    ]


@lru_cache(maxsize=4096)
def _headroom(
    asic: AsicSpec,
    speed: int,
    cable: int,
    model: Literal["static", "dynamic"],
    mtu: int,
    knobs: tuple[
        int, int, bool, int, Literal["exact", "up"]
    ],  # lossless MTU, small packets %, SHP, gearbox ns, rounding
) -> Headroom:
    """A fabric has a handful of (speed, cable) pairs and tens of thousands of ports: compute each once."""
    return headroom_for(
        asic,
        speed,
        cable,
        model=model,
        port_mtu=mtu,
        lossless_mtu=knobs[0],
        small_packet_percent=knobs[1],
        shared_headroom_pool=knobs[2],
        gearbox_delay_ns=knobs[3],
        eight_lanes=always_eight_lanes(asic.name, speed),
        cable_rounding=knobs[4],
    )


HeadroomArgs = tuple[
    AsicSpec, int, int, Literal["static", "dynamic"], int, tuple[int, int, bool, int, Literal["exact", "up"]]
]


def port_headroom(guides: tuple[Guidance, ...], args: HeadroomArgs) -> Headroom:
    """xoff's model for the port, under the NOS's published guidance where there is some (``buffers/guidance.py``):
    the guidance gives the numbers where the model has none, and is shown beside the model's where it has. ``args``:
    (ASIC, speed, cable, model, port MTU, (lossless MTU, small packets %, SHP, gearbox ns, cable rounding)). The plan
    and ``lossless.headroom`` both ask here."""
    if not guides:
        return _headroom(*args)
    speed, cable = args[1], args[2]
    try:
        room: Headroom | None = _headroom(*args)
        why = ""
    except HeadroomUnavailable as exc:
        room, why = _comparison(guides, args), str(exc)
    guided_room = guided(guides, room, why, speed, cable)
    if guided_room is None:
        raise HeadroomUnavailable(why)
    return guided_room


def _comparison(guides: tuple[Guidance, ...], args: HeadroomArgs) -> Headroom | None:
    """Where the NOS sizes the headroom itself and the chosen model has no numbers, the ASIC's formula (if it has
    one) stands beside the NOS's defaults for comparison."""
    asic, speed, cable, model, mtu, knobs = args
    computed = any(g.use is not None and g.use.headroom == "nos_computed" for g in guides)
    if not computed or model == "dynamic" or not asic.dynamic_formula:
        return None
    try:
        return _headroom(asic, speed, cable, "dynamic", mtu, knobs)
    except HeadroomUnavailable:
        return None


def _applies(row: HeadroomRow, asic: str, sku: str | None) -> bool:
    """A row naming neither ASICs nor SKUs applies everywhere; else where one of its names matches."""
    if row.asics is None and row.skus is None:
        return True
    on_asic = asic in {get_asic(a).name for a in row.asics or ()}
    return on_asic or (sku is not None and sku in {get_sku(k).hwsku for k in row.skus or ()})


def headroom_rules(policy: QosPolicy, policy_name: str, asic: str, sku: str | None = None) -> list[HeadroomRule]:
    """The intent's headroom rows that apply to a switch of ``asic`` (canonical name) and ``sku`` (catalogue
    HWSKU): rows naming either, and rows naming neither."""
    return [
        HeadroomRule(
            speed_mbps=row.speed,
            cable_m=row.cable,
            xon=row.xon,
            xoff=row.xoff,
            size=row.size,
            xon_offset=row.xon_offset,
            source=f"intent: qos_policies.{policy_name}.buffers.headroom_rows[{k}]",
        )
        for k, row in enumerate(policy.buffers.headroom_rows)
        if _applies(row, asic, sku)
    ]


def rule_headroom(rules: list[HeadroomRule], speed: int, cable: int) -> Headroom | None:
    """The first of the intent's rows for this speed and cable, as a :class:`Headroom`, or None."""
    for rule in rules:
        if rule.speed_mbps == speed and rule.cable_m == cable:
            return Headroom(rule.xon, rule.xoff, rule.size, rule.xon_offset, rule.source, speed, cable)
    return None


def build_buffers(
    switch: Switch, policy: QosPolicy, policy_name: str, lossless_ports: list[tuple[str, int, int]]
) -> Buffers:
    """``lossless_ports``: (port, speed Mb/s, cable m) for each port carrying lossless priorities."""
    asic = switch_asic(switch.asic, switch.sku)
    spec = policy.buffers
    profiles: dict[str, BufferProfile] = {}
    port_pgs: dict[str, dict[str, str]] = {}
    totals: dict[str, int] = {}
    pgs = sorted({c.tc for c in policy.classes.values() if c.lossless})
    pg_key = _pg_ranges(pgs)
    missing: dict[str, list[str]] = {}  # one problem per reason, naming its ports
    rules = headroom_rules(policy, policy_name, asic.name, switch.sku)
    # SONiC turns the shared headroom pool on for a pool xoff or a non-zero over_subscribe_ratio.
    shp = spec.shared_headroom_pool or bool(spec.over_subscribe_ratio)
    knobs = (spec.lossless_mtu, spec.small_packet_percent, shp, spec.gearbox_delay_ns, spec.cable_rounding)
    guides = guidance_for(switch.platform, asic.name)
    for port, speed, cable in lossless_ports:
        try:
            room = rule_headroom(rules, speed, cable) or port_headroom(
                guides, (asic, speed, cable, spec.model, switch.mtu, knobs)
            )
        except HeadroomUnavailable as exc:
            missing.setdefault(str(exc), []).append(port)
            continue
        name = room.profile_name
        if name not in profiles:
            profiles[name] = BufferProfile(
                name=name,
                pool=INGRESS_LOSSLESS_POOL,
                xon=room.xon,
                xoff=room.xoff,
                size=room.size,
                xon_offset=room.xon_offset,
                dynamic_th=spec.dynamic_th if room.dynamic_th is None else room.dynamic_th,
                source=room.source,
            )
        port_pgs[port] = dict.fromkeys(pg_key, name)
        totals[port] = room.size * len(pgs)
    problems = [_missing(switch.name, policy_name, why, ports) for why, ports in missing.items()]
    pools = _pools(asic, spec.model)
    ap = asic.pools
    fit = pool_fit({p.name: p.size for p in pools}, ap.shared_headroom_pool_xoff, ap.total_buffer, ap.pool_accounting)
    if fit is not None and not fit.fits:
        problems.append(
            Problem(
                None,
                f"qos_policies.{policy_name}.buffers",
                f"{switch.name}: the buffer pools of SKU {asic.sku} do not fit its buffer: {fit.describe()}"
                " (allowed: pools within pools.total_buffer)",
            )
        )
    if problems:
        raise InputError(problems)
    return Buffers(
        model=spec.model,
        lossless_mtu=spec.lossless_mtu,
        small_packet_percent=spec.small_packet_percent,
        pools=pools,
        profiles=dict(sorted(profiles.items())),
        port_priority_groups=port_pgs,
        port_headroom_bytes=totals,
        headroom_rules=rules,
        over_subscribe_ratio=spec.over_subscribe_ratio,
        gearbox_delay_ns=spec.gearbox_delay_ns,
        sku=switch.sku,
        cable_rounding=spec.cable_rounding,
    )


def _missing(switch: str, policy_name: str, why: str, ports: list[str]) -> Problem:
    shown = ", ".join(ports[:4]) + (f" and {len(ports) - 4} more" if len(ports) > 4 else "")
    return Problem(None, f"qos_policies.{policy_name}.buffers", f"{switch} ports {shown}: {why}")


def _pg_ranges(pgs: list[int]) -> list[str]:
    """SONiC-style keys: contiguous PGs collapse into 'a-b' (``3-4``), others stand alone."""
    out: list[str] = []
    start = prev = None
    for pg in pgs:
        if start is None:
            start = prev = pg
        elif prev is not None and pg == prev + 1:
            prev = pg
        else:
            out.append(f"{start}-{prev}" if start != prev else str(start))
            start = prev = pg
    if start is not None:
        out.append(f"{start}-{prev}" if start != prev else str(start))
    return out
