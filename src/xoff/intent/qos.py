"""QoS policies: the lossless plan for a network (reference/lossless.md §0, §1.2, §1.5, §6)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from xoff.intent.base import IntentModel
from xoff.intent.congestion import CongestionControl
from xoff.intent.types import (
    Bytes,
    CableMetres,
    DetectionMs,
    Dscp,
    DynamicTh,
    GearboxDelayNs,
    LosslessLimit,
    OverSubscribeRatio,
    Percent,
    PollIntervalMs,
    Priority,
    QueueId,
    RestorationMs,
    SpeedMbps,
    TrafficClass,
    Weight,
)


class Ecn(IntentModel):
    """ECN marking on a queue (WRED in ECN mode). Thresholds are bytes of egress queue depth."""

    min_threshold: Bytes = Field(description="queue depth where marking starts (WRED min threshold)")
    max_threshold: Bytes = Field(description="queue depth where marking reaches the probability (WRED max)")
    probability: Percent = Field(default=100, description="marking probability at max_threshold, in percent")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.min_threshold >= self.max_threshold:
            raise ValueError(
                f"min_threshold {self.min_threshold} must be below max_threshold {self.max_threshold}"
                " (allowed: min_threshold < max_threshold)"
            )
        return self


class Scheduler(IntentModel):
    """How the class's egress queue is served: strict priority or DWRR with a weight."""

    type: Literal["strict", "dwrr"] = Field(
        default="dwrr", description="strict priority, or deficit weighted round robin"
    )
    weight: Weight | None = Field(default=None, description="DWRR weight (dwrr only, required there)")

    @model_validator(mode="after")
    def _weight_matches_type(self) -> Self:
        if self.type == "dwrr" and self.weight is None:
            raise ValueError("a dwrr scheduler needs a weight (allowed: weight 1..100)")
        if self.type == "strict" and self.weight is not None:
            raise ValueError("a strict scheduler takes no weight (allowed: remove weight, or use type dwrr)")
        return self


class TrafficClassSpec(IntentModel):
    """One class of traffic: which DSCPs it carries and how every hop treats it."""

    dscp: list[Dscp] = Field(default_factory=list, description="DSCP values classified into this class")
    priority: Priority = Field(description="switch priority / 802.1p priority (PFC priority when lossless)")
    traffic_class: TrafficClass | None = Field(default=None, description="defaults to the priority", examples=[3])
    queue: QueueId | None = Field(default=None, description="egress queue; defaults to the traffic class", examples=[3])
    lossless: bool = Field(default=False, description="PFC on this class's priority: no drops, pause instead")
    ecn: Ecn | None = Field(default=None, description="ECN marking on the class's queue (needed for DCQCN)")
    scheduler: Scheduler = Field(
        default_factory=lambda: Scheduler(type="dwrr", weight=1), description="how the class's egress queue is served"
    )

    @property
    def tc(self) -> int:
        return self.priority if self.traffic_class is None else self.traffic_class

    @property
    def egress_queue(self) -> int:
        return self.tc if self.queue is None else self.queue


class PfcWatchdog(IntentModel):
    """PFC watchdog; SONiC's defaults and ranges (reference/lossless.md §1.1, §1.5)."""

    enabled: bool = Field(default=True, description="run the PFC watchdog on every lossless queue", examples=[True])
    poll_interval_ms: PollIntervalMs = Field(default=200, description="how often queues are polled (ms)")
    detection_ms: DetectionMs = Field(default=200, description="a queue paused this long is storming (ms)")
    restoration_ms: RestorationMs = Field(default=200, description="storm-free time before the queue is restored (ms)")
    action: Literal["drop", "forward", "alert"] = Field(
        default="drop", description="what a storming queue does: drop its packets, forward them, or only alert"
    )

    @model_validator(mode="after")
    def _timers_ordered(self) -> Self:
        # SONiC's YANG requires both timers >= the poll interval (reference/lossless.md §1.1).
        for name in ("detection_ms", "restoration_ms"):
            if getattr(self, name) < self.poll_interval_ms:
                raise ValueError(
                    f"{name} {getattr(self, name)} is below poll_interval_ms {self.poll_interval_ms}"
                    " (allowed: >= poll_interval_ms)"
                )
        return self


class HeadroomRow(IntentModel):
    """A site-specific headroom lookup row (pg_profile_lookup.ini format), extending the ASIC's table.

    ``asics`` and ``skus`` tie the row to the switches of those ASICs or SKUs (either matching); without both the
    row applies to every switch."""

    asics: list[str] | None = Field(
        default=None,
        min_length=1,
        description="ASICs the row applies to (as a switch's asic: spectrum4, tomahawk5, ...); absent: every ASIC",
        examples=[["tomahawk5"]],
    )
    skus: list[str] | None = Field(
        default=None,
        min_length=1,
        description="catalogue SKUs the row applies to (as a switch's sku); absent with asics: every switch",
        examples=[["7060X6-64PE"]],
    )
    speed: SpeedMbps = Field(description="port speed the row is for", examples=["400G"])
    cable: CableMetres = Field(description="cable length the row is for", examples=["40m"])
    xon: Bytes = Field(description="XON threshold: below it the port resumes the sender", examples=[18432])
    xoff: Bytes = Field(description="XOFF headroom: what arrives after PAUSE is sent", examples=[171008])
    size: Bytes = Field(description="the priority group's reserved size; at least xon + xoff", examples=[189440])
    xon_offset: Bytes | None = Field(default=None, description="XON offset (Broadcom); absent: none", examples=[13312])


