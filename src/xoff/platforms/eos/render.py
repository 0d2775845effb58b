"""Render an EOS switch: one file, ``running-config``.

The name: the file is the device's whole intended running configuration, in the format
``show running-config`` prints, so the same text is what ``configure replace`` (or
``copy FILE running-config``) applies and what a collector reads back for drift. A
``startup-config`` is only the copy on flash that the next boot loads; saving is a push step.
"""

from __future__ import annotations

from xoff.desired.models import Device, FabricState
from xoff.platforms.eos.schema import EthernetInterface, StructuredConfig
from xoff.platforms.eos.structured import build_structured_config
from xoff.render.jinja import render_template

FILE = "running-config"
TEMPLATE = "eos/running-config.j2"
TX_QUEUES = "eos/tx-queues.j2"


def tx_queue_texts(interfaces: list[EthernetInterface]) -> dict[str, str]:
    """Each port's tx-queue blocks (``eos/tx-queues.j2``) by port name, printed once per list: every fabric
    port of a switch carries the same list of queues (``build_ethernet_interfaces``), most of the work."""
    printed: dict[int, str] = {}  # by id(): the lists are alive for the whole call
    out = {}
    for iface in interfaces:
        queues = iface["tx_queues"]
        text = printed.get(id(queues))
        if text is None:
            text = printed[id(queues)] = render_template(TX_QUEUES, tx_queues=queues) if queues else ""
        out[iface["name"]] = text
    return out


def render_structured_config(config: StructuredConfig) -> str:
    """The running-config text of a structured config (the templates' part of the render)."""
    return render_template(TEMPLATE, **config, tx_queue_text=tx_queue_texts(config["ethernet_interfaces"]))


def render_running_config(device: Device) -> str:
    return render_structured_config(build_structured_config(device))


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    """``{"running-config": text}``; an EOS switch needs nothing fabric-wide beyond its own state."""
    del fabric  # part of the renderer interface; everything EOS needs is already in the device's state
    return {FILE: render_running_config(device)}
