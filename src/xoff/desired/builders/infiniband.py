"""InfiniBand: switch ports and the subnet manager's settings (reference/lossless.md §5)."""

from __future__ import annotations

from xoff.desired.builders.tenants import tenant_partitions
from xoff.desired.facts import Facts
from xoff.desired.models import Interface, Partition, Peer, SubnetManager
from xoff.intent.networks import InfinibandNetwork
from xoff.intent.resolved import IbSwitch

_TIER = {"leaf": 1, "spine": 2, "super-spine": 3}
HCA_GUID_BASE = 0x0002C90400000000  # host HCA port GUIDs, distinct from switch node GUIDs


def build_ib_interfaces(facts: Facts, sw: IbSwitch) -> dict[str, Interface]:
    cabled = {port: (link, peer) for link, port, peer, _, _ in facts.links_of.get(sw.name, [])}
    out: dict[str, Interface] = {}
    for port in sw.ports.values():
        hit = cabled.get(port.name)
        out[port.name] = Interface(
            name=port.name,
            kind="infiniband",
            speed_mbps=port.speed,
            admin_up=hit is not None and not port.shutdown,
            peer=Peer(device=hit[1][0], port=hit[1][1]) if hit else None,
            cable_m=hit[0].length if hit else None,
            link_role=hit[0].role if hit else None,
            network="compute" if hit else None,
        )
    return out


def hca_guids(facts: Facts) -> dict[tuple[str, str], str]:
    """A stable port GUID per host HCA on the InfiniBand fabric, in intent order."""
    out: dict[tuple[str, str], str] = {}
    n = 0
    for host in facts.intent.hosts.values():
        for nic in host.nics.values():
            if nic.network == "compute":
                n += 1
                out[(host.name, nic.netdev)] = f"0x{HCA_GUID_BASE + n:016x}"
    return out


def build_subnet_manager(facts: Facts) -> SubnetManager:
    net = facts.intent.document.networks.compute
    assert isinstance(net, InfinibandNetwork)
    switches = list(facts.intent.ib_switches.values())
    top = max((_TIER[s.role] for s in switches), default=0)
    roots = [s.guid for s in switches if _TIER[s.role] == top]
    partitions = [
        Partition(
            name=p.name,
            pkey=p.pkey,
            members=facts.intent.partition_members(p.members),
            membership=p.membership,
            ipoib=p.ipoib,
        )
        for p in net.partitions
    ] + tenant_partitions(facts)
    sm = net.subnet_manager
    return SubnetManager(
        routing_engine=list(sm.routing_engine),
        no_fallback=sm.no_fallback,
        sm_priority=sm.priority,
        sweep_interval_s=sm.sweep_interval_s,
        lmc=sm.lmc,
        root_guids=roots,
        compute_node_guids=[g for (host, _), g in hca_guids(facts).items() if host != sm.host],
        max_vls=net.qos.max_vls,
        high_limit=net.qos.high_limit,
        sl2vl=list(net.qos.sl2vl),
        vlarb_high=[(e.vl, e.weight) for e in net.qos.vlarb_high],
        vlarb_low=[(e.vl, e.weight) for e in net.qos.vlarb_low],
        service_level=net.service_level,
        partitions=partitions,
    )
