"""QoS maps, schedulers and ECN from a network's policy (reference/lossless.md §1.1-1.2, §6 rules 1-3)."""

from __future__ import annotations

from xoff.desired.models import Ecn, Qos, Scheduler, TrafficClassPlan
from xoff.intent.qos import QosPolicy

TOS_ECT0 = 2  # ECN field ECT(0): lets switches mark CE instead of dropping (reference §4.1)


def plan_classes(policy: QosPolicy) -> list[TrafficClassPlan]:
    """Each class with its TC, queue and priority group: a lossless TC gets its own PG, the rest share PG 0."""
    return [
        TrafficClassPlan(
            name=name,
            dscp=sorted(cls.dscp),
            priority=cls.priority,
            traffic_class=cls.tc,
            queue=cls.egress_queue,
            priority_group=cls.tc if cls.lossless else 0,
            lossless=cls.lossless,
        )
        for name, cls in policy.classes.items()
    ]


def dscp_to_priority(policy: QosPolicy) -> dict[int, int]:
    """All 64 DSCPs: listed ones to their class's priority, the rest to the default class."""
    default = policy.classes[policy.default_class].priority
    out = dict.fromkeys(range(64), default)
    for cls in policy.classes.values():
        for d in cls.dscp:
            out[d] = cls.priority
    return out


def roce_tos(policy: QosPolicy) -> int | None:
    name = policy.rdma_class
    if name is None or not policy.classes[name].dscp:
        return None
    return (min(policy.classes[name].dscp) << 2) | TOS_ECT0


def cnp(policy: QosPolicy) -> tuple[int | None, int | None]:
    if policy.cnp_class is None:
        return None, None
    cls = policy.classes[policy.cnp_class]
    return (min(cls.dscp) if cls.dscp else None), cls.priority


def build_qos(policy_name: str, policy: QosPolicy) -> Qos:
    """The switch-side QoS state; built once per network, since every switch of it shares it."""
    classes = plan_classes(policy)
    default_tc = policy.classes[policy.default_class].tc
    dscp_to_tc = dict.fromkeys(range(64), default_tc)
    for cls in policy.classes.values():
        for d in cls.dscp:
            dscp_to_tc[d] = cls.tc
    tc_to_queue = {tc: tc for tc in range(8)}
    tc_to_pg = dict.fromkeys(range(8), 0)
    prio_to_queue = {p: p for p in range(8)}
    prio_to_pg: dict[int, int] = {}
    schedulers: dict[int, Scheduler] = {}
    ecn: dict[int, Ecn] = {}
    for plan, cls in zip(classes, policy.classes.values(), strict=True):
        tc_to_queue[plan.traffic_class] = plan.queue
        tc_to_pg[plan.traffic_class] = plan.priority_group
        prio_to_queue[plan.priority] = plan.queue
        if plan.lossless:
            prio_to_pg[plan.priority] = plan.priority_group
        schedulers[plan.queue] = Scheduler(type=cls.scheduler.type, weight=cls.scheduler.weight)
        if cls.ecn is not None:
            ecn[plan.queue] = Ecn(
                min_threshold=cls.ecn.min_threshold,
                max_threshold=cls.ecn.max_threshold,
                probability=cls.ecn.probability,
            )
    cnp_dscp, cnp_priority = cnp(policy)
    return Qos(
        policy=policy_name,
        trust=policy.trust,
        classes=classes,
        dscp_to_tc=dscp_to_tc,
        tc_to_queue=tc_to_queue,
        tc_to_priority_group=tc_to_pg,
        pfc_priority_to_queue=prio_to_queue,
        pfc_priority_to_priority_group=dict(sorted(prio_to_pg.items())),
        lossless_priorities=policy.lossless_priorities,
        cnp_dscp=cnp_dscp,
        cnp_priority=cnp_priority,
        schedulers=dict(sorted(schedulers.items())),
        ecn=dict(sorted(ecn.items())),
    )
