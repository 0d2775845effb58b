"""EOS interfaces from FabricState: Ethernet (routed fabric ports), Loopback0 and Management1.

Line syntax follows AVD ``eos_cli_config_gen`` ``ethernet-interfaces.j2`` (reference/lossless.md §3.1).
"""

from __future__ import annotations

import re

from xoff.desired.models import Device, Interface
from xoff.platforms.eos import qos as q
from xoff.platforms.eos.schema import AddressedInterface, EthernetInterface, TxQueue

# EOS forced-speed keywords with a lane count (AVD's ``ethernet_interfaces[].speed`` valid values).
LANE_SPEEDS = frozenset(
    {"10g", "25g", "40g", "50g", "100g", "200g", "400g", "800g", "1.6t"}
    | {"40g-4", "50g-1", "50g-2", "100g-1", "100g-2", "100g-4", "200g-1", "200g-2", "200g-4"}
    | {"400g-2", "400g-4", "400g-8", "800g-4", "800g-8", "1.6t-8"}
)
# Electrical lanes per front-panel cage, by ASIC, where xoff knows the box: Tomahawk 5 is the
# 7060X6 family, OSFP/QSFP-DD octal cages (EOS names their lanes EthernetN/1 .. EthernetN/8).
CAGE_LANES = {"tomahawk5": 8}
_CAGED = re.compile(r"Ethernet(\d+)/(\d+)")


def _speed_word(mbps: int) -> str:
    if mbps % 1000:
        raise ValueError(f"speed {mbps} Mb/s has no EOS keyword (allowed: whole Gb/s)")
    gbps = mbps // 1000
    return "1.6t" if gbps == 1600 else f"{gbps}g"


def lanes_by_port(device: Device) -> dict[str, int]:
    """Lanes each ``EthernetN/M`` port uses: from lane M up to the next configured port of cage N.

    That is how EOS assigns the lanes of a cage (``EthernetN/1`` alone owns all eight; ``/1`` and
    ``/5`` own four each). Only for ASICs in ``CAGE_LANES``; elsewhere the lane count is left to EOS.
    """
    width = CAGE_LANES.get(device.asic or "")
    if width is None:
        return {}
    cages: dict[int, list[int]] = {}
    for name in device.interfaces:
        m = _CAGED.fullmatch(name)
        if m:
            cages.setdefault(int(m[1]), []).append(int(m[2]))
    out: dict[str, int] = {}
    for cage, subs in cages.items():
        ordered = sorted(subs)
        for sub, nxt in zip(ordered, [*ordered[1:], width + 1], strict=True):
            out[f"Ethernet{cage}/{sub}"] = nxt - sub
    return out


def eos_speed(iface: Interface, lanes: int | None) -> str | None:
    """``speed 400g-8`` when the lane count is known and EOS has that mode, else ``speed 400g`` (EOS's default lanes)."""
    if iface.speed_mbps is None:
        return None
    word = _speed_word(iface.speed_mbps)
    if lanes is not None and f"{word}-{lanes}" in LANE_SPEEDS:
        return f"{word}-{lanes}"
    if word in LANE_SPEEDS:
        return word
    raise ValueError(f"{iface.name}: EOS has no speed keyword for {iface.speed_mbps} Mb/s")


def description(iface: Interface) -> str | None:
    """The far end, as the intent writes a link end: ``leaf1:Ethernet40``."""
    return None if iface.peer is None else f"{iface.peer.device}:{iface.peer.port}"


def build_ethernet_interfaces(device: Device) -> list[EthernetInterface]:
    lanes = lanes_by_port(device)
    tx_queues: list[TxQueue] = q.build_tx_queues(device.qos) if device.qos is not None else []
    out: list[EthernetInterface] = []
    for iface in device.interfaces.values():
        if iface.kind != "ethernet":
            continue
        iface_qos = q.interface_qos(device.qos, iface)
        out.append(
            {
                "name": iface.name,
                "description": description(iface),
                "shutdown": not iface.admin_up,
                "mtu": iface.mtu,
                "speed": eos_speed(iface, lanes.get(iface.name)),
                "switchport": {"enabled": False},  # every fabric port is routed (RFC 7938)
                "vrf": iface.vrf,
                "ip_address": iface.addresses[0] if iface.addresses else None,
                "ip_address_secondaries": iface.addresses[1:],
                "qos": iface_qos,
                "priority_flow_control": q.interface_pfc(device, iface),
                "tx_queues": tx_queues if iface_qos is not None else [],
            }
        )
    return out


def _addressed(iface: Interface) -> AddressedInterface:
    return {
        "name": iface.name,
        "ip_address": iface.addresses[0] if iface.addresses else None,
        "ip_address_secondaries": iface.addresses[1:],
    }


def build_loopback_interfaces(device: Device) -> list[AddressedInterface]:
    return [_addressed(i) for i in device.interfaces.values() if i.kind == "loopback"]


def build_management_interfaces(device: Device) -> list[AddressedInterface]:
    return [_addressed(i) for i in device.interfaces.values() if i.kind == "mgmt"]
