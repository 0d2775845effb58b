"""Shape of the EOS structured config: key names and nesting follow AVD's ``eos_cli_config_gen``.

Where AVD offers a key only inside ``qos_profiles`` (``tx_queues[].priority``,
``tx_queues[].bandwidth_percent``, ``priority_flow_control.watchdog.enabled``), xoff puts the same key
on the interface, because it configures each port directly (reference/lossless.md §3.1: "qos profile
ROCE ! or directly under interface EthernetX"). Unlike AVD, every key is always present: ``None``
or an empty list means "not configured", so the strict templates never guess.
"""

from __future__ import annotations

from typing import TypedDict


class EcnThreshold(TypedDict):
    units: str  # bytes
    min: int
    max: int
    max_probability: int


class RandomDetectEcn(TypedDict):
    threshold: EcnThreshold


class RandomDetect(TypedDict):
    ecn: RandomDetectEcn


class TxQueue(TypedDict):
    id: int
    priority: str | None  # "priority strict" | "no priority" (AVD's valid values)
    bandwidth_percent: int | None
    random_detect: RandomDetect | None


class PfcPriority(TypedDict):
    priority: int
    no_drop: bool


class PfcWatchdogPort(TypedDict):
    enabled: bool


class InterfacePfc(TypedDict):
    enabled: bool
    priorities: list[PfcPriority]
    watchdog: PfcWatchdogPort


class InterfaceQos(TypedDict):
    trust: str  # dscp | cos


class Switchport(TypedDict):
    enabled: bool


class EthernetInterface(TypedDict):
    name: str
    description: str | None
    shutdown: bool
    mtu: int | None
    speed: str | None
    switchport: Switchport
    vrf: str | None  # a tenant's VRF (AVD ethernet_interfaces[].vrf)
    ip_address: str | None
    ip_address_secondaries: list[str]
    qos: InterfaceQos | None
    priority_flow_control: InterfacePfc | None
    tx_queues: list[TxQueue]


class AddressedInterface(TypedDict):
    """A loopback or management interface."""

    name: str
    ip_address: str | None
    ip_address_secondaries: list[str]


class QosMap(TypedDict):
    cos: list[str]  # "3 to traffic-class 3"
    dscp: list[str]  # "26 to traffic-class 3"


class Qos(TypedDict):
    map: QosMap


class GlobalWatchdog(TypedDict):
    timeout: str  # seconds, up to 2 decimals
    recovery_time: str  # seconds, up to 2 decimals
    polling_interval: str  # seconds, up to 3 decimals
    action: str  # drop | errdisable | notify-only


class PriorityFlowControl(TypedDict):
    watchdog: GlobalWatchdog


class MaximumPaths(TypedDict):
    paths: int
    ecmp: int


class BgpNeighbor(TypedDict):
    ip_address: str
    remote_as: str
    description: str
    send_community: str | None  # "extended" where the session carries EVPN (route targets are extended communities)


class BgpNetwork(TypedDict):
    prefix: str


class AddressFamilyIpv4(TypedDict):
    networks: list[BgpNetwork]


class BgpVrf(TypedDict):
    """A tenant VRF in ``router bgp`` (AVD router_bgp.vrfs[]); ``rd`` and ``route_target`` with an L3 VNI."""

    name: str
    rd: str | None
    route_target: str | None  # imported and exported for evpn
    router_id: str
    address_family_ipv4: AddressFamilyIpv4


class AddressFamilyEvpn(TypedDict):
    """``address-family evpn`` (AVD router_bgp.address_family_evpn): the sessions that carry it, and on a
    switch with no VTEP (a spine) ``bgp next-hop-unchanged`` so the leaves see the far VTEP as next hop."""

    next_hop_unchanged: bool
    neighbors: list[str]


class VxlanVrf(TypedDict):
    name: str
    vni: int


class VxlanInterface(TypedDict):
    """``interface Vxlan1`` (AVD vxlan_interface.vxlan1.vxlan): the VTEP and each tenant VRF's L3 VNI."""

    source_interface: str
    udp_port: int
    vrfs: list[VxlanVrf]


class VrfInstance(TypedDict):
    """``vrf instance NAME`` and its ``ip routing vrf NAME`` (AVD vrfs[] with ip_routing)."""

    name: str
    ip_routing: bool


# Functional syntax: "as" is a Python keyword.
RouterBgp = TypedDict(
    "RouterBgp",
    {
        "as": str,
        "router_id": str,
        "maximum_paths": MaximumPaths,
        "neighbors": list[BgpNeighbor],
        "address_family_evpn": AddressFamilyEvpn | None,
        "address_family_ipv4": AddressFamilyIpv4,
        "vrfs": list[BgpVrf],
    },
)


class StaticRoute(TypedDict):
    prefix: str
    interface: str
    next_hop: str


class IpLoadSharing(TypedDict):
    """``ip load-sharing <hardware> fields ip|ipv6 <fields>``: the ECMP hash fields (EOS keywords)."""

    hardware: str
    ip: list[str]
    ipv6: list[str]


class StructuredConfig(TypedDict):
    """One device; the keys are in running-config order (as AVD's eos-intended-config.j2 orders them)."""

    hostname: str
    vrfs: list[VrfInstance]
    ethernet_interfaces: list[EthernetInterface]
    loopback_interfaces: list[AddressedInterface]
    management_interfaces: list[AddressedInterface]
    vxlan_interface: VxlanInterface | None
    ip_routing: bool
    ip_load_sharing: IpLoadSharing | None
    static_routes: list[StaticRoute]
    qos: Qos | None
    priority_flow_control: PriorityFlowControl | None
    router_bgp: RouterBgp | None
