"""The observed-state models: a snapshot, what was observed, in the FabricState model, plus what only running state has.

``observed`` has the same shape as desired (``source="observed"``), so drift is a value diff. The
extras hold facts intent does not describe. ``errors`` holds every collection or parse failure: a
device that could not be read is an error entry, never an empty (and so "clean") device. Raw
captures are kept beside the snapshot (``<snapshot>.raw/<device>/<command>.txt``) for audit.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from xoff.contracts.infiniband import IbObservation
from xoff.desired.models import FabricState

SNAPSHOT_VERSION = 1


class Observed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LldpNeighbor(Observed):
    port: str  # local port, as the intent names it
    neighbor: str  # system name the neighbour announces
    neighbor_port: str  # its port id / description, as the intent names it


class BgpSession(Observed):
    address: str
    remote_asn: int
    state: str  # "Established", "Active", "Idle", ...
    prefixes_received: int | None = None


class PfcCounters(Observed):
    rx_pause: dict[int, int] = Field(default_factory=dict, description="priority -> PFC frames received")
    tx_pause: dict[int, int] = Field(default_factory=dict, description="priority -> PFC frames sent")


class QueueCounters(Observed):
    packets: int = 0
    bytes: int = 0
    dropped_packets: int = 0
    dropped_bytes: int = 0


class WatchdogCounters(Observed):
    storms_detected: int = 0
    storms_restored: int = 0


class PortCounters(Observed):
    pfc: PfcCounters = Field(default_factory=PfcCounters)
    queues: dict[int, QueueCounters] = Field(default_factory=dict, description="egress queue -> counters")
    watchdog: dict[int, WatchdogCounters] = Field(default_factory=dict, description="queue -> PFC watchdog events")


class GpuNicPath(Observed):
    gpu: int
    nic: str  # RDMA device, e.g. mlx5_0
    relation: str  # nvidia-smi topo -m: X, PIX, PXB, PHB, NODE, SYS, NV#


class HostObserved(Observed):
    modules: list[str] = Field(default_factory=list, description="loaded kernel modules (lsmod)")
    acs_enabled_bridges: list[str] = Field(
        default_factory=list, description="PCI bridges with ACS source validation / redirect on"
    )
    gpu_nic_paths: list[GpuNicPath] = Field(default_factory=list)


class FibRoute(Observed):
    """One installed route of a switch's forwarding table (``show ip route`` of the NOS)."""

    prefix: str  # IPv4 network, e.g. 198.18.4.8/31
    protocol: str  # as the NOS names it: connected, bgp / eBGP, static, kernel
    ports: list[str] = Field(
        default_factory=list, description="egress ports (intent names), sorted; empty: local or a blackhole"
    )


class CollectError(Observed):
    device: str
    command: str | None
    kind: Literal["unreachable", "auth", "host_key", "timeout", "command", "parse"]
    message: str  # one line, secrets masked


class Snapshot(Observed):
    snapshot_version: int = SNAPSHOT_VERSION
    fabric: str
    collected_at: str  # ISO 8601, UTC
    observed: FabricState
    observed_fields: dict[str, list[str]] = Field(
        default_factory=dict,
        description="device -> the Device field paths read from it (``interfaces.*.mtu``, ``qos.dscp_to_tc``); "
        "every other field of that observed device is a copy of desired (not observable on its platform): "
        "compare only these",
    )
    lldp: dict[str, list[LldpNeighbor]] = Field(default_factory=dict, description="device -> neighbours")
    bgp_sessions: dict[str, list[BgpSession]] = Field(default_factory=dict, description="device -> sessions")
    counters: dict[str, dict[str, PortCounters]] = Field(default_factory=dict, description="device -> port -> counters")
    hosts: dict[str, HostObserved] = Field(default_factory=dict)
    fib: dict[str, list[FibRoute]] = Field(
        default_factory=dict, description="switch -> its installed IPv4 routes (the deadlock check's forwarding)"
    )
    infiniband: IbObservation | None = Field(
        default=None, description="the InfiniBand observation (read by infiniband-diags on the subnet manager host)"
    )
    errors: list[CollectError] = Field(default_factory=list)
    lab_only: list[str] = Field(
        default_factory=list, description="what the lab cannot show (e.g. PFC in a data plane), named in reports"
    )
