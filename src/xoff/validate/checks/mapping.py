"""One classification fabric-wide: DSCP -> priority -> TC -> queue / PG, on switches and host NICs."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator

from xoff.buffers import get_asic
from xoff.desired.models import Device, FabricState, Qos
from xoff.validate.checks.common import any_roce_networks, needs_any_roce, needs_roce
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

# the maps every hop of a network must hold identically, with how a difference is named
_MAPS: tuple[tuple[str, str, str], ...] = (
    ("dscp_to_tc", "DSCP", "TC"),
    ("tc_to_queue", "TC", "queue"),
    ("tc_to_priority_group", "TC", "PG"),
    ("pfc_priority_to_queue", "priority", "queue"),
    ("pfc_priority_to_priority_group", "priority", "PG"),
)


def dscp_to_priority(qos: Qos) -> dict[int, int]:
    """The DSCP -> switch priority the classes define (DSCPs a class names explicitly)."""
    return {d: c.priority for c in qos.classes for d in c.dscp}


def _signature(qos: Qos) -> str:
    maps = {name: getattr(qos, name) for name, _, _ in _MAPS}
    maps["dscp_to_priority"] = dscp_to_priority(qos)
    maps["lossless"] = qos.lossless_priorities
    return json.dumps(maps, sort_keys=True)


def _switches_by_network(state: FabricState) -> dict[str, list[Device]]:
    out: dict[str, list[Device]] = {}
    for dev in state.devices.values():
        if dev.qos is not None and dev.network is not None:
            out.setdefault(dev.network, []).append(dev)
    return out


def reference_qos(devices: list[Device]) -> Device:
    """The device whose QoS maps most devices of the network share (the first such, on a tie)."""
    by_qos: dict[int, str] = {}  # the plan's switches of one policy share one Qos object: one signature each
    sigs: dict[str, str] = {}
    for d in devices:
        if d.qos is not None:
            sig = by_qos.get(id(d.qos))
            if sig is None:
                sig = by_qos[id(d.qos)] = _signature(d.qos)
            sigs[d.name] = sig
    common, _ = Counter(sigs.values()).most_common(1)[0]
    return next(d for d in devices if sigs[d.name] == common)


def _priority_of_tc(qos: Qos, tc: int) -> int | None:
    return next((c.priority for c in qos.classes if c.traffic_class == tc), None)


def _map_diffs(dev: Device, ref: Device) -> Iterator[Finding]:
    assert dev.qos is not None and ref.qos is not None
    for name, key_kind, value_kind in _MAPS:
        mine, theirs = getattr(dev.qos, name), getattr(ref.qos, name)
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                prio = key if key_kind == "priority" else None
                if key_kind == "TC":
                    prio = _priority_of_tc(ref.qos, key)
                elif key_kind == "DSCP":  # the class the fabric puts that DSCP in
                    prio = dscp_to_priority(ref.qos).get(key)
                yield Finding(
                    dev.name,
                    f"{key_kind} {key}",
                    f"{name} maps it to {value_kind} {mine.get(key)}, the fabric ({ref.name}) to {theirs.get(key)}",
                    str(theirs.get(key)),
                    str(mine.get(key)),
                    priority=prio,
                )
    mine_p, ref_p = dscp_to_priority(dev.qos), dscp_to_priority(ref.qos)
    for dscp in sorted(set(mine_p) | set(ref_p)):
        if mine_p.get(dscp) != ref_p.get(dscp):
            yield Finding(
                dev.name,
                f"DSCP {dscp}",
                f"classified to priority {mine_p.get(dscp)}, the fabric ({ref.name}) to {ref_p.get(dscp)}",
                str(ref_p.get(dscp)),
                str(mine_p.get(dscp)),
                priority=ref_p.get(dscp),
            )
    if dev.qos.lossless_priorities != ref.qos.lossless_priorities:
        yield Finding(
            dev.name,
            "lossless priorities",
            f"differ from the fabric ({ref.name})",
            str(ref.qos.lossless_priorities),
            str(dev.qos.lossless_priorities),
        )


@register
class QosMapping(Check):
    """Two hops (or a hop and a NIC) that classify the same DSCP differently: traffic leaves the lossless
    class mid-path, or lands in a queue without PFC or ECN. The fabric's map is the one most switches of
    the network hold; every switch and every RoCE NIC on that network must hold the same."""

    id = "lossless.qos_mapping"
    reads = (
        "qos.dscp_to_tc",
        "qos.tc_to_queue",
        "qos.tc_to_priority_group",
        "qos.pfc_priority_to_queue",
        "qos.pfc_priority_to_priority_group",
        "qos.lossless_priorities",
        "host.nics.*.dscp_to_priority",
    )
    title = "One DSCP -> priority -> TC -> queue/PG mapping per network, on every switch and host NIC"
    hint = "apply the network's QoS policy maps unchanged on every switch, and the same dscp2prio on the NICs"

    def applies(self, subject: FabricState) -> str | None:
        return needs_any_roce(subject)  # an ecn-only (lossy) RoCE network needs one map as much

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        roce = any_roce_networks(subject)
        refs: dict[str, Device] = {}
        for network, devices in _switches_by_network(subject).items():
            if network not in roce:
                continue
            ref = refs[network] = reference_qos(devices)
            for dev in devices:
                if dev is not ref and dev.qos is not ref.qos:  # the very same maps differ nowhere
                    yield from _map_diffs(dev, ref)
        # each network's DSCP -> priority once; a NIC holding all of it (most do) is passed by one set compare
        wanted = {n: dscp_to_priority(d.qos) for n, d in refs.items() if d.qos is not None}
        for dev in subject.devices.values():
            if dev.host is None:
                continue
            for nic in dev.host.nics.values():
                ref_dev = refs.get(nic.network)
                if ref_dev is None or ref_dev.qos is None or nic.roce_mode is None:
                    continue
                want = wanted[nic.network]
                if want.items() <= nic.dscp_to_priority.items():
                    continue
                for dscp, prio in sorted(want.items()):
                    got = nic.dscp_to_priority.get(dscp)
                    if got != prio:
                        yield Finding(
                            dev.name,
                            f"DSCP {dscp}",
                            f"NIC classifies it to priority {got}, the switches ({ref_dev.name}) to {prio}",
                            str(prio),
                            str(got),
                            port=nic.netdev,
                            priority=prio,
                            hint=f"mlnx_qos -i {nic.netdev} --dscp2prio set,{dscp},{prio}",
                        )


@register
class LosslessClassLimit(Check):
    """More lossless priorities than the ASIC can give headroom to (SONiC ships 2, NVIDIA RoCE 1): buffer
    carving fails or each class gets too little headroom. The limit is the ASIC's capability
    (``max_lossless_priorities`` in the ASIC catalog) unless the catalog sets one."""

    class Params(CheckParams):
        max_lossless_classes: int | None = None  # None: the ASIC's capability

    id = "lossless.class_limit"
    reads = ("qos.lossless_priorities",)
    title = "At most the platform's number of lossless classes per switch"
    hint = "reduce the lossless classes (one RoCE priority is the common design)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return needs_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        fixed = ctx.params_as(self.Params).max_lossless_classes
        for dev in ctx.subject.devices.values():
            if dev.qos is None:
                continue
            limit = fixed
            if limit is None:
                limit = get_asic(dev.asic).max_lossless_priorities if dev.asic else 2
            if len(dev.qos.lossless_priorities) > limit:
                yield Finding(
                    dev.name,
                    "lossless priorities",
                    f"{len(dev.qos.lossless_priorities)} lossless classes exceed the limit",
                    f"<= {limit}",
                    str(dev.qos.lossless_priorities),
                    priority=dev.qos.lossless_priorities[limit],
                )
