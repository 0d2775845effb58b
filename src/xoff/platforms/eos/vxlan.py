"""EOS ``interface Vxlan1``: the VTEP of a leaf whose tenant VRFs cross the spines as VXLAN-EVPN (symmetric IRB,
an L3 VNI per VRF, type-5 routes; the BGP side is in ``bgp.py``).

``vxlan source-interface Loopback0`` (the VTEP address is the loopback the underlay routes), ``vxlan udp-port
4789`` (IANA's VXLAN port, EOS's default, written out as AVD writes it), and ``vxlan vrf <name> vni <n>`` per
tenant VRF with an L3 VNI. Arista EOS user manual, "VXLAN" ("Configuring the VXLAN interface", "vxlan vrf
vni"), and AVD eos_cli_config_gen ``vxlan-interface.j2`` (vxlan_interface.vxlan1.vxlan: source_interface,
udp_port, vrfs[].vni). EOS has one VXLAN interface, ``Vxlan1``.
"""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.eos.schema import VxlanInterface

UDP_PORT = 4789  # RFC 7348 §5
SOURCE = "Loopback0"


def build_vxlan_interface(device: Device) -> VxlanInterface | None:
    vrfs = sorted((v for v in device.vrfs if v.vni is not None), key=lambda v: v.name)
    if not vrfs or device.bgp is None or not device.bgp.evpn:
        return None
    return {
        "source_interface": SOURCE,
        "udp_port": UDP_PORT,
        "vrfs": [{"name": v.name, "vni": v.vni} for v in vrfs if v.vni is not None],
    }
