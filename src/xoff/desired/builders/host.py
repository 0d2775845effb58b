"""GPU host settings: ConnectX QoS, RoCE knobs, addressing, NCCL and GPUDirect (reference §4)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from ipaddress import IPv4Network
from typing import Any

from xoff.desired.builders.qos import cnp, dscp_to_priority, roce_tos
from xoff.desired.facts import Facts
from xoff.desired.models import GpuDirect, HostNic, HostSettings, Interface, Planned, RoceAccl, Route, Rule, planned
from xoff.intent.networks import InfinibandNetwork, RoceNetwork
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Host, Nic

# The NIC side of adaptive routing: NVIDIA's Spectrum-X reference architecture as NVIDIA's NIC Configuration Operator
# applies it (Mellanox/nic-configuration-operator bindata/spectrum-x/RA2.0.yaml, RA2.1.yaml "adaptiveRouting":
# adaptive retransmission and TX window on, slow restart and slow restart on idle off, adaptive routing forced on)
SPECTRUM_X_AR = RoceAccl(
    adaptive_retransmission=True,
    tx_window=True,
    slow_restart=False,
    slow_restart_idle=False,
    adaptive_routing_forced=True,
)
# Lossy RoCE (no PFC): NVIDIA's "lossy RoCE accelerations", adaptive retransmission, TX window and slow restart
# (NVIDIA developer forum, "Error checking lossy RoCE acceleration state"; ROCE_ACCL field descriptions on
# docs.nvidia.com "Adaptive Retransmission: Parameters Control"). The other fields are left as the firmware has them.
LOSSY_ROCE = RoceAccl(adaptive_retransmission=True, tx_window=True, slow_restart=True)

ROCE_HEADERS = 96  # GRH+UDP+BTH+XRC+AtomicETH+ICRC: netdev MTU minus this bounds the RoCE MTU (§4.3)
IB_MTUS = (4096, 2048, 1024, 512, 256)
# An HCA's IPoIB netdev (ib0) in datagram mode, the only mode of enhanced IPoIB (ConnectX-4 and later):
# the 4096-byte IB MTU less the 4-byte IPoIB header
IPOIB_DATAGRAM_MTU = 4092
RAIL_TABLE_BASE = 100  # one policy-routing table per RDMA NIC, so each rail answers from its own port
# the shapes of a NIC's interface, its rail's routes and its rule: 100,000 NICs at 100k GPUs
_NIC_PORT = Planned(
    Interface,
    *("name", "kind", "speed_mbps", "mtu", "addresses", "peer", "cable_m", "link_role", "network", "pfc_priorities"),
)
_ROUTE = Planned(Route, "destination", "via", "device", "table")
_NIC = Planned(HostNic, *(f for f in HostNic.model_fields if f != "roce_accl"))  # an InfiniBand HCA's: none set
_NIC_WITH_ACCL = Planned(HostNic, *HostNic.model_fields)
_RULE = Planned(Rule, "source", "table", "priority")


def roce_active_mtu(netdev_mtu: int) -> int | None:
    return next((m for m in IB_MTUS if m <= netdev_mtu - ROCE_HEADERS), None)


def dcqcn_priorities(policy: QosPolicy) -> list[int]:
    """The priorities the NICs run DCQCN (ECN NP and RP) on: the lossless ones, or the RoCE class's priority where
    there is no PFC (ecn-only); none where the profile turns the NICs' DCQCN off (pfc-only)."""
    knobs = policy.congestion_control.knobs
    if not knobs.nic_dcqcn:
        return []
    if knobs.pfc:
        return sorted(policy.lossless_priorities)
    roce = policy.classes.get(policy.rdma_class or "")
    return [] if roce is None else [roce.priority]


def roce_accl(policy: QosPolicy, host: Host, nic: Nic) -> RoceAccl | None:
    """The NIC's ROCE_ACCL fields: Spectrum-X's where the host profile takes adaptive routing (its NICs accept RoCE
    out of order), the lossy-RoCE accelerations where the profile runs no PFC, none otherwise (the firmware's)."""
    if nic.rdma is None:
        return None
    if host.profile.roce_adaptive_routing:
        return SPECTRUM_X_AR
    return None if policy.congestion_control.knobs.pfc else LOSSY_ROCE


