"""ECN before PFC, from the running fabric's counters: a switch that sent PFC pause frames on a lossless
priority must have ECN-marked packets on that priority's egress queue in the same counter window."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.contracts.observed import PortCounters
from xoff.validate.checks.common import ecn_on_lossless, lossless_queues
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _marked(ports: dict[str, PortCounters], queue: int) -> int | None:
    """Packets ECN-marked on ``queue`` over the device's ports; None where no port showed the counter."""
    seen = [c.queues[queue].ecn_marked_packets for c in ports.values() if queue in c.queues]
    counts = [n for n in seen if n is not None]
    return sum(counts) if counts else None


def _judged(ctx: CheckContext) -> Iterator[tuple[str, int, int, dict[str, PortCounters], int]]:
    """(device, queue, priority, ports, packets marked) for each lossless queue whose ECN-marked counter and
    whose priority's PFC pause frames sent were both read (N/A, "-" or absent: not observed, never 0)."""
    for name, ports in sorted(ctx.snapshot.counters.items()):
        dev = ctx.desired.devices.get(name)
        if dev is None or dev.qos is None or not ecn_on_lossless(ctx.desired, dev.network):
            continue  # a pfc-only network pauses with no ECN by design
        for queue, priority in sorted(lossless_queues(dev.qos).items()):
            marked = _marked(ports, queue)
            if marked is not None and any(priority in c.pfc.tx_pause for c in ports.values()):
                yield name, queue, priority, ports, marked


@register
class EcnBeforePfc(Check):
    """ECN not firing before PFC: a switch sent PFC pause frames on a lossless priority while ECN marked no
    packet on that priority's egress queue in the same counter window. RoCE congestion control (DCQCN) needs
    ECN to mark before the ingress buffer reaches the PFC threshold, so senders slow down before the fabric
    pauses; pause without marking means the ECN thresholds sit above the PFC (xoff) point, or marking is off
    on the queue. The egress queue that marks and the port that sends the pause are usually different ports
    of the switch, so both are summed per switch. Judged on the lossless queues whose ECN-marked counters (EOS
    ``show qos interfaces ecn counters queue``) and whose priority's PFC pause frames sent were both read; a
    queue that printed "-" (no ECN) or a priority whose pause count was not printed is not observed. A network whose
    congestion-control profile marks no ECN on its lossless queues (pfc-only) is not judged."""

    id = "counters.ecn_before_pfc"
    tags = ("lossless",)
    title = "ECN marks before PFC pauses on lossless queues"
    needs = frozenset({"observed"})
    hint = "lower the queue's ECN minimum threshold below the PFC xoff point, and check ECN is on for the queue"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if next(_judged(ctx), None) is None:
            return "no device showed both ECN-marked counters and PFC pause frames sent for a lossless queue"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        judged: dict[str, int] = {}
        for name, queue, priority, ports, marked in _judged(ctx):
            judged[name] = judged.get(name, 0) + 1
            pausing = sorted(p for p, c in ports.items() if c.pfc.tx_pause.get(priority, 0) > 0)
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
        queues = ", ".join(f"{name} ({n} lossless queue(s))" for name, n in judged.items())
        self.note = f"judged on {queues}: the queues whose ECN-marked and PFC pause counters were read"
