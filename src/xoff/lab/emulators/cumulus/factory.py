"""The NVUE configuration a switch has before anything is pushed to it.

The lab brings switches up provisioned for the underlay (docs/lab.md): cabled ports with the intent's
MTU, admin state and addresses, the loopback, and BGP running in FRR. NVUE's applied revision says the
same, built by the renderer's own builders from the lab's FabricState (``ctx.fabric_state``): ``system
hostname``, ``interface`` (type, link state/speed/MTU, breakouts, ``ip address``) and ``router bgp`` /
``vrf default router bgp``; nothing of the lossless plan (QoS maps, PFC, traffic pools, ECN,
schedulers, PFC watchdog): that is what a push brings. Without a FabricState (unit tests, a device the
fabric does not have): what a fresh switch's NVUE says that xoff's grammar knows, ``system hostname
cumulus``.
"""

from __future__ import annotations

from xoff.lab.emulators.base import EmulatorContext
from xoff.platforms.cumulus.bgp import build_bgp
from xoff.platforms.cumulus.interfaces import build_interfaces, build_system
from xoff.platforms.cumulus.nvue import Tree, merge

FACTORY_HOSTNAME = "cumulus"


def factory_tree(ctx: EmulatorContext | None = None) -> Tree:
    """The factory applied revision of the switch ``ctx`` names (minimal without a FabricState)."""
    device = ctx.desired_device() if ctx is not None else None
    if device is not None and device.kind == "switch":
        tree: Tree = {}
        for builder in (build_system, build_interfaces, build_bgp):
            merge(tree, builder(device))
        return tree
    return {"system": {"hostname": FACTORY_HOSTNAME}}
