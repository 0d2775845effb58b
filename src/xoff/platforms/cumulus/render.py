"""Renderer ``cumulus``: ``nvue-commands.txt`` and ``startup.yaml`` for a Cumulus Linux switch.

One builder per FabricState key fills an NVUE tree; the command file prints each builder's leaves
as its own section, the startup file prints the merged tree. Both come from the same trees, and the
tests parse both files back and compare them leaf by leaf.
"""

from __future__ import annotations

from collections.abc import Callable

from xoff.desired.models import Device, FabricState
from xoff.platforms.cumulus import NVUE_RELEASES
from xoff.platforms.cumulus.bgp import build_bgp, build_vrfs
from xoff.platforms.cumulus.interfaces import build_interfaces, build_system
from xoff.platforms.cumulus.load_balancing import build_load_balancing
from xoff.platforms.cumulus.nvue import Scalar, Tree, commands, merge, yaml_lines
from xoff.platforms.cumulus.qos import build_qos
from xoff.platforms.cumulus.static_routes import build_static_routes
from xoff.platforms.cumulus.watchdog import build_pfc_watchdog
from xoff.render.jinja import render_template
from xoff.render.memo import Memo, key_of

COMMANDS_FILE = "nvue-commands.txt"
STARTUP_FILE = "startup.yaml"

# (section title, FabricState key it renders, builder), in apply order: ports exist before QoS names them
SECTIONS: tuple[tuple[str, str, Callable[[Device], Tree]], ...] = (
    ("system", "Device.name", build_system),
    ("vrfs", "Device.vrfs", build_vrfs),
    ("interfaces", "Device.interfaces", build_interfaces),
    ("qos", "Device.qos, Interface.pfc_priorities, Interface.cable_m", build_qos),
    ("pfc watchdog", "Device.pfc_watchdog", build_pfc_watchdog),
    ("static routes", "Device.static_routes", build_static_routes),
    ("bgp", "Device.bgp", build_bgp),
    ("load balancing", "Device.load_balancing", build_load_balancing),
)


def build(device: Device) -> list[tuple[str, str, Tree]]:
    """(section, state key, NVUE tree) per builder."""
    return [(title, key, builder(device)) for title, key, builder in SECTIONS]


def render(device: Device, fabric: FabricState) -> dict[str, str]:
    """Both files of one switch; raises CumulusRenderError for what NVUE cannot express."""
    if device.platform != "cumulus":
        raise ValueError(f"{device.name}: platform {device.platform!r}, not cumulus (fabric {fabric.fabric})")
    sections = build(device)
    printed = [{"title": t, "key": k, "commands": _command_text(tree)} for t, k, tree in sections if tree]
    merged: Tree = {}
    for _, _, tree in sections:
        merge(merged, tree, take=True)  # the sections' trees are printed already: no copies
    lines = [line for key, subtree in merged.items() for line in _yaml_block(key, subtree)]
    context = {"device": device.name, "fabric": fabric.fabric, "releases": NVUE_RELEASES}
    return {
        COMMANDS_FILE: render_template("cumulus/nvue-commands.txt.j2", sections=printed, **context),
        STARTUP_FILE: render_template("cumulus/startup.yaml.j2", lines=lines, **context),
    }


# Every spine of a fabric has the same QoS and watchdog trees (a third of the leaves): their printed forms are
# kept, keyed by the tree itself (render.memo.key_of), so a hit is what printing would give.
_COMMANDS: Memo[str] = Memo(16 * 2**20, len)
_YAML: Memo[list[str]] = Memo(2**18, len)  # lines


def _command_text(tree: Tree) -> str:
    """A section's ``nv set`` lines, joined."""
    return _COMMANDS.get(key_of(tree), lambda: "\n".join(commands(tree)))


def _yaml_block(key: str, subtree: Tree | Scalar) -> list[str]:
    """The YAML lines of one top-level key of the merged tree."""
    block: Tree = {key: subtree}
    return _YAML.get(key_of(block), lambda: yaml_lines(block))
