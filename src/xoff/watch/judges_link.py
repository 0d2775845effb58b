"""The link and host signals: FEC/BER, optics, NIC discards, the GPU straggler."""

from __future__ import annotations

from statistics import median

from xoff.validate.model import Finding
from xoff.watch.judge import Context, Verdict, gauge_trace, label, rate_trace
from xoff.watch.rates import rate
from xoff.watch.window import latest

PRE_FEC_BER = "xoff_pre_fec_ber"
FEC_UNCORRECTABLE = "xoff_fec_uncorrectable_codewords_total"
OPTIC_RX = "xoff_optic_rx_power_dbm"
OPTIC_TEMP = "xoff_optic_temperature_celsius"
NIC_DISCARDS = ("xoff_nic_rx_discards_phy_total", "xoff_nic_out_of_buffer_total")
SM_CLOCK = "xoff_gpu_sm_clock_hertz"
MAX_SM_CLOCK = "xoff_gpu_max_sm_clock_hertz"
CLOCK_EVENT = "xoff_gpu_clock_event_active"
NOT_SLOWDOWN = frozenset({"gpu_idle", "applications_clocks_setting", "none"})  # reasons that are no throttle


def fec_ber(ctx: Context, v: Verdict) -> None:
    """Pre-FEC BER above the threshold, or uncorrectable codewords."""
    t = ctx.thresholds
    for dev, labels, points in ctx.window.of(PRE_FEC_BER):
        ber, port = latest(points), label(labels, "port")
        if ber is None:
            continue
        v.judged.add(dev)
        if ber > t.pre_fec_ber_max:
            v.find(
                Finding(
                    dev,
                    f"{port} pre-FEC BER",
                    "pre-FEC bit error rate above the threshold",
                    f"<= {t.pre_fec_ber_max:.1e}",
                    f"{ber:.2e}",
                    port,
                ),
                gauge_trace(f"{dev} {port} pre-FEC BER", "ratio", points, t.pre_fec_ber_max),
            )
    for dev, labels, points in ctx.window.of(FEC_UNCORRECTABLE):
        r, port = rate(points), label(labels, "port")
        if r is None:
            continue
        v.judged.add(dev)
        if r.per_s > t.fec_uncorrectable_pps and r.increase > 0:
            v.find(
                Finding(
                    dev,
                    f"{port} FEC",
                    "uncorrectable FEC codewords (lost frames)",
                    f"<= {t.fec_uncorrectable_pps:g} codewords/s",
                    f"{r.per_s:.2f} codewords/s",
                    port,
                ),
                rate_trace(f"{dev} {port} uncorrectable codewords", "codewords/s", points, t.fec_uncorrectable_pps),
            )


def optic(ctx: Context, v: Verdict) -> None:
    """Optic receive power outside the band, or the module too hot."""
    t = ctx.thresholds
    for dev, labels, points in ctx.window.of(OPTIC_RX):
        dbm, port, lane = latest(points), label(labels, "port"), label(labels, "lane")
        if dbm is None:
            continue
        v.judged.add(dev)
        if not t.optic_rx_min_dbm <= dbm <= t.optic_rx_max_dbm:
            v.find(
                Finding(
                    dev,
                    f"{port} lane {lane} rx power",
                    "optic receive power out of range",
                    f"{t.optic_rx_min_dbm:g} to {t.optic_rx_max_dbm:g} dBm",
                    f"{dbm:.2f} dBm",
                    port,
                ),
                gauge_trace(
                    f"{dev} {port} lane {lane} rx power", "dBm", points, t.optic_rx_max_dbm, t.optic_rx_min_dbm
                ),
            )
    for dev, labels, points in ctx.window.of(OPTIC_TEMP):
        temp, port = latest(points), label(labels, "port")
        if temp is None:
            continue
        v.judged.add(dev)
        if temp > t.optic_temperature_max_c:
            v.find(
                Finding(
                    dev,
                    f"{port} optic temperature",
                    "optic too hot",
                    f"<= {t.optic_temperature_max_c:g} C",
                    f"{temp:.1f} C",
                    port,
                ),
                gauge_trace(f"{dev} {port} optic temperature", "C", points, t.optic_temperature_max_c),
            )


def nic_discards(ctx: Context, v: Verdict) -> None:
    """A host NIC dropping for lack of buffer (rx_discards_phy, out-of-buffer)."""
    limit = ctx.thresholds.nic_discards_pps
    for metric in NIC_DISCARDS:
        for dev, labels, points in ctx.window.of(metric):
            r, port = rate(points), label(labels, "port")
            if r is None:
                continue
            v.judged.add(dev)
            if r.per_s > limit and r.increase > 0:
                what = metric.removeprefix("xoff_nic_").removesuffix("_total")
                v.find(
                    Finding(
                        dev,
                        f"{port} {what}",
                        "the NIC drops for lack of buffer",
                        f"<= {limit:g} packets/s",
                        f"{r.per_s:.1f} packets/s ({r.increase:.0f} in {r.seconds:.0f} s)",
                        port,
                    ),
                    rate_trace(f"{dev} {port} {what}", "packets/s", points, limit),
                )


def _clocks(ctx: Context, metric: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for dev, _, points in ctx.window.of(metric):
        value = latest(points)
        if value is not None:
            out.setdefault(dev, []).append(value)
    return out


def _events(ctx: Context, host: str) -> list[str]:
    """The throttle reasons active now on any of the host's GPUs."""
    return sorted(
        {
            label(labels, "reason") or "?"
            for _, labels, points in ctx.window.of(CLOCK_EVENT, host)
            if latest(points) == 1 and label(labels, "reason") not in NOT_SLOWDOWN
        }
    )


def _peers_full(ctx: Context, host: str, sm: dict[str, list[float]], top: dict[str, list[float]]) -> bool:
    """The other hosts' median SM clock at full_clock_share of their maximum (NVML's max SM clock; where a host did
    not report it, the highest SM clock any host ran at stands in)."""
    peers = [h for h in sm if h != host]
    if not peers:
        return False
    fastest = max(c for clocks in sm.values() for c in clocks)
    clock = median(c for h in peers for c in sm[h])
    full = median(c for h in peers for c in top.get(h, [fastest]))
    return clock >= ctx.thresholds.full_clock_share * full


def gpu_straggler(ctx: Context, v: Verdict) -> None:
    """A host whose GPUs run well under the fabric's median SM clock with a clock event active, its peers at full
    clock."""
    t = ctx.thresholds
    sm, top = _clocks(ctx, SM_CLOCK), _clocks(ctx, MAX_SM_CLOCK)
    if len(sm) < 2:
        if sm:
            v.notes.append("one host reported GPU clocks: a straggler needs peers to compare with")
        return
    fabric = median(c for clocks in sm.values() for c in clocks)
    for host, clocks in sorted(sm.items()):
        v.judged.add(host)
        mine, events = median(clocks), _events(ctx, host)
        if mine < t.straggler_share * fabric and events and _peers_full(ctx, host, sm, top):
            traces = [
                gauge_trace(f"{host} GPU {label(lb, 'gpu')} SM clock", "Hz", pts, t.straggler_share * fabric)
                for _, lb, pts in ctx.window.of(SM_CLOCK, host)
            ]
            v.find(
                Finding(
                    host,
                    "GPU SM clock",
                    f"GPU straggler: clock event active ({', '.join(events)})",
                    f">= {t.straggler_share:.0%} of the fabric median {fabric / 1e6:.0f} MHz",
                    f"{mine / 1e6:.0f} MHz",
                ),
                *traces[:4],
            )
