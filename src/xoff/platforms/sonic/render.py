"""SONiC renderer: ``config_db.json`` from a switch's FabricState (xoff.render.registry)."""

from __future__ import annotations

from xoff.desired.models import Device, FabricState
from xoff.platforms.sonic.config_db import build_config_db
from xoff.render.jinja import render_template

TEMPLATE = "sonic/config_db.json.j2"


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    return {"config_db.json": render_template(TEMPLATE, config_db=build_config_db(device, fabric))}
