"""ECN before PFC, from the running fabric's counters: a switch that sent PFC pause frames on a lossless
priority must have ECN-marked packets on that priority's egress queue in the same counter window."""

from __future__ import annotations

from collections.abc import Iterable

from xoff.contracts.observed import PortCounters
from xoff.validate.checks.common import lossless_queues
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _marked(ports: dict[str, PortCounters], queue: int) -> int | None:
    """Packets ECN-marked on ``queue`` over the device's ports; None where no port showed the counter."""
    seen = [c.queues[queue].ecn_marked_packets for c in ports.values() if queue in c.queues]
    counts = [n for n in seen if n is not None]
    return sum(counts) if counts else None


def _has_ecn_counters(ports: dict[str, PortCounters]) -> bool:
    return any(q.ecn_marked_packets is not None for c in ports.values() for q in c.queues.values())


@register
class EcnBeforePfc(Check):
    """ECN not firing before PFC: a switch sent PFC pause frames on a lossless priority while ECN marked no
    packet on that priority's egress queue in the same counter window. RoCE congestion control (DCQCN) needs
    ECN to mark before the ingress buffer reaches the PFC threshold, so senders slow down before the fabric
    pauses; pause without marking means the ECN thresholds sit above the PFC (xoff) point, or marking is off
    on the queue. The egress queue that marks and the port that sends the pause are usually different ports
    of the switch, so both are summed per switch. Judged on the switches whose ECN-marked counters were read
    (EOS ``show qos interfaces ecn counters queue``); a queue that printed "-" (no ECN) is not observed."""

    id = "counters.ecn_before_pfc"
    title = "ECN marks before PFC pauses on lossless queues"
    needs = frozenset({"observed"})
    hint = "lower the queue's ECN minimum threshold below the PFC xoff point, and check ECN is on for the queue"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not any(_has_ecn_counters(ports) for ports in ctx.snapshot.counters.values()):
            return "no device showed ECN-marked queue counters"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        judged = []
        for name, ports in sorted(ctx.snapshot.counters.items()):
            dev = ctx.desired.devices.get(name)
            if dev is None or dev.qos is None or not _has_ecn_counters(ports):
                continue
            judged.append(name)
            for queue, priority in sorted(lossless_queues(dev.qos).items()):
                pausing = sorted(p for p, c in ports.items() if c.pfc.tx_pause.get(priority, 0) > 0)
                marked = _marked(ports, queue)
                if pausing and marked == 0:
                    sent = sum(ports[p].pfc.tx_pause[priority] for p in pausing)
                    yield Finding(
                        name,
                        f"queue {queue} (priority {priority})",
                        "PFC pause sent but ECN marked no packet",
                        "ECN-marked packets > 0 before PFC pauses",
                        f"0 marked; {sent} pause frames sent on {', '.join(pausing)}",
                        pausing[0],
                        priority,
                    )
        self.note = f"judged on {', '.join(judged)} (the switches whose ECN-marked counters were read)"
