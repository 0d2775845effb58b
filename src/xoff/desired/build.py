"""``build_fabric_state``: the resolved intent -> FabricState, fabric-wide facts first."""

from __future__ import annotations

from xoff.desired.builders.buffers import build_buffers
from xoff.desired.builders.host import build_host
from xoff.desired.builders.infiniband import build_ib_interfaces, build_subnet_manager
from xoff.desired.builders.load_balancing import build_load_balancing
from xoff.desired.builders.placement import build_placements
from xoff.desired.builders.qos import build_qos, cnp, roce_tos
from xoff.desired.builders.switch import build_bgp, build_static_routes, build_switch_interfaces, build_watchdog
from xoff.desired.builders.tenants import bind_vrfs, carries_evpn, tenant_ports
from xoff.desired.facts import Facts, build_facts
from xoff.desired.limits import host_problems, network_problems, policy_problems, port_problems
from xoff.desired.models import CongestionPlan, Device, FabricState, NetworkPlan, Placement, Qos, planned
from xoff.errors import InputError, Problem
from xoff.intent.congestion import departures
from xoff.intent.networks import InfinibandNetwork, RoceNetwork
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Intent, Switch
from xoff.platforms.registry import get_platform, names_hwsku


def build_fabric_state(intent: Intent) -> FabricState:
    """Plan every device; raise :class:`InputError` if the intent cannot be realised (e.g. no headroom row)."""
    try:
        facts = build_facts(intent)
    except InputError as exc:
        raise InputError(intent.located(exc.problems)) from None
    doc = intent.document
    qos_by_network: dict[str, Qos] = {}
    for name, policy in facts.policies.items():
        net = getattr(doc.networks, name)
        assert isinstance(net, RoceNetwork)
        qos_by_network[name] = build_qos(net.qos_policy, policy)

    devices: dict[str, Device] = {}
    problems = _unrenderable(intent)
    placements = build_placements(intent)
    for sw in intent.switches.values():
        try:
            devices[sw.name] = _switch(facts, sw, qos_by_network.get(sw.network), placements[sw.name])
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        limits = get_platform(sw.platform).render_limits
        if limits is not None:
            problems += port_problems(intent, sw, devices[sw.name].interfaces, limits, get_platform(sw.platform).label)
    host_limits = get_platform("linux").render_limits  # every host is planned as linux (below)
    if host_limits is not None:
        problems += host_problems(intent, host_limits, get_platform("linux").label)
    if problems:
        raise InputError(intent.located(problems))
    sm_host = doc.networks.compute.subnet_manager.host if isinstance(doc.networks.compute, InfinibandNetwork) else None
    for ib in intent.ib_switches.values():
        devices[ib.name] = Device(
            name=ib.name,
            kind="ib_switch",
            platform="infiniband",
            role=ib.role,
            network="compute",
            asic=ib.model,
            guid=ib.guid,
            mgmt_address=str(ib.mgmt),
            interfaces=build_ib_interfaces(facts, ib),
        )
    for host in intent.hosts.values():
        settings, interfaces = build_host(facts, host)
        devices[host.name] = planned(
            Device,
            name=host.name,
            kind="host",
            platform="linux",
            role="subnet-manager" if host.name == sm_host else "gpu-host" if host.profile.gpus else "host",
            mgmt_address=str(host.mgmt),
            interfaces=interfaces,
            host=settings,
            subnet_manager=build_subnet_manager(facts) if host.name == sm_host else None,
            placement=placements[host.name],
        )
    return FabricState(
        fabric=intent.name,
        networks=_network_plans(facts, devices),
        links=facts.cables,
        devices=devices,
    )


def _unrenderable(intent: Intent) -> list[Problem]:
    """The QoS policies and underlay settings some switch's platform cannot render (its record's
    ``render_limits``), one line per field, naming the platform and its switches that use them."""
    users: dict[tuple[str, str], list[str]] = {}
    for sw in intent.switches.values():
        if isinstance(getattr(intent.document.networks, sw.network, None), RoceNetwork):
            users.setdefault((sw.network, sw.platform), []).append(sw.name)
    problems: list[Problem] = []
    for (network, platform), names in users.items():
        record = get_platform(platform)
        net = getattr(intent.document.networks, network)
        if record.render_limits is None or not isinstance(net, RoceNetwork):
            continue
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        where = f"{record.label} ({shown})"
        problems += network_problems(network, net.underlay.max_paths, record.render_limits, where)
        policy = intent.document.qos_policies.get(net.qos_policy)
        if policy is not None:
            problems += policy_problems(net.qos_policy, policy, record.render_limits, where)
    return problems


