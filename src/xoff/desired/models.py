"""FabricState: the vendor-neutral desired (or observed) state of every device.

THE contract of xoff: builders produce it from intent, renderers read it, parsers of running
state produce it, checks compare two of them. Values only, no vendor syntax; maps keyed by
integers (DSCP, priority, queue) serialise with string keys and read back as integers.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


class State(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


S = TypeVar("S", bound=State)
# What ``planned`` needs per (model, names given), worked out once: the fields in declaration order with their
# defaults, the default factories of the fields not given, and the one fields-set the instances share (a set per
# instance is ~0.7 KiB: a million interfaces at 100k GPUs).
_Shape = tuple[dict[str, Any], tuple[tuple[str, Any], ...], set[str]]
_SHAPES: dict[tuple[type[State], tuple[str, ...]], _Shape] = {}


def _shape(key: tuple[type[State], tuple[str, ...]]) -> _Shape:
    cls, names = key
    fields = cls.__pydantic_fields__
    unknown = set(names) - set(fields)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")  # what extra="forbid" would say
    template = {name: info.default for name, info in fields.items()}
    factories = tuple(
        (n, i.default_factory) for n, i in fields.items() if i.default_factory is not None and n not in names
    )
    shape = _SHAPES[key] = (template, factories, set(names))
    return shape


def planned(cls: type[S], /, **values: Any) -> S:
    """A model from values the builders computed out of already-validated intent, without validating them again.

    What ``cls(**values)`` builds (``tests/desired/test_planned.py`` holds a whole plan equal to its re-validated
    dump), in less time and memory: instances built from the same names share one fields-set. The values must
    already be what validation gives (lists, not tuples; ints, not strings). Parsers of what devices say and
    everything a user writes still validate."""
    key = (cls, tuple(values))
    template, factories, given = _SHAPES.get(key) or _shape(key)
    data = {**template, **values}  # every field in declaration order, as validation leaves them
    for name, factory in factories:
        data[name] = factory()
    m = _new(cls)
    _set_dict(m, data)
    _set_fields_set(m, given)
    _set_extra(m, None)
    _set_private(m, None)
    return m


class Planned(Generic[S]):
    """``planned`` for one of the plan's hottest shapes (at 100k GPUs: 600,000 cable-end peers, as many cabled
    interfaces, 400,000 BGP neighbours), at about half the cost per instance: ``of`` takes a new dict of every field
    of ``cls`` in declaration order (what validation leaves; the order is the JSON's), with the values of the fields
    not in ``given`` at their defaults. ``tests/desired/test_planned.py`` holds each shape's instances equal to their
    re-validated JSON, byte for byte."""

    def __init__(self, cls: type[S], /, *given: str) -> None:
        template, _, self.given = _SHAPES.get((cls, given)) or _shape((cls, given))
        self.cls, self.fields = cls, tuple(template)

    def of(self, data: dict[str, Any]) -> S:
        m = _new(self.cls)
        _set_dict(m, data)
        _set_fields_set(m, self.given)
        _set_extra(m, None)
        _set_private(m, None)
        return m


# what pydantic's own model_construct sets, bypassing the frozen model's __setattr__; the slots' own setters, found
# once, cost less than a lookup by name per instance (2.8 million instances at 100k GPUs)
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class Peer(State):
    device: str
    port: str


class Interface(State):
    name: str
    kind: Literal["ethernet", "loopback", "mgmt", "infiniband"]
    speed_mbps: int | None = None
    mtu: int | None = None
    admin_up: bool = True
    addresses: list[str] = Field(default_factory=list, description="IPv4 interface addresses, a.b.c.d/len")
    peer: Peer | None = None
    cable_m: int | None = None
    link_role: str | None = None
    network: str | None = None
    pfc_priorities: list[int] = Field(default_factory=list, description="priorities with PFC (lossless) on this port")
    pfc_watchdog: bool = False
    vrf: str | None = Field(default=None, description="the VRF the port is bound to (a tenant's); None: the default")


class BgpNeighbor(State):
    address: str
    remote_asn: int
    peer: str
    interface: str


class StaticRoute(State):
    """A static route: ``prefix`` via ``next_hop``, out of ``interface``; several with one prefix are ECMP."""

    prefix: str = Field(description="a.b.c.d/len; 0.0.0.0/0 is a default route")
    next_hop: str = Field(description="the peer's address on the link")
    interface: str


class Bgp(State):
    asn: int
    router_id: str
    max_paths: int
    neighbors: list[BgpNeighbor]
    networks: list[str] = Field(description="prefixes this router originates")
    evpn: bool = Field(
        default=False, description="it carries l2vpn evpn (tenant VRFs' type-5 routes; a spine passes them on)"
    )


class Vrf(State):
    """A tenant's VRF on a switch: its BGP instance originates ``networks`` (its hosts' links)."""

    name: str
    tenant: str
    networks: list[str] = Field(default_factory=list, description="prefixes the VRF's BGP originates")
    lossless_priority: int | None = Field(default=None, description="the priority of the tenant's lossless class")
    share_lossless: bool = Field(default=False, description="the intent lets it share a lossless PG with others")
    vni: int | None = Field(default=None, description="its L3 VNI (VXLAN-EVPN across the spines); None: leaf-local")
    route_target: str | None = Field(
        default=None, description="the route target its type-5 routes carry and import (VNI:VNI), with vni"
    )


class Scheduler(State):
    type: Literal["strict", "dwrr"]
    weight: int | None = None


class Ecn(State):
    min_threshold: int
    max_threshold: int
    probability: int


class TrafficClassPlan(State):
    name: str
    dscp: list[int]
    priority: int
    traffic_class: int
    queue: int
    priority_group: int
    lossless: bool


class Qos(State):
    """Classification, PFC and scheduling, identical on every hop of a network."""

    policy: str
    trust: Literal["dscp", "pcp"]
    classes: list[TrafficClassPlan]
    dscp_to_tc: dict[int, int]
    tc_to_queue: dict[int, int]
    tc_to_priority_group: dict[int, int]
    pfc_priority_to_queue: dict[int, int]
    pfc_priority_to_priority_group: dict[int, int]
    lossless_priorities: list[int]
    cnp_dscp: int | None
    cnp_priority: int | None
    schedulers: dict[int, Scheduler] = Field(description="per egress queue")
    ecn: dict[int, Ecn] = Field(description="per egress queue with ECN marking")


class BufferPool(State):
    name: str
    type: Literal["ingress", "egress"]
    mode: Literal["static", "dynamic"]
    size: int | None = None
    xoff: int | None = Field(default=None, description="shared headroom pool size")


class BufferProfile(State):
    name: str
    pool: str
    xon: int
    xoff: int
    size: int
    xon_offset: int | None = None
    dynamic_th: int | None = None
    source: str = Field(description="the lookup row or formula the numbers came from")


class HeadroomRule(State):
    """A headroom row the intent gives for this switch's ASIC; it wins over the ASIC's own table."""

    speed_mbps: int
    cable_m: int
    xon: int
    xoff: int
    size: int
    xon_offset: int | None = None
    source: str = Field(description="where the intent gives the row")


class Buffers(State):
    model: Literal["static", "dynamic"]
    lossless_mtu: int
    small_packet_percent: int
    pools: list[BufferPool]
    profiles: dict[str, BufferProfile]
    port_priority_groups: dict[str, dict[str, str]] = Field(description="port -> PG or PG range -> profile")
    port_headroom_bytes: dict[str, int] = Field(description="port -> total headroom its lossless PGs reserve")
    headroom_rules: list[HeadroomRule] = Field(
        default_factory=list, description="the intent's headroom rows for this ASIC, used before the ASIC's table"
    )
    over_subscribe_ratio: int | None = Field(
        default=None, description="shared headroom pool over-subscription ratio (dynamic model); None: not set"
    )
    gearbox_delay_ns: int | None = Field(
        default=None, description="gearbox delay the headroom formula adds, ns; None: not known (not observed)"
    )
    sku: str | None = Field(default=None, description="the catalogue SKU whose table and pools the plan used")
    cable_rounding: Literal["exact", "up"] = Field(
        default="exact", description="static model: a cable with no row takes the nearest longer cable's row (up)"
    )


class PfcWatchdog(State):
    poll_interval_ms: int
    detection_ms: int
    restoration_ms: int
    action: Literal["drop", "forward", "alert"]
    ports: list[str]
    queues: list[int]


class Route(State):
    destination: str
    via: str
    device: str
    table: int


class Rule(State):
    source: str
    table: int
    priority: int


class RoceAccl(State):
    """The ConnectX/BlueField ``ROCE_ACCL`` access register fields xoff sets (``mlxreg --reg_name ROCE_ACCL``):
    ``roce_adp_retrans_en``, ``roce_tx_window_en``, ``roce_slow_restart_en``, ``roce_slow_restart_idle_en``,
    ``adaptive_routing_forced_en``. None: xoff leaves the field as it is (desired), or the NIC did not show it
    (observed: older firmware lacks the later fields)."""

    adaptive_retransmission: bool | None = None
    tx_window: bool | None = None
    slow_restart: bool | None = None
    slow_restart_idle: bool | None = None
    adaptive_routing_forced: bool | None = None


class HostNic(State):
    netdev: str
    rdma: str | None
    network: str
    rail: int | None
    gpu: int | None
    speed_mbps: int
    mtu: int
    address: str | None
    gateway: str | None
    trust: Literal["dscp", "pcp"] | None
    pfc: list[int] = Field(description="8 flags, priority 0..7, 1 = PFC on (mlnx_qos --pfc)")
    dscp_to_priority: dict[int, int]
    roce_mode: Literal["RoCE v2"] | None
    roce_tos: int | None = Field(description="TOS byte: DSCP << 2 | ECN (ECT(0) = 2)")
    ecn_np_priorities: list[int]
    ecn_rp_priorities: list[int]
    cnp_dscp: int | None
    cnp_priority: int | None
    roce_active_mtu: int | None = Field(description="IB MTU RoCE derives from the netdev MTU")
    roce_accl: RoceAccl | None = Field(
        default=None, description="the NIC's ROCE_ACCL register (mlxreg); None: xoff sets none of it"
    )


class GpuDirect(State):
    nvidia_peermem: bool
    acs_disabled: bool
    # "translated" (the IOMMU remaps DMA) is only ever observed: xoff never intends it
    iommu: Literal["off", "passthrough", "translated"]
    gdr_level: str
    gpu_nic: dict[int, str] = Field(description="GPU index -> its rail's RDMA device (must be PIX or PXB)")


class HostSettings(State):
    profile: str
    gpus: int
    nic_model: str
    nics: dict[str, HostNic]
    routes: list[Route]
    rules: list[Rule]
    nccl_env: dict[str, str]
    gpudirect: GpuDirect | None
    roce_adaptive_routing: bool | None = Field(
        default=None, description="the NICs accept out-of-order RoCE (adaptive routing); None: not observed"
    )


class Partition(State):
    name: str
    pkey: int
    members: list[str]
    membership: Literal["full", "limited"]
    ipoib: bool
    tenant: str | None = Field(default=None, description="the tenant the partition isolates (intent tenants)")
    service_level: int | None = Field(default=None, description="the partition's SL (partitions.conf sl=)")
    nics: dict[str, list[str]] = Field(
        default_factory=dict, description="host -> its HCAs (netdevs) in the partition; a host not here: all of them"
    )

    def holds(self, host: str, netdev: str) -> bool:
        """Whether the host's HCA ``netdev`` is a member."""
        return host in self.members and (host not in self.nics or netdev in self.nics[host])


