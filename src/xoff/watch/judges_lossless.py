"""The lossless signals on switch ports: pause storm, slow drain, lossless drop, ECN ratio, headroom watermark."""

from __future__ import annotations

import itertools

from xoff.validate.model import Finding
from xoff.watch.judge import Context, Trace, Verdict, gauge_trace, label, label_int, rate_trace
from xoff.watch.rates import intervals, rate
from xoff.watch.window import Point, latest

RX_PAUSE = "xoff_pfc_rx_pause_frames_total"
TX_PAUSE = "xoff_pfc_tx_pause_frames_total"
RX_PAUSED_S = "xoff_pfc_rx_pause_duration_seconds_total"
NIC_RX_PAUSE = "xoff_nic_pfc_rx_pause_frames_total"
NIC_TX_PAUSE = "xoff_nic_pfc_tx_pause_frames_total"
NIC_RX_PAUSED_S = "xoff_nic_pfc_rx_pause_duration_seconds_total"
WD_DETECTED = "xoff_pfc_watchdog_storms_detected_total"
QUEUE_TX = "xoff_queue_tx_packets_total"
QUEUE_DROP = "xoff_queue_dropped_packets_total"
QUEUE_ECN = "xoff_queue_ecn_marked_packets_total"
PG_HEADROOM = "xoff_pg_headroom_watermark_bytes"
PG_SHARED = "xoff_pg_shared_watermark_bytes"
PG_PLANNED = "xoff_pg_headroom_planned_bytes"
QUEUE_LENGTH = "xoff_queue_length_bytes"


def _pause_frames(ctx: Context, v: Verdict) -> None:
    limit = ctx.thresholds.pause_storm_pps
    for metric, what in ((RX_PAUSE, "rx"), (TX_PAUSE, "tx"), (NIC_RX_PAUSE, "NIC rx"), (NIC_TX_PAUSE, "NIC tx")):
        for dev, labels, points in ctx.window.of(metric):
            prio = label_int(labels, "priority")
            r = rate(points)
            if prio not in ctx.plan(dev).lossless_priorities or r is None:
                continue
            v.judged.add(dev)
            if r.per_s > limit:
                port = label(labels, "port")
                v.find(
                    Finding(
                        dev,
                        f"{port} priority {prio} {what} pause",
                        "PFC pause storm: pause frames at a storm's rate",
                        f"<= {limit:g} frames/s",
                        f"{r.per_s:.0f} frames/s",
                        port,
                        prio,
                    ),
                    rate_trace(f"{dev} {port} prio {prio} {what} pause", "frames/s", points, limit),
                )


def _pause_share(ctx: Context, v: Verdict) -> None:
    limit = ctx.thresholds.pause_storm_share
    for dev, labels, points in [*ctx.window.of(RX_PAUSED_S), *ctx.window.of(NIC_RX_PAUSED_S)]:
        prio = label_int(labels, "priority")
        r = rate(points)
        if prio not in ctx.plan(dev).lossless_priorities or r is None:
            continue
        v.judged.add(dev)
        if r.per_s >= limit:
            port = label(labels, "port")
            v.find(
                Finding(
                    dev,
                    f"{port} priority {prio} rx paused",
                    "PFC pause storm: the port is paused most of the time",
                    f"< {limit:.0%} of the time paused",
                    f"{r.per_s:.0%}",
                    port,
                    prio,
                ),
                rate_trace(f"{dev} {port} prio {prio} paused share", "s/s", points, limit),
            )


def _watchdog(ctx: Context, v: Verdict) -> None:
    for dev, labels, points in ctx.window.of(WD_DETECTED):
        queue = label_int(labels, "queue")
        r = rate(points)
        if queue not in ctx.plan(dev).lossless_queues or r is None:
            continue
        v.judged.add(dev)
        if r.increase > 0:
            port = label(labels, "port")
            v.find(
                Finding(
                    dev,
                    f"{port} queue {queue} PFC watchdog",
                    "PFC watchdog detected storms in the window",
                    "0 storms detected",
                    f"{r.increase:.0f} detected",
                    port,
                    ctx.plan(dev).priority_of(queue),
                ),
                rate_trace(f"{dev} {port} queue {queue} storms detected", "storms/s", points, 0.0),
            )


def pause_storm(ctx: Context, v: Verdict) -> None:
    """Pause frames on a lossless priority above the storm rate, a port paused most of the time, or the PFC watchdog
    detecting storms."""
    _pause_frames(ctx, v)
    _pause_share(ctx, v)
    _watchdog(ctx, v)


def _never_stops(points: list[Point], floor: float) -> bool | None:
    """Every interval paused at ``floor``/s or more; None when an interval has no rate (gap, reset, one point)."""
    rates = [r for _, _, r in intervals(points)]
    if not rates or any(r is None for r in rates):
        return None
    return all(r is not None and r >= floor for r in rates)


def _growing(points: list[Point], growth: float) -> bool | None:
    values = [value for _, value in points]
    if len(values) < 2 or any(value is None for value in values):
        return None
    seen = [value for value in values if value is not None]
    return all(b >= a for a, b in itertools.pairwise(seen)) and seen[-1] - seen[0] >= growth


def _watermark(
    ctx: Context, dev: str, port: str | None, pg: int | None, queue: int | None
) -> tuple[str, list[Point]] | None:
    """What fills on a slow drain, as the platform reports it: the PG's shared watermark, else its headroom one
    (SONiC, Cumulus), else the egress queue's length (EOS's LANZ: the queue toward the slow receiver)."""
    for metric, labels in ((PG_SHARED, {"pg": pg}), (PG_HEADROOM, {"pg": pg}), (QUEUE_LENGTH, {"queue": queue})):
        points = ctx.window.points(dev, metric, port=port, **labels)
        if points:
            return metric, points
    return None


