"""EOS QoS from FabricState: classification maps, PFC, the PFC watchdog, ECN and scheduling.

Syntax: reference/lossless.md §3.1 (AVD ``eos_cli_config_gen`` ``qos.j2``, ``priority-flow-control.j2``,
``qos-profiles.j2``, ``ethernet-interface-tx-queues.j2``). Everything that cannot be said on EOS
exactly as FabricState means it raises ``ValueError`` instead of rendering something else; the plan refuses
such an intent first (the record's ``qos_limits``), so these raises guard only FabricStates built elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from xoff.desired.models import Device, Interface, PfcWatchdog
from xoff.desired.models import Qos as QosState
from xoff.platforms.eos.schema import (
    GlobalWatchdog,
    InterfacePfc,
    InterfaceQos,
    PriorityFlowControl,
    Qos,
    RandomDetect,
    TxQueue,
)

# FabricState trust -> EOS `qos trust` keyword (802.1p PCP is "cos" on EOS).
TRUST = {"dscp": "dscp", "pcp": "cos"}
# FabricState watchdog action -> EOS `priority-flow-control pause watchdog action` (drop|errdisable|notify-only).
# SONiC's "forward"/"alert" keep forwarding a stuck queue; EOS has no action that does that.
WATCHDOG_ACTION = {"drop": "drop"}
STRICT, ROUND_ROBIN = "priority strict", "no priority"


def _map_lines(pairs: Iterable[tuple[int, int]], target: str) -> list[str]:
    """``{value: tc}`` pairs -> one ``"v1 v2 ... to traffic-class tc"`` line per TC, ordered by lowest value.

    The order is AVD's (natural sort of the lines); every value appears once, so it is deterministic.
    """
    by_tc: dict[int, list[int]] = {}
    for value, tc in sorted(pairs):
        by_tc.setdefault(tc, []).append(value)
    groups = sorted(by_tc.items(), key=lambda item: item[1][0])
    return [f"{' '.join(map(str, values))} to {target} {tc}" for tc, values in groups]


def _require_identity(name: str, mapping: dict[int, int], device: str) -> None:
    """EOS sends traffic class N to tx-queue N and PFC priority N to traffic class N; other maps need
    platform-specific commands xoff does not render, so refuse them instead of ignoring them."""
    odd = {k: v for k, v in mapping.items() if k != v}
    if odd:
        raise ValueError(
            f"{device}: EOS renderer supports only the identity {name} map, got {odd}"
            " (allowed: queue = traffic class = priority for every class)"
        )


def check_supported(device: Device, qos: QosState) -> None:
    """The plan refuses an intent that fails these (the EOS record's ``qos_limits``, ``desired/limits.py``), with
    its place in the intent; they stay here for a FabricState that did not come from a plan.

    Only the lossless priorities' queues matter to PFC: a lossy class's priority is only classification
    (``qos map cos``), so it may sit in any traffic class."""
    _require_identity("tc_to_queue", qos.tc_to_queue, device.name)
    lossless = {p: q for p, q in qos.pfc_priority_to_queue.items() if p in qos.lossless_priorities}
    _require_identity("pfc_priority_to_queue", lossless, device.name)
    for cls in qos.classes:
        if cls.lossless and cls.priority != cls.traffic_class:
            raise ValueError(
                f"{device.name}: lossless class {cls.name} has priority {cls.priority} but traffic class"
                f" {cls.traffic_class}; EOS pauses by traffic class (allowed: traffic_class = priority)"
            )


def build_qos(device: Device) -> Qos | None:
    """Global ``qos map``: every DSCP (or PCP) to its traffic class, explicitly.

    All 64 DSCPs are written, not only the listed ones: EOS's own default map is not the intent's
    (it sends CS3 = DSCP 24 to TC3, the lossless class here; reference/lossless.md §3.1, §7).
    """
    qos = device.qos
    if qos is None:
        return None
    check_supported(device, qos)
    if qos.trust == "dscp":
        return {"map": {"cos": [], "dscp": _map_lines(qos.dscp_to_tc.items(), "traffic-class")}}
    cos = {cls.priority: cls.traffic_class for cls in qos.classes}
    return {"map": {"cos": _map_lines(cos.items(), "traffic-class"), "dscp": []}}


def seconds(ms: int, decimals: int, what: str) -> str:
    """Milliseconds -> EOS seconds with at most ``decimals`` decimals: 200 -> "0.2", 1000 -> "1", 50 -> "0.05"."""
    step = 10 ** (3 - decimals)
    if ms % step:
        raise ValueError(f"{what} {ms} ms is not expressible on EOS (allowed: a multiple of {step} ms)")
    return f"{ms // 1000}.{ms % 1000:03d}".rstrip("0").rstrip(".")


def build_priority_flow_control(device: Device) -> PriorityFlowControl | None:
    """Global PFC watchdog timers and action (``priority-flow-control pause watchdog default ...``)."""
    wd: PfcWatchdog | None = device.pfc_watchdog
    if wd is None:
        return None
    action = WATCHDOG_ACTION.get(wd.action)
    if action is None:
        raise ValueError(
            f"{device.name}: PFC watchdog action {wd.action!r} has no EOS equivalent (allowed on EOS: drop)"
        )
    watchdog: GlobalWatchdog = {
        "timeout": seconds(wd.detection_ms, 2, "PFC watchdog detection time"),
        "recovery_time": seconds(wd.restoration_ms, 2, "PFC watchdog restoration time"),
        "polling_interval": seconds(wd.poll_interval_ms, 3, "PFC watchdog poll interval"),
        "action": action,
    }
    return {"watchdog": watchdog}


def bandwidth_percents(qos: QosState) -> dict[int, int]:
    """DWRR weights -> ``bandwidth percent`` per queue, summing to 100 (largest remainder, ties to the lower queue).

    DWRR weights are relative, so scaling keeps their meaning; weights that already sum to 100
    (both examples) come out unchanged.
    """
    weights = {q: s.weight or 0 for q, s in qos.schedulers.items() if s.type == "dwrr"}
    total = sum(weights.values())
    if not weights or total == 100:
        return weights
    exact = {q: w * 100 / total for q, w in weights.items()}
    out = {q: max(1, int(v)) for q, v in exact.items()}
    spare = 100 - sum(out.values())
    for q in sorted(exact, key=lambda q: (-(exact[q] - int(exact[q])), q))[: max(spare, 0)]:
        out[q] += 1
    return out


def build_tx_queues(qos: QosState) -> list[TxQueue]:
    """Per egress queue: strict or round robin with its share, and ECN marking (bytes), in queue order.

    Built once per device; every fabric port of the device carries the same list.
    """
    percent = bandwidth_percents(qos)
    out: list[TxQueue] = []
    for q in sorted(set(qos.schedulers) | set(qos.ecn)):
        sched = qos.schedulers.get(q)
        ecn = qos.ecn.get(q)
        red: RandomDetect | None = None
        if ecn is not None:
            red = {
                "ecn": {
                    "threshold": {
                        "units": "bytes",
                        "min": ecn.min_threshold,
                        "max": ecn.max_threshold,
                        "max_probability": ecn.probability,
                    }
                }
            }
        out.append(
            {
                "id": q,
                "priority": None if sched is None else (STRICT if sched.type == "strict" else ROUND_ROBIN),
                "bandwidth_percent": percent.get(q),
                "random_detect": red,
            }
        )
    return out


def interface_qos(qos: QosState | None, iface: Interface) -> InterfaceQos | None:
    """``qos trust`` on every cabled fabric port of a device that has a QoS policy."""
    if qos is None or iface.peer is None:
        return None
    return {"trust": TRUST[qos.trust]}


def interface_pfc(device: Device, iface: Interface) -> InterfacePfc | None:
    """``priority-flow-control on``, ``priority N no-drop`` per lossless priority, and the watchdog."""
    if not iface.pfc_priorities:
        return None
    return {
        "enabled": True,
        "priorities": [{"priority": p, "no_drop": True} for p in sorted(iface.pfc_priorities)],
        "watchdog": {"enabled": iface.pfc_watchdog and device.pfc_watchdog is not None},
    }