@dataclass(frozen=True, slots=True)
class _NicKind:
    """What NICs alike (network, MTU, RDMA or not, adaptive routing) share: worked out once for 100,000 NICs."""

    shape: Planned[HostNic]  # with or without roce_accl given, as the settings have it
    mtu: int
    settings: dict[str, Any]  # HostNic's fields after its gateway
    interface_kind: str
    pfc_priorities: list[int]  # its interface's
    rail_destinations: tuple[str, str] | None  # what its rail's table routes via its leaf (RoCE)


def _nic_kind(facts: Facts, host: Host, nic: Nic) -> _NicKind:
    settings = _nic_settings(facts, host, nic)
    mtu = settings.pop("mtu")
    assert isinstance(mtu, int)
    pfc_on = tuple(p for p in range(8) if settings["pfc"][p])
    net = getattr(facts.intent.document.networks, nic.network)
    return _NicKind(
        _NIC_WITH_ACCL if "roce_accl" in settings else _NIC,
        mtu,
        settings if "roce_accl" in settings else {**settings, "roce_accl": None},
        "infiniband" if settings["roce_mode"] is None else "ethernet",
        facts.shared(("pfc_priorities", *pfc_on), partial(list, pfc_on)),
        facts.shared(("rail routes", nic.network), partial(_rail_destinations, net))
        if isinstance(net, RoceNetwork)
        else None,
    )


def _nic_settings(facts: Facts, host: Host, nic: Nic) -> dict[str, Any]:
    """A NIC's settings past its own names and addresses: the same for every NIC of a network with the same MTU, RDMA
    or not, and adaptive routing or not (``roce_accl``), so worked out once for 100,000 NICs."""
    doc = facts.intent.document
    net = getattr(doc.networks, nic.network)
    if not isinstance(net, RoceNetwork):  # an InfiniBand HCA: no Ethernet QoS, the SM programs SL2VL
        return {
            "mtu": nic.mtu or IPOIB_DATAGRAM_MTU,
            "trust": None,
            "pfc": facts.shared("ib pfc", lambda: [0] * 8),
            "dscp_to_priority": facts.shared("ib dscp_to_priority", dict),
            "roce_mode": None,
            "roce_tos": None,
            "ecn_np_priorities": [],
            "ecn_rp_priorities": [],
            "cnp_dscp": None,
            "cnp_priority": None,
            "roce_active_mtu": None,
        }
    name = net.qos_policy
    policy = doc.qos_policies[name]
    mtu = nic.mtu or net.host_mtu
    cnp_dscp, cnp_priority = cnp(policy)
    dcqcn = facts.shared(("dcqcn", name), lambda: dcqcn_priorities(policy))
    return {
        "mtu": mtu,
        "trust": policy.trust,
        "pfc": facts.shared(("pfc", name), lambda: _pfc_flags(policy)),
        # all 64: a DSCP left out keeps the NIC default (DSCP >> 3), which would send 24-31 to
        # priority 3 on the host while the switches put them in the default class
        "dscp_to_priority": facts.shared(("dscp_to_priority", name), lambda: dscp_to_priority(policy)),
        "roce_mode": "RoCE v2",
        "roce_tos": roce_tos(policy),
        "ecn_np_priorities": dcqcn,
        "ecn_rp_priorities": dcqcn,
        "cnp_dscp": cnp_dscp,
        "cnp_priority": cnp_priority,
        "roce_active_mtu": roce_active_mtu(mtu),
        "roce_accl": roce_accl(policy, host, nic),
    }


def _pfc_flags(policy: QosPolicy) -> list[int]:
    lossless = policy.lossless_priorities
    return [1 if p in lossless else 0 for p in range(8)]


