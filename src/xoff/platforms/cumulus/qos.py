"""Builder for ``qos`` (FabricState ``Device.qos`` and the per-port PFC of ``Device.interfaces``).

Follows reference/lossless.md §2.1-2.2. ``nv set qos roce`` is NVIDIA's one-command RoCE profile, but
it fixes DSCP 26 -> switch priority 3 and TC 0/3/6; the intent's plan may differ (the storage policy
runs lossless on priority 4), so every setting is written out on the generic QoS profiles instead:

- ``qos mapping default-global``: ``trust l3`` and every DSCP -> switch priority (all 64, so NVUE's
  default ``DSCP >> 3`` map never decides anything); a ``pcp`` plan gets ``trust l2`` and keeps NVUE's
  identity 802.1p -> switch priority map, which is what the plan means by a priority;
- ``qos egress-queue-mapping default-global``: switch priority -> traffic class for all 8 (NVUE
  supports only the default-global profile here); on Cumulus a traffic class *is* the egress queue;
- ``qos pfc <profile>``: one profile per (lossless priorities, cable length), ``tx``/``rx enable`` and
  ``cable-length`` in metres, so switchd computes each port's headroom from its own cable (the docs
  advise letting it compute xoff/xon); ports join with ``interface <port> qos pfc profile``. No PFC is
  put on default-global, which would apply to every port, idle ones too;
- ``qos traffic-pool default-lossless|default-lossy memory-percent``: the QoS guide's "Flow Control
  Buffers" step that must precede PFC, with its 50/50 split (FabricState has no Cumulus pool split);
- ``qos congestion-control default-global traffic-class Q``: ``min-threshold``/``max-threshold`` in
  bytes, ``probability`` in percent, ``ecn enable``; ECN is switched off on queues NVUE marks by default
  (queue 0) when the plan does not mark them;
- ``qos egress-scheduler default-global traffic-class Q``: ``mode strict`` or ``mode dwrr`` with
  ``bw-percent`` (the DWRR weights must total at most 100).

Sources: CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/
_index.md (sections Classification, Flow Control, Congestion Control, Egress Queues, Egress Scheduler,
Port Groups) and .../RDMA-over-Converged-Ethernet-RoCE.md; value grammar from ``grammar.py``.
"""

from __future__ import annotations

from xoff.desired.models import Device, Qos
from xoff.platforms.cumulus import CumulusRenderError
from xoff.platforms.cumulus.nvue import Tree, put

PROFILE = "default-global"
TRUST = {"dscp": "l3", "pcp": "l2"}
LOSSLESS_POOL_PERCENT = 50  # QoS guide, "Flow Control Buffers": lossless and lossy pools at 50% each
DEFAULT_ECN_QUEUES = (0,)  # default-global marks ECN on egress queue 0 out of the box (QoS guide, ECN)
CABLE_MIN, CABLE_MAX = 1, 100_000
PRIORITIES = range(8)


def pfc_profile_name(priorities: list[int], cable_m: int) -> str:
    """``pfc-sp4-30m``: the PFC profile for ports with lossless priority 4 on 30 m cables."""
    return f"pfc-sp{''.join(str(p) for p in sorted(priorities))}-{cable_m}m"


def dscp_to_priority(device: Device, qos: Qos) -> dict[int, int]:
    """DSCP -> switch priority: FabricState maps DSCP -> traffic class, and each class has one priority."""
    tc_priority: dict[int, int] = {}
    for cls in qos.classes:
        known = tc_priority.setdefault(cls.traffic_class, cls.priority)
        if known != cls.priority:
            raise CumulusRenderError(
                f"{device.name}: traffic class {cls.traffic_class} carries priorities {known} and {cls.priority}; "
                "NVUE classifies DSCP to one switch priority"
            )
    out: dict[int, int] = {}
    for dscp, tc in sorted(qos.dscp_to_tc.items()):
        if tc not in tc_priority:
            raise CumulusRenderError(f"{device.name}: DSCP {dscp} maps to traffic class {tc}, which no class uses")
        out[dscp] = tc_priority[tc]
    return out


def priority_to_queue(qos: Qos) -> dict[int, int]:
    """Switch priority -> egress queue for all 8: a class's queue, else NVUE's identity via tc_to_queue."""
    by_class = {cls.priority: cls.queue for cls in qos.classes}
    return {p: by_class.get(p, qos.tc_to_queue.get(p, p)) for p in PRIORITIES}


