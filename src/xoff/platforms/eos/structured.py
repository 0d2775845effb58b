"""The EOS structured config of one device: one builder per top-level key, in running-config order."""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.eos.bgp import build_router_bgp
from xoff.platforms.eos.interfaces import (
    build_ethernet_interfaces,
    build_loopback_interfaces,
    build_management_interfaces,
)
from xoff.platforms.eos.load_balancing import build_ip_load_sharing
from xoff.platforms.eos.qos import build_priority_flow_control, build_qos
from xoff.platforms.eos.schema import StaticRoute, StructuredConfig
from xoff.platforms.eos.vxlan import build_vxlan_interface


def build_structured_config(device: Device) -> StructuredConfig:
    """Everything the running-config says, as data (AVD ``eos_cli_config_gen`` key names)."""
    if device.kind != "switch":
        raise ValueError(f"{device.name}: the EOS renderer configures switches, not {device.kind}s")
    return {
        "hostname": device.name,
        "vrfs": [{"name": v.name, "ip_routing": True} for v in device.vrfs],
        "ethernet_interfaces": build_ethernet_interfaces(device),
        "loopback_interfaces": build_loopback_interfaces(device),
        "management_interfaces": build_management_interfaces(device),
        "vxlan_interface": build_vxlan_interface(device),
        "ip_routing": True,  # a routed (RFC 7938) fabric; EOS boots with IP routing off
        "ip_load_sharing": build_ip_load_sharing(device),
        "static_routes": [
            StaticRoute(prefix=r.prefix, interface=r.interface, next_hop=r.next_hop) for r in device.static_routes
        ],
        "qos": build_qos(device),
        "priority_flow_control": build_priority_flow_control(device),
        "router_bgp": build_router_bgp(device),
    }
