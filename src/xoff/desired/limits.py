"""The plan's refusal of what a platform cannot render (``xoff.platforms.limits.RenderLimits``).

One ``Problem`` per field, pointing into the intent (``qos_policies.<policy>.<field>``, a switch's ``ports``, a
link), naming the platform and its switches, what is wrong and what is allowed; ``desired.build`` locates them
and raises them with the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xoff.desired.models import Interface
from xoff.errors import Location, Problem
from xoff.intent.qos import QosPolicy
from xoff.intent.resolved import Intent, Switch
from xoff.intent.types import speed_label
from xoff.platforms.limits import RenderLimits


def policy_problems(name: str, policy: QosPolicy, limits: RenderLimits, where: str) -> list[Problem]:
    """Every field of policy ``name`` that the platform described by ``limits`` cannot render, one line each.

    ``where`` names the platform and the switches that use the policy (``Arista EOS (spine2)``).
    """
    return [
        Problem(None, f"qos_policies.{name}.{field}", f"{where}: {what}")
        for field, what in (*_class_problems(policy, limits), *_watchdog_problems(policy, limits))
    ]


def _class_problems(policy: QosPolicy, limits: RenderLimits) -> Iterator[tuple[str, str]]:
    priority_of: dict[int, tuple[str, int]] = {}
    for cname, cls in policy.classes.items():
        if limits.queue_is_traffic_class and cls.egress_queue != cls.tc:
            yield (
                f"classes.{cname}.queue",
                f"queue {cls.egress_queue} differs from traffic class {cls.tc}, and this platform sends traffic"
                f" class N to queue N (allowed: queue {cls.tc}, or leave queue out)",
            )
        if limits.lossless_priority_is_traffic_class and cls.lossless and cls.priority != cls.tc:
            yield (
                f"classes.{cname}.traffic_class",
                f"lossless priority {cls.priority} is in traffic class {cls.tc}, and this platform pauses by"
                f" traffic class (allowed: traffic_class {cls.priority}, or leave traffic_class out)",
            )
        other = priority_of.setdefault(cls.tc, (cname, cls.priority))
        if limits.one_priority_per_traffic_class and other[1] != cls.priority:
            yield (
                f"classes.{cname}.priority",
                f"traffic class {cls.tc} carries priority {other[1]} (class {other[0]}) and {cls.priority}, and this"
                f" platform classifies each DSCP to one priority (allowed: one priority per traffic class)",
            )
    if limits.dwrr_total_max is not None:
        # one scheduler per queue, the last class on it deciding, as the plan builds it
        weights = {
            c.egress_queue: (c.scheduler.weight or 0) * (c.scheduler.type == "dwrr") for c in policy.classes.values()
        }
        total = sum(weights.values())
        if total > limits.dwrr_total_max:
            yield (
                "classes",
                f"DWRR weights add up to {total}, and this platform takes them as percentages"
                f" (allowed: a total of at most {limits.dwrr_total_max})",
            )


def _watchdog_problems(policy: QosPolicy, limits: RenderLimits) -> Iterator[tuple[str, str]]:
    wd = policy.pfc_watchdog
    if not (wd.enabled and policy.lossless_priorities):
        return  # no watchdog is planned, so nothing of it is rendered
    if wd.action not in limits.watchdog_actions:
        yield (
            "pfc_watchdog.action",
            f"PFC watchdog action {wd.action!r} has no equivalent on this platform"
            f" (allowed: {', '.join(limits.watchdog_actions)})",
        )
    step = limits.watchdog_time_step_ms
    for field in ("detection_ms", "restoration_ms"):
        value = getattr(wd, field)
        if value % step:
            yield (
                f"pfc_watchdog.{field}",
                f"{value} ms cannot be written on this platform (allowed: a multiple of {step} ms)",
            )


def port_problems(
    intent: Intent, sw: Switch, interfaces: dict[str, Interface], limits: RenderLimits, label: str
) -> list[Problem]:
    """The ports of switch ``sw`` its platform cannot render: a speed it has no keyword for (located at the
    ports list the switch took), a PFC port on a cable shorter than it sizes headroom for (at the link)."""
    problems: list[Problem] = []
    speeds = limits.port_speeds_mbps
    where, path = intent.provenance.get((sw.name, "ports"), (None, "switches"))
    for iface in interfaces.values():
        if speeds is not None and iface.speed_mbps is not None and iface.speed_mbps not in speeds:
            allowed = ", ".join(speed_label(s) for s in speeds)
            problems.append(
                Problem(
                    where,
                    path,
                    f"{label} ({sw.name}): port {iface.name} speed {speed_label(iface.speed_mbps)} has no"
                    f" keyword on this platform (allowed: {allowed})",
                )
            )
    problems += _breakout_problems(sw, interfaces, limits, (where, path), label)
    if limits.pfc_cable_m_min:
        short = {i.name for i in interfaces.values() if i.pfc_priorities and (i.cable_m or 0) < limits.pfc_cable_m_min}
        for link in intent.links:
            for end in (link.a, link.b):
                if end[0] == sw.name and end[1] in short:
                    problems.append(
                        Problem(
                            None,
                            f"{link.origin.split(' ')[0]}.length",
                            f"{label} ({sw.name}): port {end[1]} has"
                            f" PFC on a {link.length} m cable (allowed: at least {limits.pfc_cable_m_min} m)",
                        )
                    )
    return problems


def _breakout_problems(
    sw: Switch, interfaces: dict[str, Interface], limits: RenderLimits, at: tuple[Location | None, str], label: str
) -> list[Problem]:
    """A cage used whole and broken out at once, or broken into more sub-ports than it has."""
    if limits.sub_port is None:
        return []
    pattern = re.compile(limits.sub_port)
    widest: dict[str, int] = {}
    for name in interfaces:
        m = pattern.fullmatch(name)
        if m:
            widest[m[1]] = max(widest.get(m[1], 0), int(m[2]) + 1)
    out: list[Problem] = []
    for cage, count in widest.items():
        if cage in interfaces:
            out.append(
                Problem(
                    *at,
                    f"{label} ({sw.name}): {cage} is used whole and broken out at the same time"
                    " (allowed: either the cage or its sub-ports)",
                )
            )
        if limits.sub_ports_max is not None and count > limits.sub_ports_max:
            out.append(
                Problem(
                    *at, f"{label} ({sw.name}): {cage} has {count} sub-ports (allowed: at most {limits.sub_ports_max})"
                )
            )
    return out


def network_problems(network: str, max_paths: int, limits: RenderLimits, where: str) -> list[Problem]:
    """The underlay settings of ``network`` the platform cannot render."""
    if limits.bgp_max_paths_max is not None and max_paths > limits.bgp_max_paths_max:
        return [
            Problem(
                None,
                f"networks.{network}.underlay.max_paths",
                f"{where}: {max_paths} ECMP paths (allowed: at most {limits.bgp_max_paths_max} on this platform)",
            )
        ]
    return []


def host_problems(intent: Intent, limits: RenderLimits, label: str) -> list[Problem]:
    """NIC names the host platform cannot print, one line per name in its host profile, naming its hosts."""
    checks = [(what, re.compile(p)) for what, p in (("netdev", limits.netdev_name), ("rdma", limits.rdma_name)) if p]
    bad: dict[tuple[str, str, str], list[str]] = {}
    for host in intent.hosts.values():
        for nic in host.nics.values():
            for what, pattern in checks:
                value = nic.netdev if what == "netdev" else nic.rdma
                if value is not None and not pattern.fullmatch(value):
                    bad.setdefault((host.profile_name, what, value), []).append(host.name)
    return [
        Problem(
            None,
            f"host_profiles.{profile}.nics",
            f"{label} ({_shown(hosts)}): {what} name {value!r} cannot be printed into the host's scripts"
            f" (allowed: {getattr(limits, what + '_name')})",
        )
        for (profile, what, value), hosts in bad.items()
    ]


def _shown(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
