"""The CONFIG_DB a switch has before anything is pushed to it.

The lab brings switches up provisioned for the underlay (docs/lab.md): cabled ports up with the
intent's MTU and addresses, the loopback, and BGP running in FRR. CONFIG_DB says the same, built
by the renderer's own builders from the lab's FabricState (``ctx.fabric_state``): DEVICE_METADATA,
PORT, INTERFACE, LOOPBACK_INTERFACE and BGP_NEIGHBOR, and nothing of the lossless plan (no QoS
maps, PFC, ECN, buffers or watchdog): that is what a push brings. Without a FabricState:
DEVICE_METADATA of a SONiC virtual switch only.
"""

from __future__ import annotations

from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.platforms.sonic.config_db import bgp_tables, device_tables, interface_tables
from xoff.platforms.sonic.names import router_mac

DEFAULT_MTU = "9100"  # portmgrd's default, and the MTU of SONiC's generated PORT entries
VS_HWSKU = "Force10-S6000"  # what SONiC's virtual switch reports
VS_PLATFORM = "x86_64-kvm_x86_64-r0"


def factory_config_db(ctx: EmulatorContext) -> dict[str, dict[str, dict[str, Any]]]:
    device = ctx.desired_device()
    if device is not None and device.kind == "switch":
        out: dict[str, dict[str, dict[str, Any]]] = {}
        out.update(device_tables(device))
        out.update(interface_tables(device))
        out.update(bgp_tables(device))
        return {table: rows for table, rows in out.items() if rows}
    return {
        "DEVICE_METADATA": {
            "localhost": {
                "hostname": ctx.device,
                "hwsku": VS_HWSKU,
                "mac": router_mac(ctx.device),
                "platform": VS_PLATFORM,
                "type": "LeafRouter",
            }
        }
    }
