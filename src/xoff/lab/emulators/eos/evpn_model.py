"""The VXLAN-EVPN part of an EOS running-config as the lab keeps and prints it: ``interface Vxlan1`` (the VTEP's
source interface, UDP port and each VRF's L3 VNI), ``address-family evpn`` in ``router bgp`` and a tenant VRF's
BGP instance (``vrf NAME``: rd, route-targets, router-id, redistribute, address-family ipv4 networks).

From the Arista EOS user manual ("VXLAN": ``vxlan source-interface``, ``vxlan udp-port`` (default 4789, not
shown), ``vxlan vrf <name> vni <1-16777215>``; "EVPN": ``address-family evpn``, ``neighbor X activate``,
``bgp next-hop-unchanged``; "VRF": ``rd``, ``route-target import|export [evpn] <rt>``) and the order in
public EOS running-configs (tests/fixtures/real/eos/show_running-config): in a VRF ``rd``, the
route-targets (import before export), ``router-id``, ``redistribute``, then ``address-family ipv4``.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

INDENT = "   "
DEFAULT_UDP_PORT = 4789
RT_ORDER = {"both": 0, "import": 1, "export": 2}


@dataclass
class Vxlan:
    source_interface: str | None = None
    udp_port: int = DEFAULT_UDP_PORT
    vrf_vnis: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [f"vxlan source-interface {self.source_interface}"] if self.source_interface else []
        out += [f"vxlan udp-port {self.udp_port}"]  # EOS prints the port, 4789 too (public captures)
        out += [f"vxlan vrf {name} vni {vni}" for name, vni in sorted(self.vrf_vnis.items())]
        return ["interface Vxlan1", *(INDENT + ln for ln in out)]


@dataclass
class BgpVrf:
    rd: str | None = None
    route_targets: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (import|export, af) -> RTs
    router_id: str | None = None
    redistribute: set[str] = field(default_factory=set)
    networks: set[str] = field(default_factory=set)

    def lines(self, name: str) -> list[str]:
        out = [f"rd {self.rd}"] if self.rd is not None else []
        for (direction, af), rts in sorted(self.route_targets.items(), key=lambda kv: (RT_ORDER[kv[0][0]], kv[0][1])):
            words = " ".join(w for w in ("route-target", direction, af) if w)
            out += [f"{words} {rt}" for rt in sorted(rts)]
        out += [f"router-id {self.router_id}"] if self.router_id is not None else []
        out += [f"redistribute {what}" for what in sorted(self.redistribute)]
        if self.networks:
            nets = sorted(self.networks, key=lambda p: ipaddress.IPv4Network(p, strict=False))
            out += ["!", "address-family ipv4", *(f"{INDENT}network {p}" for p in nets)]
        return ["!", f"vrf {name}", *(INDENT + ln for ln in out)]


@dataclass
class Evpn:
    """``address-family evpn`` of ``router bgp``."""

    next_hop_unchanged: bool = False
    active: set[str] = field(default_factory=set)

    def lines(self, order: list[str]) -> list[str]:
        out = ["bgp next-hop-unchanged"] if self.next_hop_unchanged else []
        out += [f"neighbor {peer} activate" for peer in order if peer in self.active]
        return ["!", "address-family evpn", *(INDENT + ln for ln in out)]