class Buffers(IntentModel):
    """The buffer model: SONiC 'traditional' (static lookup) or 'dynamic' (formula), §1.3-1.4."""

    model: Literal["static", "dynamic"] = Field(
        default="static", description="static: headroom from lookup rows; dynamic: computed per port (formula)"
    )
    lossless_mtu: Bytes = Field(
        default=1024,
        description="MTU of the lossless traffic in the headroom formula (LOSSLESS_TRAFFIC_PATTERN mtu)",
        examples=[4096],
    )
    small_packet_percent: Percent = Field(
        default=50,
        description="share of small packets the headroom formula assumes (small_packet_percentage)",
        examples=[100],
    )
    shared_headroom_pool: bool = Field(
        default=False, description="share headroom between ports (over-subscribed)", examples=[True]
    )
    over_subscribe_ratio: OverSubscribeRatio | None = Field(
        default=None,
        description=(
            "dynamic model: shared headroom pool sized as the lossless PGs' xoff / this ratio "
            "(SONiC DEFAULT_LOSSLESS_BUFFER_PARAMETER over_subscribe_ratio); turns the shared pool on"
        ),
        examples=[2],
    )
    gearbox_delay_ns: GearboxDelayNs = Field(
        default=0,
        description="delay of the switch's gearbox (external PHY) in ns, added twice to the headroom formula's "
        "propagation delay (SONiC STATE_DB PERIPHERAL_TABLE gearbox_delay); 0: no gearbox",
        examples=[700],
    )
    cable_rounding: Literal["exact", "up"] = Field(
        default="exact",
        description="static model: a cable length with no lookup row is an error (exact) or takes the row of the"
        " nearest longer cable (up; the plan names the row used)",
        examples=["up"],
    )
    dynamic_th: DynamicTh = Field(
        default=0,
        description="lossless profiles' dynamic threshold: alpha = 2^dynamic_th of the free pool",
        examples=[-2],
    )
    headroom_rows: list[HeadroomRow] = Field(
        default_factory=list,
        description="site rows that extend the ASIC's headroom lookup table",
        examples=[
            [{"asics": ["tomahawk5"], "speed": "400G", "cable": "40m", "xon": 18432, "xoff": 171008, "size": 189440}]
        ],
    )

    @model_validator(mode="after")
    def _ratio_is_dynamic(self) -> Self:
        # SONiC reads over_subscribe_ratio only in the dynamic model (buffers_config.j2 writes it there).
        if self.over_subscribe_ratio is not None and self.model != "dynamic":
            raise ValueError("over_subscribe_ratio needs model dynamic (allowed: model: dynamic, or remove it)")
        return self


class CableLengths(IntentModel):
    """Default cable length per link role, used where a link gives none (SONiC ports2cable, §1.3)."""

    host_leaf: CableMetres = Field(default=5, description="host-to-leaf cables")
    leaf_spine: CableMetres = Field(default=40, description="leaf-to-spine cables")
    spine_super_spine: CableMetres = Field(default=300, description="spine-to-super-spine cables")


class QosPolicy(IntentModel):
    """A network's QoS policy: classes, CNP, PFC watchdog, buffers, cable defaults."""

    trust: Literal["dscp", "pcp"] = Field(default="dscp", description="classify on DSCP (L3) or PCP (802.1p)")
    classes: dict[str, TrafficClassSpec] = Field(min_length=1, description="the traffic classes, by name")
    default_class: str = Field(description="class that takes every DSCP no class lists")
    cnp_class: str | None = Field(default=None, description="class carrying DCQCN congestion notifications")
    roce_class: str | None = Field(
        default=None,
        description="class RoCE data uses (host TOS, NCCL_IB_TC); defaults to the first lossless class",
        examples=["rdma"],
    )
    max_lossless_classes: LosslessLimit = Field(
        default=2, description="most lossless classes the policy may have", examples=[2]
    )
    pfc_watchdog: PfcWatchdog = Field(default_factory=PfcWatchdog, description="PFC storm detection and action")
    congestion_control: CongestionControl = Field(
        default_factory=CongestionControl,
        description="congestion-control profile: dcqcn (default), pfc-only, ecn-only or custom (docs/designs.md)",
        examples=[{"profile": "pfc-only"}],
    )
    buffers: Buffers = Field(default_factory=Buffers, description="buffer model and headroom")
    cable_lengths: CableLengths = Field(
        default_factory=CableLengths, description="cable length per link role where a link gives none"
    )

    @property
    def lossless_classes(self) -> dict[str, TrafficClassSpec]:
        return {n: c for n, c in self.classes.items() if c.lossless}

    @property
    def rdma_class(self) -> str | None:
        if self.roce_class is not None:
            return self.roce_class
        return next(iter(self.lossless_classes), None)

    @property
    def lossless_priorities(self) -> list[int]:
        return sorted({c.priority for c in self.classes.values() if c.lossless})
