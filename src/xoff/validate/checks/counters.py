"""Counters of the running fabric: PFC storms caught by the watchdog, drops on lossless queues."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.contracts.observed import PortCounters
from xoff.desired.models import FabricState
from xoff.validate.checks.common import lossless_queues, not_judged
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _no_counters(ctx: CheckContext) -> str | None:
    return None if ctx.snapshot.counters else "the snapshot has no counters"


def _watchdog_switches(desired: FabricState) -> set[str]:
    return {d.name for d in desired.devices.values() if d.kind == "switch" and d.pfc_watchdog is not None}


def _lossless_switches(desired: FabricState) -> set[str]:
    return {d.name for d in desired.devices.values() if d.kind == "switch" and d.qos and d.qos.lossless_priorities}


def _has_watchdog(ports: dict[str, PortCounters]) -> bool:
    """Some queue's storm count was read (N/A is None: not observed)."""
    return any(wd.storms_detected is not None for c in ports.values() for wd in c.watchdog.values())


def _has_drops(ports: dict[str, PortCounters], lossless: dict[int, int]) -> bool:
    """Some lossless queue's dropped packets were read (N/A is None: not observed)."""
    return any(q.dropped_packets is not None for c in ports.values() for n, q in c.queues.items() if n in lossless)


def _storm_devices(ctx: CheckContext) -> tuple[set[str], str | None]:
    """The devices with watchdog counters, and the note naming the watchdog switches without any."""
    counters = ctx.snapshot.counters
    judged = {n for n, ports in counters.items() if _has_watchdog(ports)}
    return judged, not_judged(ctx.chosen(_watchdog_switches(ctx.desired) - judged), "no PFC watchdog counters observed")


def _drop_devices(ctx: CheckContext) -> tuple[set[str], str | None]:
    """The devices with a lossless queue's drop counter read, and the note naming the lossless switches without."""
    judged = set()
    for name, ports in ctx.snapshot.counters.items():
        dev = ctx.desired.devices.get(name)
        if dev is not None and dev.qos is not None and _has_drops(ports, lossless_queues(dev.qos)):
            judged.add(name)
    why = "no lossless queue drop counters observed (absent or N/A)"
    return judged, not_judged(ctx.chosen(_lossless_switches(ctx.desired) - judged), why)


@register
class PfcStorms(Check):
    """PFC pause storms: the watchdog detected a queue paused beyond its detection time (a stuck NIC,
    a deadlock, a loop). The watchdog's action limits the damage; the cause is still there."""

    class Params(CheckParams):
        max_storms: int = 0

    id = "counters.pfc_storms"
    tags = ("lossless",)
    title = "No PFC storms detected by the watchdog"
    needs = frozenset({"observed"})
    hint = "find the device sending continuous pause on that port/priority (show pfcwd stats, NIC counters)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        judged, note = _storm_devices(ctx)
        return _no_counters(ctx) or (None if judged else note or "no PFC watchdog counters observed")

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_storms
        judged, self.note = _storm_devices(ctx)
        for name, ports in sorted(ctx.snapshot.counters.items()):
            if name not in judged:
                continue
            dev = ctx.desired.devices.get(name)
            prio_of = lossless_queues(dev.qos) if dev is not None and dev.qos is not None else {}
            for port, counters in sorted(ports.items()):
                for queue, wd in sorted(counters.watchdog.items()):
                    if wd.storms_detected is not None and wd.storms_detected > limit:
                        restored = (
                            "restored not observed" if wd.storms_restored is None else f"{wd.storms_restored} restored"
                        )
                        yield Finding(
                            name,
                            f"{port} queue {queue}",
                            "PFC storm detected by the watchdog",
                            f"<= {limit}",
                            f"{wd.storms_detected} storm(s), {restored}",
                            port,
                            prio_of.get(queue),
                        )


@register
class LosslessDrops(Check):
    """Packets dropped on a lossless queue: headroom too small for the cable, PFC not honoured by the
    peer, or the watchdog dropping during a storm. A lossless class must not drop."""

    class Params(CheckParams):
        max_dropped_packets: int = 0

    id = "counters.lossless_drops"
    tags = ("lossless",)
    title = "No drops on lossless queues"
    needs = frozenset({"observed"})
    hint = "check PFC at both ends and the headroom for the cable length; look for watchdog actions"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        judged, note = _drop_devices(ctx)
        return _no_counters(ctx) or (None if judged else note or "no lossless queue drop counters observed")

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_dropped_packets
        judged, self.note = _drop_devices(ctx)
        for name, ports in sorted(ctx.snapshot.counters.items()):
            dev = ctx.desired.devices.get(name)
            if dev is None or dev.qos is None or name not in judged:
                continue
            lossless = lossless_queues(dev.qos)
            for port, counters in sorted(ports.items()):
                for queue, q in sorted(counters.queues.items()):
                    if queue in lossless and q.dropped_packets is not None and q.dropped_packets > limit:
                        yield Finding(
                            name,
                            f"{port} queue {queue}",
                            "drops on a lossless queue",
                            f"<= {limit}",
                            f"{q.dropped_packets} packets",
                            port,
                            lossless[queue],
                        )
