"""Counters of the running fabric: PFC storms caught by the watchdog, drops on lossless queues."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.validate.checks.common import lossless_queues
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _no_counters(ctx: CheckContext) -> str | None:
    return None if ctx.snapshot.counters else "the snapshot has no counters"


@register
class PfcStorms(Check):
    """PFC pause storms: the watchdog detected a queue paused beyond its detection time (a stuck NIC,
    a deadlock, a loop). The watchdog's action limits the damage; the cause is still there."""

    class Params(CheckParams):
        max_storms: int = 0

    id = "counters.pfc_storms"
    title = "No PFC storms detected by the watchdog"
    needs = frozenset({"observed"})
    hint = "find the device sending continuous pause on that port/priority (show pfcwd stats, NIC counters)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_counters(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_storms
        for name, ports in sorted(ctx.snapshot.counters.items()):
            dev = ctx.desired.devices.get(name)
            prio_of = lossless_queues(dev.qos) if dev is not None and dev.qos is not None else {}
            for port, counters in sorted(ports.items()):
                for queue, wd in sorted(counters.watchdog.items()):
                    if wd.storms_detected > limit:
                        yield Finding(
                            name,
                            f"{port} queue {queue}",
                            "PFC storm detected by the watchdog",
                            f"<= {limit}",
                            f"{wd.storms_detected} storm(s), {wd.storms_restored} restored",
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
    title = "No drops on lossless queues"
    needs = frozenset({"observed"})
    hint = "check PFC at both ends and the headroom for the cable length; look for watchdog actions"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_counters(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        limit = ctx.params_as(self.Params).max_dropped_packets
        for name, ports in sorted(ctx.snapshot.counters.items()):
            dev = ctx.desired.devices.get(name)
            if dev is None or dev.qos is None:
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
