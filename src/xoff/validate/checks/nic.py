"""Host NICs: DSCP trust, PFC vector and RoCE traffic class as the switches expect (reference/lossless.md §4)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import Device, FabricState, HostNic
from xoff.validate.checks.common import any_roce_networks, needs_any_roce, needs_roce, profile_of, roce_networks
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def roce_nics(state: FabricState, every: bool = False) -> Iterator[tuple[Device, HostNic]]:
    """The RoCE NICs of the lossless RoCE networks (``every``: of every RoCE network, ecn-only too)."""
    roce = any_roce_networks(state) if every else roce_networks(state)
    for dev in state.devices.values():
        if dev.host is None:
            continue
        for nic in dev.host.nics.values():
            if nic.network in roce and nic.roce_mode is not None:
                yield dev, nic


def every_roce_nic(state: FabricState) -> list[tuple[Device, HostNic]]:
    """``roce_nics(state, every=True)`` as a list: what checks read through ``ctx.derive``, once per run."""
    return list(roce_nics(state, every=True))


def _switch_side(state: FabricState, dev: Device, nic: HostNic) -> tuple[str, list[int]]:
    """(who, priorities): the leaf port the NIC is cabled to, else the network's lossless plan."""
    iface = dev.interfaces.get(nic.netdev)
    if iface is not None and iface.peer is not None:
        peer = state.devices.get(iface.peer.device)
        port = peer.interfaces.get(iface.peer.port) if peer else None
        if port is not None:
            return f"{iface.peer.device}:{iface.peer.port}", port.pfc_priorities
    return f"network {nic.network}", state.networks[nic.network].lossless_priorities


@register
class NicTrustPfc(Check):
    """A NIC that trusts PCP (the ConnectX firmware default) in an L3 fabric, or whose PFC vector
    differs from its switch port: it classifies RoCE into the wrong priority or ignores pause frames."""

    id = "lossless.nic_trust_pfc"
    tags = ("hosts",)
    reads = ("host.nics.*.trust", "host.nics.*.pfc", "interfaces.*.pfc_priorities")
    title = "Host NICs trust DSCP and enable PFC on exactly the switches' lossless priorities"
    hint = "mlnx_qos -i <netdev> --trust dscp --pfc <the switches' vector>"

    def applies(self, subject: FabricState) -> str | None:
        return needs_any_roce(subject)  # ecn-only: trust DSCP, and PFC off as on the switch ports

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        for dev, nic in ctx.derive(every_roce_nic, subject):
            if nic.trust != "dscp":
                yield Finding(
                    dev.name,
                    nic.netdev,
                    "NIC does not trust DSCP",
                    "dscp",
                    str(nic.trust),
                    port=nic.netdev,
                    hint=f"mlnx_qos -i {nic.netdev} --trust dscp",
                )
            mine = [p for p, on in enumerate(nic.pfc) if on]
            who, theirs = _switch_side(subject, dev, nic)
            if mine != theirs:
                vector = ",".join("1" if p in theirs else "0" for p in range(8))
                yield Finding(
                    dev.name,
                    nic.netdev,
                    f"NIC PFC vector differs from {who}",
                    str(theirs),
                    str(mine),
                    port=nic.netdev,
                    priority=min(set(mine) ^ set(theirs)),
                    hint=f"mlnx_qos -i {nic.netdev} --pfc {vector}",
                )


def _tos_problem(tos: int, dscp: int, ect: tuple[int, ...]) -> str | None:
    if tos >> 2 != dscp:
        return f"carries DSCP {tos >> 2}, not the lossless DSCP {dscp}"
    if tos & 3 not in ect:
        return "is not ECN-capable (ECT), so switches cannot mark it"
    return None