class SubnetManager(State):
    routing_engine: list[str]
    no_fallback: bool
    sm_priority: int
    sweep_interval_s: int
    lmc: int
    root_guids: list[str]
    compute_node_guids: list[str]
    max_vls: int
    high_limit: int
    sl2vl: list[int]
    vlarb_high: list[tuple[int, int]]
    vlarb_low: list[tuple[int, int]]
    service_level: int
    partitions: list[Partition]


class LoadBalancing(State):
    """ECMP hashing and adaptive routing of one switch (intent ``load_balancing``)."""

    hash_fields: list[str] = Field(description="neutral field names, in the intent's order (src-ip, l4-src-port, ...)")
    seed: int | None = Field(default=None, description="ECMP hash seed; None leaves the NOS's own")
    seed_policy: Literal["same", "per-tier"] = "same"
    roce_qp_hash: bool = False
    adaptive_routing: bool = False
    adaptive_routing_ports: list[str] = Field(
        default_factory=list, description="fabric ports (toward other switches) with adaptive routing on"
    )


class Placement(State):
    """Where a device stands: the failure domains it belongs to (``xoff.desired.domains``)."""

    pod: int | None = None
    unit: int | None = Field(default=None, description="scalable unit (SU)")
    plane: int | None = None
    rack: str | None = None