_FILLS = {PG_SHARED: "PG shared watermark", PG_HEADROOM: "PG headroom watermark", QUEUE_LENGTH: "egress queue"}


def slow_drain(ctx: Context, v: Verdict) -> None:
    """A port whose rx pause never stops and whose PG watermark keeps growing, while the watchdog stays quiet."""
    t = ctx.thresholds
    for dev, labels, points in ctx.window.of(RX_PAUSE):
        plan, prio, port = ctx.plan(dev), label_int(labels, "priority"), label(labels, "port")
        if prio not in plan.lossless_priorities or prio is None:
            continue
        queue = (plan.queue_of or {}).get(prio)
        found = _watermark(ctx, dev, port, (plan.pg_of or {}).get(prio), queue)
        never_stops = _never_stops(points, t.slow_drain_min_pps)
        growing = _growing(found[1], t.slow_drain_growth_bytes) if found else None
        if never_stops is None or growing is None or found is None:
            continue  # not observed: a gap is never read as "stopped"
        v.judged.add(dev)
        storms = ctx.window.points(dev, WD_DETECTED, port=port, queue=queue)
        detected = rate(storms) if storms else None
        if not (never_stops and growing) or (detected is not None and detected.increase > 0):
            continue
        metric, marks = found
        quiet = "the watchdog detected nothing" if detected is not None else "the watchdog not observed"
        v.find(
            Finding(
                dev,
                f"{port} priority {prio}",
                f"slow drain: rx pause never stopped and the {_FILLS[metric]} grew; {quiet}",
                "pause that stops, a watermark that falls",
                f"watermark {marks[0][1]:.0f} -> {marks[-1][1]:.0f} B",
                port,
                prio,
            ),
            rate_trace(f"{dev} {port} prio {prio} rx pause", "frames/s", points, t.slow_drain_min_pps),
            gauge_trace(f"{dev} {port} {metric}", "bytes", marks, None),
        )


def lossless_drop(ctx: Context, v: Verdict) -> None:
    """Drops on a lossless queue."""
    limit = ctx.thresholds.lossless_drop_pps
    for dev, labels, points in ctx.window.of(QUEUE_DROP):
        queue = label_int(labels, "queue")
        r = rate(points)
        if queue not in ctx.plan(dev).lossless_queues or r is None:
            continue
        v.judged.add(dev)
        if r.per_s > limit and r.increase > 0:
            port = label(labels, "port")
            v.find(
                Finding(
                    dev,
                    f"{port} queue {queue}",
                    "drops on a lossless queue",
                    f"<= {limit:g} packets/s",
                    f"{r.per_s:.1f} packets/s ({r.increase:.0f} in {r.seconds:.0f} s)",
                    port,
                    ctx.plan(dev).priority_of(queue),
                ),
                rate_trace(f"{dev} {port} queue {queue} dropped", "packets/s", points, limit),
            )


def _ratio_trace(name: str, marked: list[Point], sent: list[Point], high: float, low: float) -> Trace:
    tx = {t1: r for _, t1, r in intervals(sent) if r}
    pts = tuple((t1, r / tx[t1]) for _, t1, r in intervals(marked) if r is not None and tx.get(t1))
    return Trace(name, "marked/tx", pts, high, low or None)


def ecn_ratio(ctx: Context, v: Verdict) -> None:
    """ECN-marked / transmitted on an ECN queue outside [low, high] (high: the queue's WRED max probability)."""
    t = ctx.thresholds
    for dev, labels, marked in ctx.window.of(QUEUE_ECN):
        queue, port = label_int(labels, "queue"), label(labels, "port")
        ecn = ctx.plan(dev).ecn_high or {}
        sent = ctx.window.points(dev, QUEUE_TX, port=port, queue=queue)
        rm, rt = rate(marked), rate(sent) if sent else None
        if queue not in ecn or rm is None or rt is None:
            continue
        v.judged.add(dev)
        if rt.per_s < t.ecn_min_tx_pps:
            continue
        ratio, high = rm.per_s / rt.per_s, min(ecn.get(queue, 1.0), t.ecn_ratio_high)
        if ratio > high or ratio < t.ecn_ratio_low:
            v.find(
                Finding(
                    dev,
                    f"{port} queue {queue}",
                    "ECN-marked share out of band",
                    f"{t.ecn_ratio_low:.2%} to {high:.2%}",
                    f"{ratio:.2%}",
                    port,
                ),
                _ratio_trace(f"{dev} {port} queue {queue} marked/tx", marked, sent or [], high, t.ecn_ratio_low),
            )


def headroom_watermark(ctx: Context, v: Verdict) -> None:
    """A PG headroom watermark near the headroom the plan reserved for that PG."""
    share = ctx.thresholds.headroom_near_share
    for dev, labels, points in ctx.window.of(PG_HEADROOM):
        port, pg = label(labels, "port"), label_int(labels, "pg")
        reported = ctx.window.points(dev, PG_PLANNED, port=port, pg=pg)
        planned = latest(reported) if reported else None
        if planned is None and port is not None and pg is not None:
            planned = (ctx.plan(dev).headroom or {}).get((port, pg))
        used = latest(points)
        if planned is None or used is None or planned <= 0:
            continue
        v.judged.add(dev)
        if used >= share * planned:
            v.find(
                Finding(
                    dev,
                    f"{port} PG {pg} headroom",
                    "headroom watermark near the planned headroom",
                    f"< {share:.0%} of {planned:.0f} B",
                    f"{used:.0f} B ({used / planned:.0%})",
                    port,
                ),
                gauge_trace(f"{dev} {port} PG {pg} headroom watermark", "bytes", points, share * planned),
            )