@register
class RoceTrafficClass(Check):
    """RoCE traffic sent with the wrong TOS: RDMA-CM's default_roce_tos or NCCL_IB_TC without the lossless
    DSCP lands in a lossy class; without ECT(0)/ECT(1) the switches cannot ECN-mark it and DCQCN never
    reacts (TOS = DSCP << 2 | ECN, e.g. 26 -> 106)."""

    class Params(CheckParams):
        ect: tuple[int, ...] = (1, 2)  # ECT(1), ECT(0)

    id = "lossless.roce_tos"
    tags = ("hosts",)
    reads = ("host.nics.*.roce_tos", "host.nics.*.dscp_to_priority", "host.nccl_env")
    title = "RoCE TOS and NCCL_IB_TC carry the lossless DSCP with ECT"
    hint = "set default_roce_tos / NCCL_IB_TC to DSCP << 2 | 2 (106 for DSCP 26)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return needs_any_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        ect = ctx.params_as(self.Params).ect
        seen_nccl: set[str] = set()
        for dev, nic in ctx.derive(every_roce_nic):
            plan = ctx.desired.networks.get(nic.network)
            if plan is None or plan.roce_dscp is None or plan.roce_tos is None:
                continue
            want = str(plan.roce_tos)
            prio = nic.dscp_to_priority.get(plan.roce_dscp)  # the lossless class the TOS should land in
            if nic.roce_tos is None or (problem := _tos_problem(nic.roce_tos, plan.roce_dscp, ect)):
                yield Finding(
                    dev.name,
                    nic.netdev,
                    f"RoCE TOS {problem or 'is not set'}",
                    want,
                    str(nic.roce_tos),
                    port=nic.netdev,
                    priority=prio,
                    hint=f"cma_roce_tos -d {nic.rdma} -t {want}",
                )
            if dev.host is None or dev.name in seen_nccl or nic.rdma not in _nccl_nics(ctx, dev):
                continue
            seen_nccl.add(dev.name)
            tc = dev.host.nccl_env.get("NCCL_IB_TC")
            if tc is None or not tc.isdigit():
                yield Finding(
                    dev.name, "NCCL_IB_TC", "not set: NCCL sends with TC 0 (lossy)", want, str(tc), priority=prio
                )
            elif problem := _tos_problem(int(tc), plan.roce_dscp, ect):
                yield Finding(dev.name, "NCCL_IB_TC", f"TOS {problem}", want, tc, priority=prio)


def _nccl_nics(ctx: CheckContext, dev: Device) -> set[str]:
    """The RDMA devices NCCL uses on this host: as its environment says, or as the intent's does (a host
    whose NCCL environment is missing still runs NCCL on the intended NICs, with TC 0)."""
    intended = ctx.desired.devices.get(dev.name)
    env = intended.host.nccl_env if intended is not None and intended.host is not None else {}
    return nccl_devices(dev.host.nccl_env if dev.host is not None else {}) | nccl_devices(env)


def nccl_devices(env: dict[str, str]) -> set[str]:
    """The RDMA devices NCCL_IB_HCA selects (``=mlx5_0:1,mlx5_1:1``); empty when unset or an exclusion list."""
    spec = env.get("NCCL_IB_HCA", "")
    if not spec or spec.startswith("^"):
        return set()
    return {item.split(":")[0] for item in spec.lstrip("=").split(",") if item}


ECN_SYSFS = "/sys/class/net/{netdev}/ecn"  # the MLNX_OFED DCQCN tree the host script writes (§4.2)
_POINTS = (
    ("ecn_np_priorities", "roce_np", "notification point (NP)"),  # the receiver: ECN marks -> CNPs
    ("ecn_rp_priorities", "roce_rp", "reaction point (RP)"),  # the sender: CNPs -> a rate cut
)


def cnp_classes(desired: FabricState) -> dict[str, tuple[int | None, int | None]]:
    """Network -> (DSCP, priority) of its CNP class (its QoS policy's ``cnp_class``), as the intent has it: the
    plan holds the DSCP, the switches of the policy the priority; (None, None) without a CNP class."""
    priority: dict[str, int] = {}
    for dev in desired.devices.values():
        if dev.qos is not None and dev.qos.cnp_priority is not None:
            priority.setdefault(dev.qos.policy, dev.qos.cnp_priority)
    return {
        name: (None, None)
        if plan.qos_policy is None or plan.cnp_dscp is None
        else (plan.cnp_dscp, priority.get(plan.qos_policy))
        for name, plan in desired.networks.items()
    }


