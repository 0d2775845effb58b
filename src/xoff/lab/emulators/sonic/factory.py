"""The CONFIG_DB a switch has before anything is pushed to it.

From the lab's FabricState (``ctx.fabric_state``) when the device is a switch there: its
DEVICE_METADATA and a PORT entry per Ethernet port (lanes, alias, speed from the same builders
the renderer uses), every port admin down with SONiC's default MTU 9100, and nothing else: no
addresses, no BGP, no QoS. Without one: DEVICE_METADATA of a SONiC virtual switch only.
"""

from __future__ import annotations

from typing import Any

from xoff.desired.models import FabricState
from xoff.lab.emulators.base import EmulatorContext
from xoff.platforms.sonic.config_db import device_tables, interface_tables
from xoff.platforms.sonic.names import router_mac

DEFAULT_MTU = "9100"  # portmgrd's default, and the MTU of SONiC's generated PORT entries
VS_HWSKU = "Force10-S6000"  # what SONiC's virtual switch reports
VS_PLATFORM = "x86_64-kvm_x86_64-r0"


def factory_config_db(ctx: EmulatorContext) -> dict[str, dict[str, dict[str, Any]]]:
    if ctx.fabric_state is not None and ctx.fabric_state.exists():
        fabric = FabricState.model_validate_json(ctx.fabric_state.read_text(encoding="utf-8"))
        device = fabric.devices.get(ctx.device)
        if device is not None and device.kind == "switch":
            out: dict[str, dict[str, dict[str, Any]]] = {}
            out.update(device_tables(device))
            ports = interface_tables(device).get("PORT", {})
            if ports:
                out["PORT"] = {
                    name: {**fields, "admin_status": "down", "mtu": DEFAULT_MTU} for name, fields in ports.items()
                }
            return out
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
