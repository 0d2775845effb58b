"""Load balancing: the same hashing on every switch of a tier, seeds per tier where the intent asks, and
adaptive routing only where the RoCE side is ready for it (NVIDIA NetQ's adaptive-routing validation
tests: "AR global config consistency", "AR and RoCE config consistency", "AR interface config
consistency", docs.nvidia.com/networking-ethernet-software/cumulus-netq-53/Validate-Operations/
Validation-Checks/)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from xoff.desired.models import Device, FabricState, LoadBalancing
from xoff.validate.checks.common import not_judged
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

_FABRIC_LINKS = frozenset({"leaf_spine", "spine_super_spine"})
_NONE = "no switch with load balancing (not set by the intent, or not observed)"


def _balanced(ctx: CheckContext) -> Iterator[tuple[Device, LoadBalancing]]:
    for name, dev in sorted(ctx.subject.devices.items()):
        if dev.kind == "switch" and dev.load_balancing is not None and ctx.selects(name):
            yield dev, dev.load_balancing


def _none_balanced(subject: FabricState) -> str | None:
    found = any(d.kind == "switch" and d.load_balancing is not None for d in subject.devices.values())
    return None if found else _NONE


def _signature(lb: LoadBalancing) -> str:
    seed = "platform seed" if lb.seed is None else f"seed {lb.seed}"
    extras = [x for x, on in (("roce-qp-hash", lb.roce_qp_hash), ("adaptive-routing", lb.adaptive_routing)) if on]
    return ", ".join([" ".join(lb.hash_fields), seed, f"seeds {lb.seed_policy}", *extras])


@register
class HashTierConsistent(Check):
    """Switches of one tier (network and role) that hash differently: different fields, seeds, seed policy,
    queue-pair hashing or adaptive routing. ECMP then spreads the same flows differently on parallel
    switches, and a tier with mixed adaptive routing reorders some paths only (NetQ's "AR global config
    consistency")."""

    id = "lb.hash_tier_consistent"
    reads = ("load_balancing",)
    title = "Every switch of a tier hashes the same way (fields, seed, adaptive routing)"
    hint = "set load_balancing once on the role (roles.<role>), not per switch"

    def applies(self, subject: FabricState) -> str | None:
        return _none_balanced(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        tiers: dict[tuple[str, str], list[tuple[Device, str]]] = defaultdict(list)
        for dev, lb in _balanced(ctx):
            tiers[(dev.network or "compute", dev.role)].append((dev, _signature(lb)))
        for (network, role), members in sorted(tiers.items()):
            usual, _ = Counter(sig for _, sig in members).most_common(1)[0]
            for dev, sig in members:
                if sig != usual:
                    yield Finding(dev.name, "load balancing", f"differs from the {network} {role} tier", usual, sig)


@register
class SeedPerTier(Check):
    """A network whose intent asks for a seed per tier (``seed_policy: per-tier``) where a tier has no seed
    or shares its seed with another tier: consecutive tiers then pick the same next-hop index for the same
    flow and the traffic polarises onto a few paths."""

    id = "lb.seed_per_tier"
    reads = ("load_balancing.seed", "load_balancing.seed_policy")
    title = "Each tier has a seed of its own where the intent asks for seeds per tier"
    hint = "give each role its own load_balancing.seed (roles.leaf, roles.spine, roles.super-spine)"

    def applies(self, subject: FabricState) -> str | None:
        asked = any(
            d.load_balancing is not None and d.load_balancing.seed_policy == "per-tier"
            for d in subject.devices.values()
        )
        return None if asked else _none_balanced(subject) or "no switch asks for seeds per tier"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        by_network: dict[str, list[tuple[Device, LoadBalancing]]] = defaultdict(list)
        for dev, lb in _balanced(ctx):
            by_network[dev.network or "compute"].append((dev, lb))
        for members in by_network.values():
            if not any(lb.seed_policy == "per-tier" for _, lb in members):
                continue
            owner: dict[int, str] = {}
            for dev, lb in sorted(members, key=lambda m: (m[0].role, m[0].name)):
                if lb.seed is None:
                    yield Finding(dev.name, "hash seed", "no seed, but seeds per tier are asked", "a seed", "none")
                elif owner.setdefault(lb.seed, dev.role) != dev.role:
                    yield Finding(
                        dev.name,
                        "hash seed",
                        f"same seed as the {owner[lb.seed]} tier",
                        "a seed per tier",
                        str(lb.seed),
                    )


@register
class AdaptiveRoutingRoce(Check):
    """Adaptive routing on a switch that is not ready for it: a fabric port without it (NetQ's "AR interface
    config consistency"), no lossless RoCE configuration on the switch (NetQ's "AR and RoCE config
    consistency": Spectrum-X adaptive routing is for RoCE), or a host behind it whose NICs do not accept
    out-of-order RoCE packets (ConnectX/BlueField-3 ROCE_ACCL: adaptive retransmission / forced adaptive
    routing), which then retransmits every packet a path change reorders."""

    id = "lb.adaptive_routing_roce"
    reads = ("load_balancing.adaptive_routing", "load_balancing.adaptive_routing_ports", "qos.lossless_priorities")
    title = "Adaptive routing on every fabric port, with RoCE on the switch and out-of-order-tolerant hosts"
    hint = "enable adaptive routing on every fabric port and set host_profiles.<p>.roce_adaptive_routing: true"

    def applies(self, subject: FabricState) -> str | None:
        on = any(d.load_balancing is not None and d.load_balancing.adaptive_routing for d in subject.devices.values())
        return None if on else _none_balanced(subject) or "no switch with adaptive routing"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        unread: set[str] = set()
        for dev, lb in _balanced(ctx):
            if not lb.adaptive_routing:
                continue
            yield from _switch_side(dev, lb)
            yield from _host_side(ctx, dev, unread)
        self.note = not_judged(ctx.chosen(unread), "host out-of-order tolerance not observed")


def _switch_side(dev: Device, lb: LoadBalancing) -> Iterator[Finding]:
    fabric = [i.name for i in dev.interfaces.values() if i.link_role in _FABRIC_LINKS and i.admin_up]
    for port in fabric:
        if port not in lb.adaptive_routing_ports:
            yield Finding(dev.name, port, "fabric port without adaptive routing", "on", "off", port=port)
    if dev.qos is None or not dev.qos.lossless_priorities:
        yield Finding(dev.name, "adaptive routing", "no lossless RoCE on the switch", "RoCE lossless", "none")


def _host_side(ctx: CheckContext, dev: Device, unread: set[str]) -> Iterator[Finding]:
    for iface in dev.interfaces.values():
        peer = ctx.subject.devices.get(iface.peer.device) if iface.peer is not None else None
        if peer is None or peer.host is None:
            continue
        tolerant = peer.host.roce_adaptive_routing
        if tolerant is None and ctx.observed is not None:
            unread.add(peer.name)
        elif not tolerant:
            yield Finding(
                peer.name, "RoCE out-of-order", f"NICs behind adaptive routing on {dev.name}", "accepted", "not set"
            )


@register
class AdaptiveRoutingHost(Check):
    """On a collected snapshot: a host cabled to a switch the intent runs adaptive routing on whose NICs do not
    take RoCE out of order, as the NICs themselves show it (the ConnectX ``ROCE_ACCL`` register through ``mlxreg``:
    ``adaptive_routing_forced_en`` off on a NIC, e.g. after a NIC reset or by hand). Adaptive routing then reorders
    that host's RoCE packets and its NICs retransmit what arrives out of order. The switch side is the intent's
    (no collector reads a switch's adaptive routing back yet); on the intent alone ``lb.adaptive_routing_roce``
    judges the host profiles."""

    id = "lb.adaptive_routing_host"
    reads = ("host.roce_adaptive_routing",)
    title = "Hosts behind adaptive routing show out-of-order RoCE on their NICs (ROCE_ACCL)"
    hint = "mlxreg -d <rdma> --reg_name ROCE_ACCL --set adaptive_routing_forced_en=0x1 --yes (xoff push sets it)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        on = any(
            d.load_balancing is not None and d.load_balancing.adaptive_routing for d in ctx.desired.devices.values()
        )
        if not on:
            return "no switch with adaptive routing in the intent"
        if ctx.observed is None:
            return "judged on a collected snapshot (on the intent, lb.adaptive_routing_roce judges the host profiles)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        ar = {
            name
            for name, d in ctx.desired.devices.items()
            if d.kind == "switch" and d.load_balancing is not None and d.load_balancing.adaptive_routing
        }
        unread: set[str] = set()
        for name, dev in sorted(ctx.subject.devices.items()):
            behind = sorted({i.peer.device for i in dev.interfaces.values() if i.peer and i.peer.device in ar})
            if dev.host is None or not behind or not ctx.selects(name):
                continue
            if dev.host.roce_adaptive_routing is None:
                unread.add(name)
            elif not dev.host.roce_adaptive_routing:
                yield Finding(
                    name,
                    "RoCE out-of-order",
                    f"NIC adaptive routing off behind adaptive routing on {', '.join(behind)}",
                    "forced on",
                    "off",
                )
        self.note = not_judged(ctx.chosen(unread), "the NICs' ROCE_ACCL adaptive routing not shown")
