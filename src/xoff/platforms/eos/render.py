"""Render an EOS switch: one file, ``running-config``.

The name: the file is the device's whole intended running configuration, in the format
``show running-config`` prints, so the same text is what ``configure replace`` (or
``copy FILE running-config``) applies and what a collector reads back for drift. A
``startup-config`` is only the copy on flash that the next boot loads; saving is a push step.
"""

from __future__ import annotations

from xoff.desired.models import Device, FabricState
from xoff.platforms.eos.structured import build_structured_config
from xoff.render.jinja import render_template

FILE = "running-config"
TEMPLATE = "eos/running-config.j2"


def render_running_config(device: Device) -> str:
    return render_template(TEMPLATE, **build_structured_config(device))


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    """``{"running-config": text}``; an EOS switch needs nothing fabric-wide beyond its own state."""
    del fabric  # part of the renderer interface; everything EOS needs is already in the device's state
    return {FILE: render_running_config(device)}
