"""Builder for the PFC watchdog (FabricState ``Device.pfc_watchdog``).

Cumulus's watchdog has two global knobs, not SONiC's detection/restoration times
(reference/lossless.md §2.2; CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/
Quality-of-Service/_index.md, "PFC Watchdog"):

- ``nv set qos pfc-watchdog polling-interval <ms>`` (100-5000, default 100);
- ``nv set qos pfc-watchdog robustness <polls>`` (1-1000, default 3): how many polling intervals a queue
  must stay paused before the watchdog mitigates. xoff maps the intent's detection time onto it:
  ``robustness = ceil(detection_ms / poll_interval_ms)``, so the storm is declared no earlier than asked.

Per port: ``nv set interface <port> qos pfc-watchdog state enable`` (5.6 "New Commands"); only on ports
with PFC, and the watchdog then covers every lossless traffic class of the port, so the planned queues
must be exactly the port's lossless queues. What NVUE cannot express is an error, never dropped:
the action is always drop (mitigation discards new packets to the queue), and restoration is fixed at
one polling interval without pause frames, so ``restoration_ms`` has no knob and is not rendered.
"""

from __future__ import annotations

import math

from xoff.desired.models import Device
from xoff.platforms.cumulus import CumulusRenderError
from xoff.platforms.cumulus.nvue import Tree, put
from xoff.platforms.cumulus.qos import priority_to_queue

POLL_MIN, POLL_MAX = 100, 5000
ROBUSTNESS_MIN, ROBUSTNESS_MAX = 1, 1000


def robustness(detection_ms: int, poll_interval_ms: int) -> int:
    """Polls before mitigation: ``ceil(detection / poll)``, at least 1 (300 ms at 100 ms -> 3)."""
    return max(ROBUSTNESS_MIN, math.ceil(detection_ms / poll_interval_ms))


def build_pfc_watchdog(device: Device) -> Tree:
    tree: Tree = {}
    wd = device.pfc_watchdog
    if wd is None:
        return tree
    if wd.action != "drop":
        raise CumulusRenderError(f"{device.name}: PFC watchdog action {wd.action!r}: Cumulus only drops")
    if not POLL_MIN <= wd.poll_interval_ms <= POLL_MAX:
        raise CumulusRenderError(
            f"{device.name}: PFC watchdog poll {wd.poll_interval_ms} ms outside {POLL_MIN}-{POLL_MAX} ms"
        )
    polls = robustness(wd.detection_ms, wd.poll_interval_ms)
    if polls > ROBUSTNESS_MAX:
        raise CumulusRenderError(f"{device.name}: PFC watchdog needs {polls} polls (at most {ROBUSTNESS_MAX})")
    put(tree, ("qos", "pfc-watchdog", "polling-interval"), wd.poll_interval_ms)
    put(tree, ("qos", "pfc-watchdog", "robustness"), polls)
    to_queue = priority_to_queue(device.qos) if device.qos is not None else {}
    for port in wd.ports:
        iface = device.interfaces.get(port)
        if iface is None or not iface.pfc_priorities:
            raise CumulusRenderError(f"{device.name}: PFC watchdog on {port}, which has no PFC")
        lossless_queues = sorted({to_queue.get(p, p) for p in iface.pfc_priorities})
        if sorted(wd.queues) != lossless_queues:
            raise CumulusRenderError(
                f"{device.name}: PFC watchdog on queues {sorted(wd.queues)} of {port}; Cumulus watches all its "
                f"lossless queues {lossless_queues}"
            )
        put(tree, ("interface", port, "qos", "pfc-watchdog", "state"), "enable")
    return tree