def _switch(facts: Facts, sw: Switch, qos: Qos | None, placement: Placement) -> Device:
    policy = facts.policy_for(sw.network)
    interfaces, bgp, vrfs = bind_vrfs(
        tenant_ports(facts, sw), build_switch_interfaces(facts, sw, policy), build_bgp(facts, sw)
    )
    if bgp is not None and carries_evpn(facts, sw):
        bgp = bgp.model_copy(update={"evpn": True})
    buffers = watchdog = None
    if policy is not None and qos is not None:
        lossless_ports = tuple(
            [(i.name, i.speed_mbps or 0, i.cable_m or 0) for i in interfaces.values() if i.pfc_priorities]
        )
        if lossless_ports:
            # switches alike (ASIC, SKU, NOS, MTU, policy, lossless ports) have equal buffers: plan them once
            alike = ("buffers", sw.asic, sw.sku, sw.platform, sw.mtu, sw.network, lossless_ports)
            buffers = facts.shared(alike, lambda: build_buffers(sw, policy, qos.policy, list(lossless_ports)))
        ports = tuple([i.name for i in interfaces.values() if i.pfc_watchdog])
        watchdog = facts.shared(("pfc_watchdog", sw.network, *ports), lambda: build_watchdog(policy, list(ports)))
    return planned(
        Device,
        name=sw.name,
        kind="switch",
        platform=sw.platform,
        role=sw.role,
        network=sw.network,
        asic=sw.asic,
        hwsku=sw.hwsku if sw.hwsku is not None or not names_hwsku(sw.platform) else sw.sku,
        mgmt_address=str(sw.mgmt),
        interfaces=interfaces,
        bgp=bgp,
        qos=qos,
        buffers=buffers,
        pfc_watchdog=watchdog,
        static_routes=build_static_routes(facts, sw),
        placement=placement,
        load_balancing=build_load_balancing(facts, sw),
        vrfs=vrfs,
    )


def _network_plans(facts: Facts, devices: dict[str, Device]) -> dict[str, NetworkPlan]:
    doc = facts.intent.document
    count: dict[str, int] = {}
    for d in devices.values():
        if d.network:
            count[d.network] = count.get(d.network, 0) + 1
    plans = {
        "management": NetworkPlan(
            kind="management",
            qos_policy=doc.networks.management.qos_policy,
            lossless_priorities=[],
            roce_dscp=None,
            roce_tos=None,
            cnp_dscp=None,
            devices=len(devices),
        )
    }
    for name in ("compute", "storage"):
        net = getattr(doc.networks, name)
        if isinstance(net, RoceNetwork):
            policy = doc.qos_policies[net.qos_policy]
            tos = roce_tos(policy)
            plans[name] = NetworkPlan(
                kind="roce",
                qos_policy=net.qos_policy,
                lossless_priorities=policy.lossless_priorities,
                roce_dscp=None if tos is None else tos >> 2,
                roce_tos=tos,
                cnp_dscp=cnp(policy)[0],
                devices=count.get(name, 0),
                p2p_prefix=str(net.p2p_prefix),
                loopback_prefix=str(net.loopback_prefix),
                congestion_control=congestion_plan(policy),
            )
        elif isinstance(net, InfinibandNetwork):
            plans[name] = NetworkPlan(
                kind="infiniband",
                qos_policy=None,
                lossless_priorities=[],
                roce_dscp=None,
                roce_tos=None,
                cnp_dscp=None,
                devices=count.get(name, 0),
            )
    return plans


def congestion_plan(policy: QosPolicy) -> CongestionPlan:
    """The policy's congestion-control profile, its knobs, and where they depart from the vendor default."""
    cc = policy.congestion_control
    knobs = cc.knobs
    return CongestionPlan(
        profile=cc.profile,
        pfc=knobs.pfc,
        ecn=knobs.ecn,
        nic_dcqcn=knobs.nic_dcqcn,
        pfc_watchdog=knobs.pfc_watchdog,
        departures=departures(knobs),
    )