def build_host(facts: Facts, host: Host) -> tuple[HostSettings, dict[str, Interface]]:
    doc = facts.intent.document
    cabled = {port: (link, peer, texts) for link, port, _, peer, texts in facts.links_of.get(host.name, [])}
    kinds: dict[tuple[str, int | None, bool, bool], _NicKind] = facts.shared("nic kinds", dict)
    roce_ar = bool(host.profile.roce_adaptive_routing)
    nics: dict[str, HostNic] = {}
    routes: list[Route] = []
    rules: list[Rule] = []
    interfaces: dict[str, Interface] = {}
    for k, (name, nic) in enumerate(host.nics.items()):
        alike = (nic.network, nic.mtu, nic.rdma is None, roce_ar)
        kind = kinds.get(alike) or kinds.setdefault(alike, _nic_kind(facts, host, nic))
        link, peer, texts = cabled.get(nic.netdev, (None, None, None))
        address, gateway = (None, None) if texts is None else texts[:2]
        nics[name] = kind.shape.of(
            {
                "netdev": nic.netdev,
                "rdma": nic.rdma,
                "network": nic.network,
                "rail": nic.rail,
                "gpu": nic.gpu,
                "speed_mbps": nic.speed,
                "mtu": kind.mtu,
                "address": address,
                "gateway": gateway,
                **kind.settings,
            }
        )
        interfaces[nic.netdev] = _NIC_PORT.of(
            {
                "name": nic.netdev,
                "kind": kind.interface_kind,
                "speed_mbps": nic.speed,
                "mtu": kind.mtu,
                "admin_up": True,
                "addresses": [address] if address else [],
                "peer": peer,
                "cable_m": link.length if link else None,
                "link_role": link.role if link else None,
                "network": nic.network,
                "pfc_priorities": kind.pfc_priorities,
                "pfc_watchdog": False,
                "vrf": None,
            }
        )
        if address is None or gateway is None:
            continue
        table = RAIL_TABLE_BASE + k
        assert kind.rail_destinations is not None  # an addressed NIC is on a RoCE network
        for dest in kind.rail_destinations:
            routes.append(_ROUTE.of({"destination": dest, "via": gateway, "device": nic.netdev, "table": table}))
        rules.append(_RULE.of({"source": address.split("/")[0] + "/32", "table": table, "priority": 1000 + k}))
    mgmt_prefix: IPv4Network = doc.networks.management.prefix
    interfaces[host.profile.mgmt_interface] = planned(
        Interface, name=host.profile.mgmt_interface, kind="mgmt", addresses=[f"{host.mgmt}/{mgmt_prefix.prefixlen}"]
    )
    return (
        planned(
            HostSettings,
            profile=host.profile_name,
            gpus=host.profile.gpus,
            nic_model=host.profile.nic_model,
            nics=nics,
            routes=routes,
            rules=rules,
            nccl_env=_nccl_env(facts, host, nics),
            gpudirect=_gpudirect(facts, host, nics),
            roce_adaptive_routing=True if host.profile.roce_adaptive_routing else None,
        ),
        interfaces,
    )


def _rail_destinations(net: RoceNetwork) -> tuple[str, str]:
    """What a rail's table routes via its leaf: the network's links and its switches' loopbacks."""
    return str(net.p2p_prefix), str(net.loopback_prefix)


def _nccl_env(facts: Facts, host: Host, nics: dict[str, HostNic]) -> dict[str, str]:
    """NCCL variables (reference §4.4); empty when the host has no compute NIC."""
    compute = sorted(
        (n for n in nics.values() if n.network == "compute" and n.rdma), key=lambda n: (n.rail or 0, n.netdev)
    )
    if not compute:
        return {}
    env = {
        "NCCL_IB_HCA": "=" + ",".join(f"{n.rdma}:1" for n in compute),
        "NCCL_SOCKET_IFNAME": "=" + host.profile.mgmt_interface,
        "NCCL_NET_GDR_LEVEL": "PXB",
    }
    net = facts.intent.document.networks.compute
    if isinstance(net, InfinibandNetwork):
        env["NCCL_IB_SL"] = str(net.service_level)
    else:
        tos = compute[0].roce_tos
        if tos is not None:
            env["NCCL_IB_TC"] = str(tos)
        # -1 lets NCCL pick the RoCE v2 IPv4 GID itself: index 3 is common but not guaranteed (§4.3)
        env["NCCL_IB_GID_INDEX"] = "-1"
        env["NCCL_IB_ROCE_VERSION_NUM"] = "2"
        env["NCCL_IB_ADDR_FAMILY"] = "AF_INET"
    env = dict(sorted(env.items()))
    return facts.shared(("nccl_env", *env.items()), lambda: env)


def _gpudirect(facts: Facts, host: Host, nics: dict[str, HostNic]) -> GpuDirect | None:
    if host.profile.gpus == 0:
        return None
    gpu_nic = {n.gpu: n.rdma for n in nics.values() if n.network == "compute" and n.gpu is not None and n.rdma}
    pairs = tuple(sorted(gpu_nic.items()))
    return facts.shared(
        ("gpudirect", *pairs),
        lambda: planned(
            GpuDirect,
            nvidia_peermem=True,
            acs_disabled=True,
            iommu="passthrough",
            gdr_level="PXB",
            gpu_nic=dict(pairs),
        ),
    )
