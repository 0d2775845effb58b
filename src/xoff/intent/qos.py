"""QoS policies: the lossless plan for a network (reference/lossless.md §0, §1.2, §1.5, §6)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from xoff.intent.base import IntentModel
from xoff.intent.types import (
    Bytes,
    CableMetres,
    DetectionMs,
    Dscp,
    DynamicTh,
    LosslessLimit,
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

    min_threshold: Bytes
    max_threshold: Bytes
    probability: Percent = 100

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

    type: Literal["strict", "dwrr"] = "dwrr"
    weight: Weight | None = None

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
    traffic_class: TrafficClass | None = Field(default=None, description="defaults to the priority")
    queue: QueueId | None = Field(default=None, description="egress queue; defaults to the traffic class")
    lossless: bool = False
    ecn: Ecn | None = None
    scheduler: Scheduler = Field(default_factory=lambda: Scheduler(type="dwrr", weight=1))

    @property
    def tc(self) -> int:
        return self.priority if self.traffic_class is None else self.traffic_class

    @property
    def egress_queue(self) -> int:
        return self.tc if self.queue is None else self.queue


class PfcWatchdog(IntentModel):
    """PFC watchdog; SONiC's defaults and ranges (reference/lossless.md §1.1, §1.5)."""

    enabled: bool = True
    poll_interval_ms: PollIntervalMs = 200
    detection_ms: DetectionMs = 200
    restoration_ms: RestorationMs = 200
    action: Literal["drop", "forward", "alert"] = "drop"

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

    ``asics`` ties the row to the switches of those ASICs; without it the row applies to every switch."""

    asics: list[str] | None = Field(
        default=None,
        min_length=1,
        description="ASICs the row applies to (as a switch's asic: spectrum4, tomahawk5, ...); absent: every ASIC",
    )
    speed: SpeedMbps
    cable: CableMetres
    xon: Bytes
    xoff: Bytes
    size: Bytes
    xon_offset: Bytes | None = None


class Buffers(IntentModel):
    """The buffer model: SONiC 'traditional' (static lookup) or 'dynamic' (formula), §1.3-1.4."""

    model: Literal["static", "dynamic"] = "static"
    lossless_mtu: Bytes = 1024
    small_packet_percent: Percent = 50
    shared_headroom_pool: bool = False
    dynamic_th: DynamicTh = 0
    headroom_rows: list[HeadroomRow] = Field(default_factory=list)


class CableLengths(IntentModel):
    """Default cable length per link role, used where a link gives none (SONiC ports2cable, §1.3)."""

    host_leaf: CableMetres = 5
    leaf_spine: CableMetres = 40
    spine_super_spine: CableMetres = 300


class QosPolicy(IntentModel):
    """A network's QoS policy: classes, CNP, PFC watchdog, buffers, cable defaults."""

    trust: Literal["dscp", "pcp"] = "dscp"
    classes: dict[str, TrafficClassSpec] = Field(min_length=1)
    default_class: str = Field(description="class that takes every DSCP no class lists")
    cnp_class: str | None = Field(default=None, description="class carrying DCQCN congestion notifications")
    roce_class: str | None = Field(
        default=None,
        description="class RoCE data uses (host TOS, NCCL_IB_TC); defaults to the first lossless class",
    )
    max_lossless_classes: LosslessLimit = 2
    pfc_watchdog: PfcWatchdog = Field(default_factory=PfcWatchdog)
    buffers: Buffers = Field(default_factory=Buffers)
    cable_lengths: CableLengths = Field(default_factory=CableLengths)

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
