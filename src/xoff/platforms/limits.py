"""What a platform's renderer can say (QoS maps, watchdog, port speeds), declared on its ``Platform`` record and
judged at plan time.

A renderer that meets a map or a timer its NOS has no command for must not print something else, and must not
fail with a traceback at render time either: the plan refuses the policy first, with one located line per field
(``FILE:LINE:COL: qos_policies.rdma.classes.roce.queue: ...``), so ``check``, ``plan``, ``render`` and ``push``
all stop with exit 2 and nothing is pushed. The limits are data (``RenderLimits``), so ``docs/platforms.md`` lists
them; ``xoff.desired.limits.policy_problems`` is the one judge, called once per (policy, platform) by the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

WATCHDOG_ACTIONS = ("drop", "forward", "alert")


@dataclass(frozen=True)
class RenderLimits:
    """What a platform's renderer can express; the defaults are "anything the intent allows"."""

    # the egress queue of every class must be its traffic class (the NOS fixes traffic class N -> queue N)
    queue_is_traffic_class: bool = False
    # a lossless class's PFC priority must be its traffic class (the NOS pauses by traffic class)
    lossless_priority_is_traffic_class: bool = False
    # a traffic class carries one switch priority (the NOS classifies DSCP to a priority, not to a class)
    one_priority_per_traffic_class: bool = False
    # the PFC watchdog actions the NOS has
    watchdog_actions: tuple[str, ...] = WATCHDOG_ACTIONS
    # the finest step of the watchdog's detection and restoration times the NOS can write, in ms
    watchdog_time_step_ms: int = 1
    # the most the DWRR weights of a policy may add up to (the NOS takes percentages), None: no limit
    dwrr_total_max: int | None = None
    # the port speeds (Mb/s) the NOS has a keyword for, None: every speed the intent allows
    port_speeds_mbps: tuple[int, ...] | None = None
    # the shortest cable (m) a port with PFC may have (the NOS sizes headroom from it)
    pfc_cable_m_min: int = 0
    # a breakout sub-port's name, groups (cage port, lane index from 0), and the most sub-ports a cage has;
    # a cage is then used whole or broken out, never both
    sub_port: str | None = None
    sub_ports_max: int | None = None
    # the most ECMP paths BGP may install (maximum-paths), None: no limit
    bgp_max_paths_max: int | None = None
    # hosts: the netdev and RDMA device names its files can print (a regular expression, full match)
    netdev_name: str | None = None
    rdma_name: str | None = None

    def summary(self) -> str:
        """One cell of the platform matrix: what is refused, or "none"."""
        speeds = self.port_speeds_mbps
        parts = [
            (self.queue_is_traffic_class, "queue = traffic class"),
            (self.lossless_priority_is_traffic_class, "lossless priority = traffic class"),
            (self.one_priority_per_traffic_class, "one priority per traffic class"),
            (self.watchdog_actions != WATCHDOG_ACTIONS, f"watchdog action {'|'.join(self.watchdog_actions)}"),
            (self.watchdog_time_step_ms > 1, f"watchdog times in {self.watchdog_time_step_ms} ms steps"),
            (self.dwrr_total_max is not None, f"DWRR weights total <= {self.dwrr_total_max}"),
            (speeds is not None, "port speeds " + "/".join(_speed(s) for s in speeds or ())),
            (self.pfc_cable_m_min > 0, f"PFC cables >= {self.pfc_cable_m_min} m"),
            (
                self.sub_ports_max is not None,
                f"at most {self.sub_ports_max} sub-ports per cage, cage whole or broken out",
            ),
            (self.bgp_max_paths_max is not None, f"BGP max paths <= {self.bgp_max_paths_max}"),
            (self.netdev_name is not None, f"netdev names `{self.netdev_name}`"),
            (self.rdma_name is not None, f"RDMA device names `{self.rdma_name}`"),
        ]
        return ", ".join(text for applies, text in parts if applies) or "none"


def _speed(mbps: int) -> str:
    """400000 -> "400G", 1600000 -> "1.6T" (as ``intent.types.speed_label``, which this module, read while the
    platform registry loads, cannot import: the intent's types read the registry)."""
    return f"{mbps / 1_000_000:g}T" if mbps >= 1_000_000 else f"{mbps // 1000}G" if mbps >= 1000 else f"{mbps}M"
