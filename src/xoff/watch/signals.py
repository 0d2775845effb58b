"""The nine watch signals: their ids (shared with the Prometheus alerts, named after them), rules and hints.

Each judges the window (``judges_lossless``, ``judges_link``) by ``thresholds.Thresholds`` and the intent's plan;
``evaluate`` runs them all. A signal with nothing observed to judge is skipped with the reason, never a success.
"""

from __future__ import annotations

from xoff.validate.model import Severity
from xoff.watch import judges_link as link
from xoff.watch import judges_lossless as ll
from xoff.watch.judge import Context, Judgement, Signal, run_signal

E, W = Severity.ERROR, Severity.WARNING

SIGNALS: tuple[Signal, ...] = (
    Signal(
        "watch.pause_storm",
        "PFC pause storm",
        E,
        "find the port sending the pause (often a stuck NIC or a host that stopped draining); check the PFC watchdog is on",
        (
            ll.RX_PAUSE,
            ll.TX_PAUSE,
            ll.RX_PAUSED_S,
            ll.WD_DETECTED,
            ll.NIC_RX_PAUSE,
            ll.NIC_TX_PAUSE,
            ll.NIC_RX_PAUSED_S,
        ),
        "switch, host",
        ll.pause_storm,
        "pause frames/s (switch port or host NIC) on a lossless priority > pause_storm_pps, or paused share >= pause_storm_share, or the PFC "
        "watchdog detected a storm in the window",
    ),
    Signal(
        "watch.slow_drain",
        "Slow drain (pause that never stops, the watchdog quiet)",
        E,
        "follow the pause downstream to the slow receiver; the watchdog will not act, so drain or isolate it by hand",
        (ll.RX_PAUSE, ll.PG_SHARED, ll.PG_HEADROOM, ll.QUEUE_LENGTH, ll.WD_DETECTED),
        "switch",
        ll.slow_drain,
        "rx pause >= slow_drain_min_pps in every interval, the PG watermark (shared, else headroom; on EOS the "
        "priority's egress queue length, LANZ) never falling and growing by >= slow_drain_growth_bytes, no watchdog "
        "storm detected",
    ),
    Signal(
        "watch.lossless_drop",
        "Drops on a lossless queue",
        E,
        "check PFC is enabled on both ends for this priority and that the headroom covers the cable",
        (ll.QUEUE_DROP,),
        "switch",
        ll.lossless_drop,
        "dropped packets/s on a lossless queue > lossless_drop_pps",
    ),
    Signal(
        "watch.ecn_ratio",
        "ECN-marked share out of band",
        W,
        "too many marks: the queue sits above Kmax (congestion the senders do not react to: check DCQCN on the NICs); "
        "too few: check the ECN thresholds",
        (ll.QUEUE_ECN, ll.QUEUE_TX),
        "switch",
        ll.ecn_ratio,
        "marked/tx on an ECN queue outside [ecn_ratio_low, min(ecn_ratio_high, the queue's WRED max probability)]",
    ),
    Signal(
        "watch.headroom_watermark",
        "Headroom watermark near the planned headroom",
        W,
        "the headroom barely covers what arrives after XOFF: check the cable length and speed the plan used",
        (ll.PG_HEADROOM, ll.PG_PLANNED),
        "switch",
        ll.headroom_watermark,
        "PG headroom watermark >= headroom_near_share x the PG's planned headroom (its profile's xoff)",
    ),
    Signal(
        "watch.fec_ber",
        "Pre-FEC BER or uncorrectable FEC above threshold",
        E,
        "clean or reseat the connector, then replace the optic or cable",
        (link.PRE_FEC_BER, link.FEC_UNCORRECTABLE),
        "switch",
        link.fec_ber,
        "pre-FEC BER > pre_fec_ber_max, or uncorrectable codewords/s > fec_uncorrectable_pps",
    ),
    Signal(
        "watch.optic",
        "Optic receive power or temperature out of range",
        W,
        "check the fibre and the far end's transmit power; a hot module needs airflow or replacing",
        (link.OPTIC_RX, link.OPTIC_TEMP),
        "switch",
        link.optic,
        "rx power outside [optic_rx_min_dbm, optic_rx_max_dbm] or temperature > optic_temperature_max_c",
    ),
    Signal(
        "watch.nic_discards",
        "NIC discards for lack of buffer",
        E,
        "the host NIC is congested: check its PFC (trust, lossless priority) and the receive rings",
        link.NIC_DISCARDS,
        "host",
        link.nic_discards,
        "rx_discards_phy or out-of-buffer packets/s > nic_discards_pps",
    ),
    Signal(
        "watch.gpu_straggler",
        "GPU straggler (one host throttling, its peers at full clock)",
        E,
        "check the host's cooling and power (the clock event reason says which); drain it from the job",
        (link.SM_CLOCK, link.MAX_SM_CLOCK, link.CLOCK_EVENT),
        "host",
        link.gpu_straggler,
        "host median SM clock < straggler_share x the fabric median with a clock event active, the other hosts at "
        ">= full_clock_share of their maximum",
    ),
)

SIGNAL_IDS: tuple[str, ...] = tuple(s.id for s in SIGNALS)


def evaluate(ctx: Context) -> list[Judgement]:
    return [run_signal(s, ctx) for s in SIGNALS]
