"""Lossless consistency on links and queues, on the desired state or the observed one (reference/lossless.md §6)."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.desired.models import FabricState
from xoff.validate.checks.common import (
    ROCE_MIN_NETDEV_MTU,
    device_profile,
    ecn_on_lossless,
    first_of,
    link_end_list,
    lossless_queues,
    needs_any_roce,
    needs_roce,
    not_judged,
    roce_networks,
)
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.coverage import lacking
from xoff.validate.model import Finding, Severity
from xoff.validate.registry import Check, register


@register
class PfcSymmetry(Check):
    """A link whose two ends enable PFC on different priorities: one end sends pause frames the other
    ignores, so the lossless class drops under congestion. Host links (NIC vs leaf port) included. The
    finding names the end that differs from the intent, with what the intent wants there (both ends when
    both differ); only where the intent itself is asymmetric are both ends named against each other."""

    id = "lossless.pfc_symmetry"
    reads = ("interfaces.*.pfc_priorities",)
    title = "PFC priorities equal at both ends of every link, host links included"
    hint = "enable PFC on the same priorities at both ends (switch pfc_enable / host mlnx_qos --pfc)"

    def applies(self, subject: FabricState) -> str | None:
        return needs_roce(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        for a, ia, b, ib in ctx.derive(link_end_list, subject):
            if ia.kind == "infiniband" or ib.kind == "infiniband" or ia.pfc_priorities == ib.pfc_priorities:
                continue
            prio = first_of(set(ia.pfc_priorities) ^ set(ib.pfc_priorities))
            ends = ((a, ia, b, ib), (b, ib, a, ia))
            wrong = [
                (d, i, peer, ip, want)
                for d, i, peer, ip in ends
                if (want := _intended_pfc(ctx.desired, d.name, i.name)) is not None and want != i.pfc_priorities
            ]
            for d, i, peer, ip, want in wrong:
                yield Finding(
                    d.name,
                    i.name,
                    f"PFC priorities differ from the intent (peer {peer.name}:{ip.name} has {ip.pfc_priorities})",
                    expected=str(want),
                    actual=str(i.pfc_priorities),
                    port=i.name,
                    priority=prio,
                )
            if wrong:
                continue
            # the intent is asymmetric itself (or does not know the link): each end against the other
            for d, i, peer, ip in ends:
                yield Finding(
                    d.name,
                    i.name,
                    f"PFC priorities differ from {peer.name}:{ip.name}",
                    expected=str(ip.pfc_priorities),
                    actual=str(i.pfc_priorities),
                    port=i.name,
                    priority=prio,
                )


def _intended_pfc(desired: FabricState, device: str, port: str) -> list[int] | None:
    """The PFC priorities the plan gives this port, or None where the plan has no such port."""
    dev = desired.devices.get(device)
    iface = dev.interfaces.get(port) if dev is not None else None
    return iface.pfc_priorities if iface is not None else None


@register
class LinkMtu(Check):
    """Unequal MTUs on a switch-switch link, or a switch port below its host's MTU: large frames
    (RoCE at 4096 plus headers) are dropped at the smaller end."""

    id = "lossless.link_mtu"
    reads = ("interfaces.*.mtu",)
    title = "MTU equal at both ends of switch links; switch MTU >= host MTU on host links"
    hint = "set the same MTU at both ends (switches 9100/9216, hosts <= the switch MTU)"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        for a, ia, b, ib in ctx.derive(link_end_list, subject):
            if ia.mtu is None or ib.mtu is None or ia.kind == "infiniband":
                continue
            if b.kind == "host":
                if ia.mtu < ib.mtu:
                    yield Finding(
                        a.name, ia.name, f"MTU below host {b.name}:{ib.name}", f">= {ib.mtu}", str(ia.mtu), port=ia.name
                    )
            elif ia.mtu != ib.mtu:
                for d, i, peer, ip in ((a, ia, b, ib), (b, ib, a, ia)):  # both ends, as for PFC
                    yield Finding(
                        d.name, i.name, f"MTU differs from {peer.name}:{ip.name}", str(ip.mtu), str(i.mtu), port=i.name
                    )


@register
class HostRoceMtu(Check):
    """A RoCE NIC whose netdev MTU is below 4192: the RoCE path MTU falls to 2048 or 1024 and NCCL
    bandwidth drops (iboe_get_mtu subtracts 96 bytes of headers)."""

    class Params(CheckParams):
        min_netdev_mtu: int = ROCE_MIN_NETDEV_MTU

    id = "lossless.host_mtu"
    tags = ("hosts",)
    reads = ("host.nics.*.mtu",)
    title = f"RoCE host NICs have netdev MTU >= {ROCE_MIN_NETDEV_MTU} (RoCE MTU 4096)"
    hint = "set the NIC netdev MTU to 4200 or 9000 (ip link set <dev> mtu 9000)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return needs_any_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        minimum = ctx.params_as(self.Params).min_netdev_mtu
        for dev in ctx.subject.devices.values():
            if dev.host is None:
                continue
            for nic in dev.host.nics.values():
                if nic.roce_mode is not None and nic.mtu < minimum:
                    yield Finding(
                        dev.name,
                        nic.netdev,
                        f"netdev MTU gives RoCE MTU {nic.roce_active_mtu}",
                        f">= {minimum}",
                        str(nic.mtu),
                        port=nic.netdev,
                    )


def _pfc_trigger_bytes(subject: FabricState, device: str) -> tuple[int, str] | None:
    """Where an ingress lossless PG starts sending PFC (one congested PG): alpha/(1+alpha) x pool,
    alpha = 2^dynamic_th (SONiC dynamic thresholds), with the profile it came from; None if unknown."""
    buffers = subject.devices[device].buffers
    if buffers is None:
        return None
    pools = {p.name: p for p in buffers.pools}
    trigger: tuple[int, str] | None = None
    for profile in buffers.profiles.values():
        pool = pools.get(profile.pool)
        if profile.dynamic_th is None or pool is None or pool.size is None:
            continue
        alpha = 2.0**profile.dynamic_th
        at = int(pool.size * alpha / (1 + alpha))
        if trigger is None or at < trigger[0]:
            trigger = (at, profile.name)
    return trigger


_TRIGGER_READS = ("buffers.pools", "buffers.profiles.*.pool", "buffers.profiles.*.dynamic_th")


@register
class EcnOnLosslessQueues(Check):
    """A lossless queue without ECN marking, with min >= max, or with max at or above the point where
    the ingress PG sends PFC: congestion then pauses the fabric before DCQCN slows the senders.
    The PFC trigger is alpha/(1+alpha) of the lossless pool for one congested PG (alpha = 2^dynamic_th)."""

    id = "lossless.ecn_on_lossless_queues"
    reads = ("qos.ecn",)
    title = "ECN marking on every lossless queue, min < max, max below the PFC trigger point"
    hint = "enable ECN (WRED ecn_all) on the lossless queues with min < max < the PFC trigger point"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if (why := needs_roce(ctx.subject)) is not None:
            return why
        if not any(ecn_on_lossless(ctx.desired, n) for n in roce_networks(ctx.desired)):
            return "no lossless RoCE network whose congestion-control profile marks ECN (pfc-only: see lossless.pfc_only_no_ecn)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        unread: list[str] = []
        for dev in subject.devices.values():
            if dev.qos is None or not ecn_on_lossless(ctx.desired, _network(ctx.desired, dev.name)):
                continue  # a pfc-only network marks no ECN: lossless.pfc_only_no_ecn judges it
            trigger = _pfc_trigger_bytes(subject, dev.name)
            if trigger is not None and lacking(ctx.observed, dev, _TRIGGER_READS):
                trigger = None  # the buffers were not read: ECN is judged, its max against them is not
                unread.append(dev.name)
            for cls in dev.qos.classes:
                if not cls.lossless:
                    continue
                ecn = dev.qos.ecn.get(cls.queue)
                where = f"queue {cls.queue}"
                if ecn is None:
                    yield Finding(
                        dev.name, where, f"lossless class {cls.name} has no ECN", "ECN on", "off", priority=cls.priority
                    )
                elif ecn.min_threshold >= ecn.max_threshold:
                    yield Finding(
                        dev.name,
                        where,
                        "ECN min >= max",
                        "min < max",
                        f"{ecn.min_threshold}/{ecn.max_threshold}",
                        priority=cls.priority,
                    )
                elif trigger is not None and ecn.max_threshold >= trigger[0]:
                    yield Finding(
                        dev.name,
                        where,
                        f"ECN max not below the PFC trigger point ({trigger[1]})",
                        f"< {trigger[0]}",
                        str(ecn.max_threshold),
                        priority=cls.priority,
                    )
        self.note = not_judged(ctx.chosen(unread), "ECN max against the PFC trigger point (buffers not observed)")


def _network(desired: FabricState, device: str) -> str | None:
    dev = desired.devices.get(device)
    return None if dev is None else dev.network


_QUEUE_READS = ("qos.pfc_priority_to_queue", "qos.lossless_priorities")


@register
class PfcWatchdogCoverage(Check):
    """A port with PFC but no watchdog, a lossless queue the watchdog does not watch, an action that
    does not break a storm, or timers below the poll interval: a PFC storm then spreads unchecked."""

    class Params(CheckParams):
        actions: tuple[str, ...] = ("drop",)

    id = "lossless.pfc_watchdog"
    reads = (
        "pfc_watchdog.ports",
        "interfaces.*.pfc_priorities",
        "pfc_watchdog.queues",
        "pfc_watchdog.action",
        "pfc_watchdog.detection_ms",
        "pfc_watchdog.restoration_ms",
        "pfc_watchdog.poll_interval_ms",
    )
    title = "PFC watchdog on every port and lossless queue with PFC, action drop, timers >= poll interval"
    hint = "enable the PFC watchdog on every PFC port and lossless queue, action drop, detection/restoration >= poll"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return needs_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        actions = ctx.params_as(self.Params).actions
        unread: list[str] = []
        for dev in ctx.subject.devices.values():
            if dev.kind != "switch":
                continue
            pfc_ports = [i.name for i in dev.interfaces.values() if i.pfc_priorities]
            cc = device_profile(ctx.desired, dev.name)
            if not pfc_ports or (cc is not None and not cc.pfc_watchdog):  # custom: the watchdog off by intent
                continue
            wd = dev.pfc_watchdog
            if wd is None:
                yield Finding(dev.name, "pfc watchdog", "not configured on ports with PFC", "enabled", "disabled")
                continue
            for port in sorted(set(pfc_ports) - set(wd.ports)):
                yield Finding(dev.name, port, "PFC without watchdog", "watchdog on", "off", port=port)
            if dev.qos is not None and lacking(ctx.observed, dev, _QUEUE_READS):
                unread.append(dev.name)  # which queues are lossless was not read: their coverage is not judged
            elif dev.qos is not None:
                for queue, prio in sorted(lossless_queues(dev.qos).items()):
                    if queue not in wd.queues:
                        yield Finding(
                            dev.name,
                            f"queue {queue}",
                            "lossless queue not watched",
                            "watchdog on",
                            f"watched queues {wd.queues}",
                            priority=prio,
                        )
            if wd.action not in actions:
                yield Finding(dev.name, "pfc watchdog", "action does not break a storm", "/".join(actions), wd.action)
            if min(wd.detection_ms, wd.restoration_ms) < wd.poll_interval_ms:
                yield Finding(
                    dev.name,
                    "pfc watchdog",
                    "timer below poll interval",
                    f">= {wd.poll_interval_ms} ms",
                    f"{wd.detection_ms}/{wd.restoration_ms} ms",
                )
        self.note = not_judged(ctx.chosen(unread), "lossless queues watched (qos.pfc_priority_to_queue not observed)")


@register
class CnpStrict(Check):
    """The CNP class in a DWRR queue: congestion notifications queue behind data and DCQCN reacts late.
    A warning, not an error: SONiC's stock template schedules CNPs DWRR (reference §6 rule 2)."""

    id = "lossless.cnp_strict"
    reads = ("qos.pfc_priority_to_queue", "qos.schedulers")
    title = "CNP class served by a strict-priority queue"
    severity = Severity.WARNING
    hint = "schedule the CNP queue (DSCP 48, priority 6) strict priority"

    def applies(self, subject: FabricState) -> str | None:
        return needs_any_roce(subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        for dev in subject.devices.values():
            if dev.qos is None or dev.qos.cnp_priority is None:
                continue
            queue = dev.qos.pfc_priority_to_queue[dev.qos.cnp_priority]
            sched = dev.qos.schedulers.get(queue)
            if sched is None or sched.type != "strict":
                yield Finding(
                    dev.name,
                    f"queue {queue}",
                    "CNP queue is not strict",
                    "strict",
                    sched.type if sched else "none",
                    priority=dev.qos.cnp_priority,
                )
