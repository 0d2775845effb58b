"""CONFIG_DB of a SONiC leaf carrying tenant VRFs across the spines as VXLAN-EVPN (symmetric IRB, an L3
VNI per tenant VRF, type-5 routes; the BGP side is FRR's, in frr.conf).

Tables and fields (sonic-net/sonic-buildimage ``src/sonic-yang-models/yang-models/sonic-vxlan.yang`` and
``sonic-vrf.yang``; the SONiC EVPN VXLAN HLD, sonic-net/SONiC ``doc/vxlan/EVPN/EVPN_VXLAN_HLD.md``; the
commands that write them, sonic-net/sonic-utilities ``config/vxlan.py`` and ``config/main.py``
``vrf add_vrf_vni_map``):

- ``VXLAN_TUNNEL|vtep`` ``src_ip``: the VTEP, the switch's loopback (the underlay routes it);
- ``VXLAN_EVPN_NVO|nvo`` ``source_vtep``: EVPN learns remote VTEPs for that tunnel (one per switch);
- an L3 VNI is a VLAN of its own mapped to the VNI (``VXLAN_TUNNEL_MAP|vtep|map_<vni>_<Vlan>``, the
  name ``config vxlan map add`` gives), the VLAN's interface bound to the VRF (``VLAN_INTERFACE``
  ``vrf_name``: the SVI of symmetric IRB), and ``VRF|<name>`` ``vni`` (``config vrf add_vrf_vni_map``).

The VLAN of an L3 VNI is local to the switch; xoff numbers them from ``FIRST_L3VNI_VLAN`` in VRF order.
"""

from __future__ import annotations

from xoff.desired.models import Device
from xoff.platforms.sonic.tables import Tables

VTEP = "vtep"
NVO = "nvo"
FIRST_L3VNI_VLAN = 3001  # clear of VLAN 1 (the default) and of the 4000s SONiC reserves internally


def l3vni_vlans(device: Device) -> dict[str, int]:
    """VRF name -> the local VLAN of its L3 VNI (VRFs with a VNI, in name order)."""
    named = sorted(v.name for v in device.vrfs if v.vni is not None)
    return {name: FIRST_L3VNI_VLAN + i for i, name in enumerate(named)}


def build(device: Device) -> Tables:
    """VXLAN_TUNNEL, VXLAN_EVPN_NVO, VXLAN_TUNNEL_MAP, VLAN, VLAN_INTERFACE and each VRF's ``vni``."""
    vlans = l3vni_vlans(device)
    if not vlans or device.bgp is None:
        return {}
    vnis = {v.name: v.vni for v in device.vrfs if v.vni is not None}
    return {
        "VXLAN_TUNNEL": {VTEP: {"src_ip": device.bgp.router_id}},
        "VXLAN_EVPN_NVO": {NVO: {"source_vtep": VTEP}},
        "VXLAN_TUNNEL_MAP": {
            f"{VTEP}|map_{vnis[vrf]}_Vlan{vlan}": {"vlan": f"Vlan{vlan}", "vni": str(vnis[vrf])}
            for vrf, vlan in vlans.items()
        },
        "VLAN": {f"Vlan{vlan}": {"vlanid": str(vlan)} for vlan in vlans.values()},
        "VLAN_INTERFACE": {f"Vlan{vlan}": {"vrf_name": vrf} for vrf, vlan in vlans.items()},
    }


def vrf_fields(device: Device) -> dict[str, dict[str, str]]:
    """``VRF``: every tenant VRF, with its L3 VNI where it has one."""
    return {v.name: ({"vni": str(v.vni)} if v.vni is not None else {}) for v in device.vrfs}
