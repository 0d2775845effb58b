"""Counters between two snapshots, as rates over the interval between their ``collected_at``.

A counter that went down was cleared or its device restarted: a reset, reported as a change and never as a negative
rate. A counter not observed on one side (absent, or None: the device printed N/A) has no rate.
"""

from __future__ import annotations

from datetime import datetime

from xoff.audit.model import Change, Rate
from xoff.contracts.observed import PortCounters
from xoff.watch.rates import step


def interval_s(a: str, b: str) -> float | None:
    """Seconds from ``a`` to ``b`` (ISO 8601); None when either does not parse or ``b`` is not later."""
    try:
        start, end = datetime.fromisoformat(a), datetime.fromisoformat(b)
        seconds = (end - start).total_seconds()
    except (ValueError, TypeError):  # unparsable, or one naive and one aware
        return None
    return seconds if seconds > 0 else None


def _flat(port: PortCounters) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for prio, n in port.pfc.rx_pause.items():
        out[f"pfc.rx_pause.{prio}"] = n
    for prio, n in port.pfc.tx_pause.items():
        out[f"pfc.tx_pause.{prio}"] = n
    for q, qc in port.queues.items():
        for name, n in qc.model_dump().items():
            out[f"queues.{q}.{name}"] = n
    for q, wd in port.watchdog.items():
        for name, n in wd.model_dump().items():
            out[f"watchdog.{q}.{name}"] = n
    return out


def rates(
    device: str, a: dict[str, PortCounters], b: dict[str, PortCounters], seconds: float | None
) -> tuple[list[Rate], list[Change]]:
    """The counters of ``device`` that moved (rates), and as changes those that went down (resets) and the ports whose
    counters were read in one snapshot only (a port absent from both: nothing to say)."""
    moved: list[Rate] = []
    resets: list[Change] = [
        Change("counters", device, port, "one side", "read" if port in a else None, "read" if port in b else None)
        for port in sorted(set(a) ^ set(b))
    ]
    for port in sorted(set(a) & set(b)):
        before, after = _flat(a[port]), _flat(b[port])
        for counter in sorted(set(before) & set(after)):
            was, now = before[counter], after[counter]
            if was is None or now is None or was == now:
                continue
            if step(was, now) is None:  # the rule xoff watch's rates use: a total that went down is a reset
                resets.append(Change("counters", device, f"{port} {counter}", "reset", str(was), str(now)))
            else:
                per_s = (now - was) / seconds if seconds else None
                moved.append(Rate(device, port, counter, now - was, per_s))
    return moved, resets
