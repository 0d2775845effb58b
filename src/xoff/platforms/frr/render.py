"""Renderer ``frr``: ``{"frr.conf": text}`` for a switch with BGP, built by ``builder`` and printed
by ``templates/frr/frr.conf.j2``."""

from __future__ import annotations

from xoff.desired.models import Device, FabricState
from xoff.platforms.frr.builder import build_frr_config
from xoff.render.jinja import render_template

TEMPLATE = "frr/frr.conf.j2"
FILE = "frr.conf"


def render_frr_conf(device: Device, fabric: FabricState) -> str:
    """The frr.conf text of one switch; ``device.bgp`` must be set (ValueError otherwise)."""
    return render_template(TEMPLATE, c=build_frr_config(device, fabric))


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    """A device without BGP (no underlay to run) gets no frr.conf, rather than an empty one."""
    if device.bgp is None:
        return {}
    return {FILE: render_frr_conf(device, fabric)}