def _classification(tree: Tree, device: Device, qos: Qos) -> None:
    put(tree, ("qos", "mapping", PROFILE, "trust"), TRUST[qos.trust])
    if qos.trust == "dscp":
        for dscp, prio in dscp_to_priority(device, qos).items():
            put(tree, ("qos", "mapping", PROFILE, "dscp", str(dscp), "switch-priority"), prio)
    for prio, queue in priority_to_queue(qos).items():
        put(tree, ("qos", "egress-queue-mapping", PROFILE, "switch-priority", str(prio), "traffic-class"), queue)


def _pfc(tree: Tree, device: Device) -> None:
    ports = [i for i in device.interfaces.values() if i.pfc_priorities]
    assigned: list[tuple[str, str]] = []
    for iface in ports:
        if iface.cable_m is None or not CABLE_MIN <= iface.cable_m <= CABLE_MAX:
            raise CumulusRenderError(
                f"{device.name}: {iface.name} has PFC but cable length {iface.cable_m!r} m "
                f"(NVUE needs {CABLE_MIN}-{CABLE_MAX} m to size the headroom)"
            )
        name = pfc_profile_name(iface.pfc_priorities, iface.cable_m)
        profile = ("qos", "pfc", name)
        for prio in sorted(iface.pfc_priorities):
            put(tree, (*profile, "switch-priority", str(prio)))
        put(tree, (*profile, "tx"), "enable")
        put(tree, (*profile, "rx"), "enable")
        put(tree, (*profile, "cable-length"), iface.cable_m)
        assigned.append((iface.name, name))
    for port, name in assigned:
        put(tree, ("interface", port, "qos", "pfc", "profile"), name)


def _congestion_control(tree: Tree, device: Device, qos: Qos) -> None:
    base = ("qos", "congestion-control", PROFILE, "traffic-class")
    for queue, ecn in sorted(qos.ecn.items()):
        if not 0 <= ecn.min_threshold <= ecn.max_threshold:
            raise CumulusRenderError(
                f"{device.name}: queue {queue} ECN min {ecn.min_threshold} B > max {ecn.max_threshold} B"
            )
        if not 0 <= ecn.probability <= 100:
            raise CumulusRenderError(f"{device.name}: queue {queue} ECN probability {ecn.probability} outside 0-100")
        put(tree, (*base, str(queue), "min-threshold"), ecn.min_threshold)
        put(tree, (*base, str(queue), "max-threshold"), ecn.max_threshold)
        put(tree, (*base, str(queue), "probability"), ecn.probability)
        put(tree, (*base, str(queue), "ecn"), "enable")
    for queue in DEFAULT_ECN_QUEUES:
        if queue not in qos.ecn:
            put(tree, (*base, str(queue), "ecn"), "disable")


def _egress_scheduler(tree: Tree, device: Device, qos: Qos) -> None:
    base = ("qos", "egress-scheduler", PROFILE, "traffic-class")
    total = 0
    for queue, sched in sorted(qos.schedulers.items()):
        put(tree, (*base, str(queue), "mode"), sched.type)
        if sched.type == "dwrr":
            if sched.weight is None or not 1 <= sched.weight <= 100:
                raise CumulusRenderError(f"{device.name}: queue {queue} DWRR weight {sched.weight!r} outside 1-100")
            put(tree, (*base, str(queue), "bw-percent"), sched.weight)
            total += sched.weight
    if total > 100:
        raise CumulusRenderError(f"{device.name}: DWRR weights total {total}; NVUE bw-percent must total at most 100")


def build_qos(device: Device) -> Tree:
    tree: Tree = {}
    qos = device.qos
    if qos is None:
        if any(i.pfc_priorities for i in device.interfaces.values()):
            raise CumulusRenderError(f"{device.name}: ports with PFC but no QoS plan")
        return tree
    if any(i.pfc_priorities for i in device.interfaces.values()):  # buffers first, then PFC
        for pool in ("default-lossless", "default-lossy"):
            put(tree, ("qos", "traffic-pool", pool, "memory-percent"), LOSSLESS_POOL_PERCENT)
    _classification(tree, device, qos)
    _pfc(tree, device)
    _congestion_control(tree, device, qos)
    _egress_scheduler(tree, device, qos)
    return tree