class Device(State):
    name: str
    kind: Literal["switch", "host", "ib_switch"]
    platform: str
    role: str
    network: str | None = None
    asic: str | None = None
    hwsku: str | None = None
    guid: str | None = None
    mgmt_address: str
    interfaces: dict[str, Interface]
    bgp: Bgp | None = None
    qos: Qos | None = None
    buffers: Buffers | None = None
    pfc_watchdog: PfcWatchdog | None = None
    static_routes: list[StaticRoute] = Field(
        default_factory=list, description="static routes (administrative distance 1: they win over eBGP)"
    )
    vrfs: list[Vrf] = Field(default_factory=list, description="tenant VRFs (the default VRF is not listed)")
    host: HostSettings | None = None
    subnet_manager: SubnetManager | None = None
    placement: Placement | None = Field(default=None, description="failure domains (desired state only)")
    load_balancing: LoadBalancing | None = Field(
        default=None, description="ECMP hashing and adaptive routing; None: not set by the intent, or not observed"
    )


class Link(State):
    a: Peer
    b: Peer
    speed_mbps: int
    cable_m: int
    role: str
    network: str


class CongestionPlan(State):
    """A RoCE network's congestion-control profile and the knobs it turns on (xoff.intent.congestion)."""

    profile: Literal["dcqcn", "pfc-only", "ecn-only", "custom"]
    pfc: bool
    ecn: bool
    nic_dcqcn: bool
    pfc_watchdog: bool
    departures: list[str] = Field(default_factory=list, description="where the knobs depart from the vendor default")


class NetworkPlan(State):
    """Fabric-wide facts about one network, computed once."""

    kind: Literal["management", "roce", "infiniband"]
    qos_policy: str | None
    lossless_priorities: list[int]
    roce_dscp: int | None
    roce_tos: int | None
    cnp_dscp: int | None
    devices: int
    p2p_prefix: str | None = Field(default=None, description="pool of the network's point-to-point /31s")
    loopback_prefix: str | None = Field(default=None, description="pool of the network's router loopbacks")
    congestion_control: CongestionPlan | None = Field(
        default=None, description="RoCE networks: the congestion-control profile (None: not RoCE)"
    )


class FabricState(State):
    schema_version: int = SCHEMA_VERSION
    fabric: str
    source: Literal["desired", "observed"] = "desired"
    networks: dict[str, NetworkPlan]
    links: list[Link]
    devices: dict[str, Device]
