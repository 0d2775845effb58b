"""Tenant VRFs in the lab, carried across the spines by VXLAN-EVPN with the real FRR.

This kernel has no ``vrf`` link type, so a tenant VRF of a switch is a network namespace of its own (FRR's
netns VRF backend, ``zebra -n``): ``<switch namespace>--<VRF>`` holds the tenant's host-facing ports (moved
there with their addresses), the L3 VNI's VXLAN device (made in the switch's namespace, so its UDP socket
and VTEP address, the loopback, stay in the underlay, then moved in) and a bridge as the L3 VNI's SVI.
zebra names a netns VRF after its file in ``/run/netns``; every lab's namespaces are there, so each
switch's zebra runs in a mount namespace of its own whose ``/run/netns`` is a tmpfs holding only its VRFs,
under their intent names (``Vrf-blue``), bound to the real namespaces. Nothing of it is left in the host's
mounts: the mount namespace ends with zebra. zebra maps each VRF to its VNI (``vrf NAME`` / ``vni N`` in
zebra.conf, as in an integrated frr.conf); bgpd exchanges the type-5 routes and zebra installs them into
the VRF namespaces' tables, routed over the VXLAN devices.

FRR documents the netns backend in zebra's ``-n, --vrfwnetns`` and "VRF" chapters
(docs.frrouting.org/en/stable-8.4/zebra.html, "Virtual Routing and Forwarding") and the VXLAN devices of a
netns VRF in its EVPN chapter (docs.frrouting.org/en/stable-8.4/evpn.html, "Support with VRF network
namespace backend").
"""

from __future__ import annotations

from pathlib import Path

from xoff.desired.models import Device
from xoff.lab import netns
from xoff.lab.topology import DevicePlan

SEP = "--"
VXLAN_PORT = 4789  # IANA (RFC 7348 §5)
NETNS_RUN = "/run/netns"


def vrf_namespace(dp: DevicePlan, vrf: str) -> str:
    return f"{dp.netns}{SEP}{vrf}"


def evpn_vrfs(device: Device) -> list[tuple[str, int]]:
    """(VRF, L3 VNI) of the switch's tenant VRFs carried by EVPN."""
    return [(v.name, v.vni) for v in device.vrfs if v.vni is not None]


def zebra_conf(device: Device) -> str:
    """zebra's configuration: the hostname and each tenant VRF's L3 VNI."""
    lines = [f"hostname {device.name}"]
    for vrf, vni in evpn_vrfs(device):
        lines += [f"vrf {vrf}", f" vni {vni}", "exit-vrf"]
    return "\n".join(lines) + "\n"


def set_up(device: Device, dp: DevicePlan) -> None:
    """Each EVPN VRF's namespace, VXLAN device, bridge and host ports (once: a namespace there is kept)."""
    if device.bgp is None:
        return
    vtep = device.bgp.router_id
    for vrf, vni in evpn_vrfs(device):
        ns = vrf_namespace(dp, vrf)
        if netns.exists(ns):
            continue
        netns.ip(["netns", "add", ns])
        vx, br = f"vx{vni}", f"br{vni}"
        netns.ip_batch(
            [
                f"link add {vx} type vxlan id {vni} dstport {VXLAN_PORT} local {vtep} nolearning",
                f"link set {vx} netns {ns}",
            ],
            netns=dp.netns,
        )
        lines = ["link set lo up", f"link add {br} type bridge", f"link set {vx} master {br}"]
        lines += [f"link set {vx} up", f"link set {br} up"]
        ports = [p for name, p in dp.ports.items() if device.interfaces[name].vrf == vrf]
        netns.ip_batch([f"link set {p.ifname} netns {ns}" for p in ports], netns=dp.netns)
        for p in ports:
            lines += [f"addr add {a} dev {p.ifname}" for a in p.addresses]
            lines += [f"link set {p.ifname} up"]
        netns.ip_batch(lines, netns=ns)
        with netns.entered(ns):
            Path("/proc/sys/net/ipv4/ip_forward").write_text("1", encoding="ascii")


def namespaces(switch_netns: str) -> list[str]:
    """The VRF namespaces of a switch that exist (for teardown)."""
    return netns.names(f"{switch_netns}{SEP}")


def with_vrf_mounts(device: Device, dp: DevicePlan, scratch: Path, argv: list[str]) -> list[str]:
    """zebra's command line, run where ``/run/netns`` holds only this switch's VRFs (see the module doc)."""
    vrfs = evpn_vrfs(device)
    if not vrfs:
        return argv
    binds = " && ".join(
        f'touch "$0/{vrf}" && mount --bind {NETNS_RUN}/{vrf_namespace(dp, vrf)} "$0/{vrf}"' for vrf, _ in vrfs
    )
    script = f'mount -t tmpfs xoff-vrfs "$0" && {binds} && mount --rbind "$0" {NETNS_RUN} && exec "$@"'
    unshare = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, str(scratch)]
    return [*unshare, argv[0], "-n", *argv[1:]]
