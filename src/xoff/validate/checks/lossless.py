"""Lossless consistency checks that hold on intent alone (reference/lossless.md §6)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import Device, FabricState, Interface
from xoff.validate.model import Finding, Severity
from xoff.validate.registry import Check, register

ROCE_MIN_NETDEV_MTU = 4192  # RoCE MTU 4096 + 96 bytes of headers (§4.3)


def _roce_networks(state: FabricState) -> set[str]:
    return {n for n, p in state.networks.items() if p.kind == "roce" and p.lossless_priorities}


def _link_ends(state: FabricState) -> Iterator[tuple[Device, Interface, Device, Interface]]:
    for link in state.links:
        a, b = state.devices.get(link.a.device), state.devices.get(link.b.device)
        if a is None or b is None:
            continue
        ia, ib = a.interfaces.get(link.a.port), b.interfaces.get(link.b.port)
        if ia is not None and ib is not None:
            yield a, ia, b, ib


def _needs_roce(state: FabricState) -> str | None:
    return None if _roce_networks(state) else "no lossless RoCE network in this fabric"


@register
class PfcSymmetry(Check):
    id = "lossless.pfc_symmetry"
    title = "PFC priorities equal at both ends of every link, host links included"

    def applies(self, subject: FabricState) -> str | None:
        return _needs_roce(subject)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for a, ia, b, ib in _link_ends(subject):
            if ia.kind == "infiniband" or ib.kind == "infiniband":
                continue
            if ia.pfc_priorities != ib.pfc_priorities:
                yield Finding(
                    a.name,
                    ia.name,
                    f"PFC priorities differ from {b.name}:{ib.name}",
                    expected=str(ib.pfc_priorities),
                    actual=str(ia.pfc_priorities),
                )


@register
class LinkMtu(Check):
    id = "lossless.link_mtu"
    title = "MTU equal at both ends of switch links; switch MTU >= host MTU on host links"

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for a, ia, b, ib in _link_ends(subject):
            if ia.mtu is None or ib.mtu is None or ia.kind == "infiniband":
                continue
            if b.kind == "host":
                if ia.mtu < ib.mtu:
                    yield Finding(a.name, ia.name, f"MTU below host {b.name}:{ib.name}", f">= {ib.mtu}", str(ia.mtu))
            elif ia.mtu != ib.mtu:
                yield Finding(a.name, ia.name, f"MTU differs from {b.name}:{ib.name}", str(ib.mtu), str(ia.mtu))


@register
class HostRoceMtu(Check):
    id = "lossless.host_mtu"
    title = f"RoCE host NICs have netdev MTU >= {ROCE_MIN_NETDEV_MTU} (RoCE MTU 4096)"

    def applies(self, subject: FabricState) -> str | None:
        return _needs_roce(subject)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for dev in subject.devices.values():
            if dev.host is None:
                continue
            for nic in dev.host.nics.values():
                if nic.roce_mode is not None and nic.mtu < ROCE_MIN_NETDEV_MTU:
                    yield Finding(
                        dev.name,
                        nic.netdev,
                        f"netdev MTU gives RoCE MTU {nic.roce_active_mtu}",
                        f">= {ROCE_MIN_NETDEV_MTU}",
                        str(nic.mtu),
                    )


@register
class EcnOnLosslessQueues(Check):
    id = "lossless.ecn_on_lossless_queues"
    title = "ECN marking on every lossless queue, min < max"

    def applies(self, subject: FabricState) -> str | None:
        return _needs_roce(subject)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for dev in subject.devices.values():
            if dev.qos is None:
                continue
            for cls in dev.qos.classes:
                if not cls.lossless:
                    continue
                ecn = dev.qos.ecn.get(cls.queue)
                if ecn is None:
                    yield Finding(
                        dev.name, f"queue {cls.queue}", f"lossless class {cls.name} has no ECN", "ECN on", "off"
                    )
                elif ecn.min_threshold >= ecn.max_threshold:
                    yield Finding(
                        dev.name,
                        f"queue {cls.queue}",
                        "ECN min >= max",
                        "min < max",
                        f"{ecn.min_threshold}/{ecn.max_threshold}",
                    )


@register
class PfcWatchdogCoverage(Check):
    id = "lossless.pfc_watchdog"
    title = "PFC watchdog on every port with PFC, action drop, timers >= poll interval"

    def applies(self, subject: FabricState) -> str | None:
        return _needs_roce(subject)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for dev in subject.devices.values():
            if dev.kind != "switch":
                continue
            pfc_ports = [i.name for i in dev.interfaces.values() if i.pfc_priorities]
            if not pfc_ports:
                continue
            wd = dev.pfc_watchdog
            if wd is None:
                yield Finding(dev.name, "pfc watchdog", "not configured on ports with PFC", "enabled", "disabled")
                continue
            for port in sorted(set(pfc_ports) - set(wd.ports)):
                yield Finding(dev.name, port, "PFC without watchdog", "watchdog on", "off")
            if wd.action != "drop":
                yield Finding(dev.name, "pfc watchdog", "action does not break a storm", "drop", wd.action)
            if min(wd.detection_ms, wd.restoration_ms) < wd.poll_interval_ms:
                yield Finding(
                    dev.name,
                    "pfc watchdog",
                    "timer below poll interval",
                    f">= {wd.poll_interval_ms} ms",
                    f"{wd.detection_ms}/{wd.restoration_ms} ms",
                )


@register
class CnpStrict(Check):
    id = "lossless.cnp_strict"
    title = "CNP class served by a strict-priority queue"
    severity = Severity.WARNING  # a vendor design choice: SONiC's stock template uses DWRR (§6 rule 2)

    def applies(self, subject: FabricState) -> str | None:
        return _needs_roce(subject)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        for dev in subject.devices.values():
            if dev.qos is None or dev.qos.cnp_priority is None:
                continue
            queue = dev.qos.pfc_priority_to_queue[dev.qos.cnp_priority]
            sched = dev.qos.schedulers.get(queue)
            if sched is None or sched.type != "strict":
                yield Finding(
                    dev.name, f"queue {queue}", "CNP queue is not strict", "strict", sched.type if sched else "none"
                )