def _dcqcn_side(
    desired: FabricState, subject: FabricState, dev: Device, nic: HostNic
) -> tuple[tuple[str, str], list[int]]:
    """(who, priorities) the NIC's DCQCN should run on: the switch side's lossless priorities (dcqcn); none where
    the network's profile turns the NICs' DCQCN off (pfc-only); the intended NIC's where there is no PFC (ecn-only)."""
    cc = profile_of(desired, nic.network)
    if cc is None or (cc.pfc and cc.nic_dcqcn):
        at, prios = _switch_side(subject, dev, nic)
        return (f"lossless at {at}", f"not lossless at {at}"), prios
    who = (
        f"wanted by network {nic.network}'s profile {cc.profile}",
        f"not wanted by network {nic.network}'s profile {cc.profile}",
    )
    if not cc.nic_dcqcn:
        return who, []
    intended = desired.devices.get(dev.name)
    want = intended.host.nics.get(nic.netdev) if intended is not None and intended.host is not None else None
    return who, [] if want is None else list(want.ecn_np_priorities)


@register
class NicDcqcn(Check):
    """A RoCE NIC whose DCQCN does not match the fabric: ECN notification point (NP) off on a lossless
    priority, so the receiver turns the switches' ECN marks into no CNPs and the sender never slows down
    (PFC does all the work, with head-of-line blocking and storms); reaction point (RP) off, so CNPs are
    ignored; NP/RP on a priority the switch port does not run lossless; or CNPs sent with a DSCP or 802.1p
    priority other than the network's CNP class, so they queue behind data in a lossy, non-strict class."""

    id = "lossless.nic_dcqcn"
    tags = ("hosts",)
    reads = (
        "host.nics.*.ecn_np_priorities",
        "host.nics.*.ecn_rp_priorities",
        "host.nics.*.cnp_dscp",
        "host.nics.*.cnp_priority",
        "interfaces.*.pfc_priorities",
    )
    title = "Host NICs run DCQCN (ECN NP and RP) on exactly the switches' lossless priorities, CNPs in the CNP class"
    hint = "echo <value> > /sys/class/net/<netdev>/ecn/roce_np|roce_rp/<file> (the host script: xoff push)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        lossy = [n for n in any_roce_networks(ctx.desired) if (cc := profile_of(ctx.desired, n)) and not cc.pfc]
        return None if lossy else needs_roce(ctx.subject)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        subject = ctx.subject  # observed when a snapshot is given, else desired
        classes = cnp_classes(ctx.desired)
        for dev, nic in ctx.derive(every_roce_nic, subject):
            tree = ECN_SYSFS.format(netdev=nic.netdev)
            who, lossless = _dcqcn_side(ctx.desired, subject, dev, nic)
            wanted = set(lossless)
            for field, point, role in _POINTS:
                enabled = set(getattr(nic, field))
                if enabled == wanted:
                    continue
                for prio in sorted(enabled ^ wanted):
                    want = int(prio in lossless)
                    problem = (
                        f"ECN {role} off on priority {prio}, {who[0]}"
                        if want
                        else f"ECN {role} on priority {prio}, {who[1]}"
                    )
                    yield Finding(
                        dev.name,
                        f"{nic.netdev} {point} priority {prio}",
                        problem,
                        "enabled" if want else "disabled",
                        "disabled" if want else "enabled",
                        port=nic.netdev,
                        priority=prio,
                        hint=f"echo {want} > {tree}/{point}/enable/{prio}",
                    )
            dscp, priority = classes.get(nic.network, (None, None))
            cls = f"network {nic.network}'s CNP class"
            if dscp is not None and nic.cnp_dscp != dscp:
                yield Finding(
                    dev.name,
                    f"{nic.netdev} cnp_dscp",
                    f"CNPs sent with DSCP {nic.cnp_dscp}, not {cls}",
                    str(dscp),
                    str(nic.cnp_dscp),
                    port=nic.netdev,
                    priority=priority,
                    hint=f"echo {dscp} > {tree}/roce_np/cnp_dscp",
                )
            if priority is not None and nic.cnp_priority != priority:
                yield Finding(
                    dev.name,
                    f"{nic.netdev} cnp_802p_prio",
                    f"CNPs sent on priority {nic.cnp_priority}, not {cls}",
                    str(priority),
                    str(nic.cnp_priority),
                    port=nic.netdev,
                    priority=priority,
                    hint=f"echo {priority} > {tree}/roce_np/cnp_802p_prio",
                )
