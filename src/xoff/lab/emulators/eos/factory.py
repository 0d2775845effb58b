"""The running-config an EOS switch has before anything is pushed to it.

The lab brings switches up provisioned for the underlay (docs/lab.md): every front-panel port and
Management1 with its address, cabled ports routed with the intent's MTU and addresses, the
loopback, ``ip routing`` and BGP running in FRR. The running-config says the same: it is the EOS
renderer's own structured config (``platforms/eos/structured.py``) with the lossless plan taken out
(QoS maps, per-port QoS trust, PFC, tx-queues/ECN, PFC watchdog: what a push brings), rendered by
the renderer's own templates and read back through the emulator's grammar. So the underlay lines of
the factory and of the rendered file are the same lines, and a push changes only the lossless part.

Without a FabricState (unit tests, a device the fabric does not have): a bare switch,
``hostname <device>`` and ``no ip routing``.
"""

from __future__ import annotations

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.eos.model import RunningConfig
from xoff.lab.emulators.eos.store import clean, parse
from xoff.platforms.eos.render import TEMPLATE
from xoff.platforms.eos.schema import StructuredConfig
from xoff.platforms.eos.structured import build_structured_config
from xoff.render.jinja import render_template


def underlay_only(sc: StructuredConfig) -> StructuredConfig:
    """``sc`` without what ``xoff push`` brings: QoS, PFC, tx-queues, watchdog, and the intent's static
    routes (the lab's FRR boots without them too, ``lab.daemons``)."""
    out: StructuredConfig = {**sc, "qos": None, "priority_flow_control": None, "static_routes": []}
    out["ethernet_interfaces"] = [
        {**iface, "qos": None, "priority_flow_control": None, "tx_queues": []} for iface in sc["ethernet_interfaces"]
    ]
    return out


def factory_text(ctx: EmulatorContext) -> str | None:
    """The provisioned running-config of the switch ``ctx`` names, in xoff's rendered format; None
    without a FabricState that has the device as a switch."""
    device = ctx.desired_device()
    if device is None or device.kind != "switch":
        return None
    return render_template(TEMPLATE, **underlay_only(build_structured_config(device)))


def factory_config(ctx: EmulatorContext) -> tuple[RunningConfig, bool]:
    """The factory running-config, and whether it is the provisioned one (the lab has already put it
    into the namespace and FRR) rather than the bare one."""
    text = factory_text(ctx)
    if text is None:
        return clean(hostname=ctx.device), False
    return parse(text), True
