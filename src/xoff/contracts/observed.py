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
from xoff.desired.models import Ecn, FabricState, Scheduler

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
    """One egress queue's counters; None where the device printed N/A or "-" (not observed, never 0)."""

    packets: int | None = None
    bytes: int | None = None
    dropped_packets: int | None = None
    dropped_bytes: int | None = None
    ecn_marked_packets: int | None = Field(default=None, description="packets ECN-marked (CE) on this queue")


class BufferWatermarks(Observed):
    """Peak buffer use a switch recorded (bytes), per priority group; empty: not read."""

    pg_headroom: dict[int, int] = Field(default_factory=dict, description="priority group -> headroom watermark")
    pg_shared: dict[int, int] = Field(default_factory=dict, description="priority group -> shared watermark")


class WatchdogCounters(Observed):
    """One queue's PFC watchdog events; None where the device did not print the count (not observed, never 0)."""

    storms_detected: int | None = None
    storms_restored: int | None = None


class PortCounters(Observed):
    pfc: PfcCounters = Field(default_factory=PfcCounters)
    queues: dict[int, QueueCounters] = Field(default_factory=dict, description="egress queue -> counters")
    watchdog: dict[int, WatchdogCounters] = Field(default_factory=dict, description="queue -> PFC watchdog events")
    watermarks: BufferWatermarks | None = Field(default=None, description="None: not read on this platform")


class PortSettings(Observed):
    """What one switch port really holds where a device can set it per port or per queue.

    The observed Device carries one value per device (the most common one); a device whose ports differ
    says so here, port by port, and drift compares each port with what the intent means for it. Every field is
    None when it was not observed on that port.
    """

    pfc_priorities: list[int] | None = None
    watchdog_action: str | None = None
    watchdog_detection_ms: int | None = None
    watchdog_restoration_ms: int | None = None
    trust: str | None = None
    dscp_to_tc: dict[int, int] | None = None
    schedulers: dict[int, Scheduler] | None = Field(default=None, description="egress queue -> scheduler")
    ecn: dict[int, Ecn] | None = Field(default=None, description="egress queue -> ECN marking")


class GpuNicPath(Observed):
    gpu: int
    nic: str  # RDMA device, e.g. mlx5_0
    relation: str  # nvidia-smi topo -m: X, PIX, PXB, PHB, NODE, SYS, NV#


class RoceGid(Observed):
    """One GID table entry of an RDMA port (``show_gids``, or sysfs ``ports/N/gids/I`` + ``gid_attrs``)."""

    rdma: str  # mlx5_0
    port: int
    index: int
    gid: str  # fe80:0000:...:  or 0000:...:ffff:c612:0101
    ipv4: str | None = None  # the IPv4 address of an IPv4-mapped GID
    version: Literal["v1", "v2"] | None = None  # "IB/RoCE v1" or "RoCE v2"
    netdev: str | None = None


class NicQos(Observed):
    """``mlnx_qos -i NETDEV`` beyond trust, PFC and the DSCP map (those are the Device's ``host.nics``).

    None: not printed by this tool version or not read.
    """

    priority_to_tc: dict[int, int] | None = None
    tc_tsa: dict[int, str] | None = Field(default=None, description="traffic class -> ets / strict / vendor")
    tc_bandwidth: dict[int, int] | None = Field(default=None, description="traffic class -> ETS percent")
    priority_to_buffer: dict[int, int] | None = None
    buffer_sizes: list[int] | None = Field(default=None, description="receive buffer sizes, bytes")
    cable_length_m: int | None = None


class IbPortState(Observed):
    """One InfiniBand HCA port as ``ibstat`` on the host shows it."""

    ca: str  # mlx5_0
    port: int
    state: str  # Active, Down, Initializing, Armed
    physical_state: str  # LinkUp, Polling, Disabled
    rate: int | None = None  # Gb/s
    base_lid: int | None = None
    sm_lid: int | None = None
    port_guid: str | None = None
    link_layer: str | None = None  # InfiniBand, Ethernet


class HostObserved(Observed):
    modules: list[str] = Field(default_factory=list, description="loaded kernel modules (lsmod)")
    acs_enabled_bridges: list[str] = Field(
        default_factory=list, description="PCI bridges with ACS source validation / redirect on"
    )
    gpu_nic_paths: list[GpuNicPath] = Field(default_factory=list)
    gids: list[RoceGid] | None = Field(default=None, description="RDMA GID tables; None: not read")
    nic_qos: dict[str, NicQos] = Field(default_factory=dict, description="netdev -> mlnx_qos facts; absent: not read")
    ib_ports: list[IbPortState] | None = Field(default=None, description="ibstat; None: not read")
    sm_lid: int | None = Field(default=None, description="the master SM's LID as sminfo on this host reports it")
    sm_state: str | None = Field(
        default=None,
        description="sminfo's state of the SM at sm_lid (SMINFO_MASTER, SMINFO_STANDBY, ...); None: not read",
    )


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
    intent_sha256: str | None = Field(
        default=None,
        description="the intent the snapshot was collected under (xoff.intent.fingerprint); None: not recorded "
        "(a snapshot older than the field)",
    )
    xoff_version: str | None = Field(default=None, description="the xoff that collected it; None: not recorded")
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
    port_settings: dict[str, dict[str, PortSettings]] = Field(
        default_factory=dict,
        description="device -> port -> its own settings, where a device's ports differ from each other (drift names the port)",
    )
    buffer_pool_watermarks: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="device -> buffer pool -> peak bytes used (SONiC `show buffer_pool watermark`)",
    )
    unmodelled: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="device -> what it showed that xoff does not model (a table, `TABLE.field`, a command's key) -> "
        "how many times; kept, never a reason to refuse the device (the raw text stays in the captures)",
    )
    errors: list[CollectError] = Field(default_factory=list)
    lab_only: list[str] = Field(
        default_factory=list, description="what the lab cannot show (e.g. PFC in a data plane), named in reports"
    )
    captures_absent: dict[str, list[str]] = Field(
        default_factory=dict,
        description="collect --from-captures: device -> the commands that had no capture (not observed, not an error)",
    )
    shard: str | None = Field(
        default=None,
        description="collect --shard: which part of the fabric this is, 'K/N' or 'K/N by KIND' (snapshot merge checks "
        "that every part is there once); None: the whole fabric (or a merge of every part)",
    )
    address_map: list[tuple[str, str]] = Field(
        default_factory=list,
        description="the address map the state was collected under (a lab's --remap: source block -> lab block); "
        "validate --snapshot maps the intent's addresses the same way before comparing (xoff.desired.addressmap)",
    )
