"""The metric catalogue: every signal ``xoff watch`` reads, its Prometheus name, kind, unit and labels.

One list for the watcher, the Prometheus exporter, the alert rules, the dashboard and ``docs/watch.md``. Every
metric also carries the labels ``device``, ``network`` and ``role`` (added by the exporter from the intent);
``labels`` here are the others. Names follow Prometheus' conventions: ``_total`` for counters, base units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    kind: Literal["counter", "gauge"]
    unit: str
    labels: tuple[str, ...]
    help: str
    on: On


On = Literal["switch", "host", "switch, host"]


def _c(name: str, unit: str, labels: tuple[str, ...], help_: str, on: On = "switch") -> Metric:
    return Metric(name, "counter", unit, labels, help_, on)


def _g(name: str, unit: str, labels: tuple[str, ...], help_: str, on: On = "switch") -> Metric:
    return Metric(name, "gauge", unit, labels, help_, on)


PORT_PRIO = ("port", "priority")
PORT_QUEUE = ("port", "queue")
PORT_PG = ("port", "pg")

_ALL = (
    # switch ports
    _c("xoff_pfc_rx_pause_frames_total", "frames", PORT_PRIO, "PFC pause frames received"),
    _c("xoff_pfc_tx_pause_frames_total", "frames", PORT_PRIO, "PFC pause frames sent"),
    _c("xoff_pfc_rx_pause_duration_seconds_total", "seconds", PORT_PRIO, "time paused by received PFC frames"),
    _c("xoff_pfc_watchdog_storms_detected_total", "events", PORT_QUEUE, "PFC watchdog storms detected"),
    _c("xoff_pfc_watchdog_storms_restored_total", "events", PORT_QUEUE, "PFC watchdog storms restored"),
    _c("xoff_queue_tx_packets_total", "packets", PORT_QUEUE, "packets transmitted from the egress queue"),
    _c("xoff_queue_tx_bytes_total", "bytes", PORT_QUEUE, "bytes transmitted from the egress queue"),
    _c("xoff_queue_dropped_packets_total", "packets", PORT_QUEUE, "packets dropped at the egress queue"),
    _c("xoff_queue_ecn_marked_packets_total", "packets", PORT_QUEUE, "packets ECN-marked (CE) at the egress queue"),
    _g("xoff_pg_headroom_watermark_bytes", "bytes", PORT_PG, "priority group headroom watermark"),
    _g("xoff_pg_shared_watermark_bytes", "bytes", PORT_PG, "priority group shared-buffer watermark"),
    _g("xoff_queue_length_bytes", "bytes", PORT_QUEUE, "egress queue length at the switch's last report (EOS LANZ)"),
    _g("xoff_pg_headroom_planned_bytes", "bytes", PORT_PG, "the headroom xoff planned (from the intent)"),
    _g("xoff_queue_lossless", "bool", ("queue",), "1: the plan makes the egress queue lossless (from the intent)"),
    _g("xoff_queue_ecn_ratio_max", "ratio", ("queue",), "the queue's planned max ECN marking share (from the intent)"),
    _g(
        "xoff_priority_lossless",
        "bool",
        ("priority",),
        "1: the plan runs PFC on the priority (switch QoS, host NIC; from the intent)",
        "switch, host",
    ),
    _g("xoff_priority_pg", "bool", ("priority", "pg"), "1: the lossless priority's ingress PG (from the intent)"),
    _g(
        "xoff_priority_queue",
        "bool",
        ("priority", "queue"),
        "1: the lossless priority's egress queue (from the intent)",
    ),
    _g("xoff_buffer_pool_watermark_bytes", "bytes", ("pool",), "buffer pool watermark"),
    _g("xoff_buffer_pool_size_bytes", "bytes", ("pool",), "buffer pool size"),
    _c("xoff_fec_corrected_codewords_total", "codewords", ("port",), "FEC codewords corrected"),
    _c("xoff_fec_uncorrectable_codewords_total", "codewords", ("port",), "FEC codewords uncorrectable"),
    _g("xoff_pre_fec_ber", "ratio", ("port",), "pre-FEC bit error rate"),
    _g("xoff_optic_rx_power_dbm", "dBm", ("port", "lane"), "optic receive power"),
    _g("xoff_optic_temperature_celsius", "celsius", ("port",), "optic temperature"),
    # hosts: the NIC
    _c("xoff_nic_pfc_rx_pause_frames_total", "frames", PORT_PRIO, "PFC pause frames the NIC received", "host"),
    _c("xoff_nic_pfc_tx_pause_frames_total", "frames", PORT_PRIO, "PFC pause frames the NIC sent", "host"),
    _c("xoff_nic_pfc_rx_pause_duration_seconds_total", "seconds", PORT_PRIO, "time the NIC was paused", "host"),
    _c("xoff_nic_rx_discards_phy_total", "packets", ("port",), "packets the NIC dropped for lack of buffer", "host"),
    _c("xoff_nic_out_of_buffer_total", "packets", ("port",), "RDMA receive-queue out-of-buffer drops", "host"),
    _c("xoff_nic_cnp_sent_total", "packets", ("port",), "RoCE CNPs sent (notification point)", "host"),
    _c("xoff_nic_cnp_handled_total", "packets", ("port",), "RoCE CNPs handled (reaction point)", "host"),
    _c("xoff_nic_ecn_marked_roce_packets_total", "packets", ("port",), "ECN-marked RoCE packets received", "host"),
    # hosts: the GPU (NVML)
    _g("xoff_gpu_sm_clock_hertz", "hertz", ("gpu",), "GPU SM clock", "host"),
    _g("xoff_gpu_max_sm_clock_hertz", "hertz", ("gpu",), "GPU SM clock maximum", "host"),
    _g(
        "xoff_gpu_clock_event_active", "bool", ("gpu", "reason"), "GPU clock event reason active (1) or not (0)", "host"
    ),
)

METRICS: dict[str, Metric] = {m.name: m for m in _ALL}
