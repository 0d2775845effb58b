"""The VXLAN-EVPN part of EOS ``show running-config`` (``parse.py`` calls these for its sections): each tenant
VRF's L3 VNI (``interface Vxlan1`` ``vxlan vrf <name> vni <n>``), the sessions ``address-family evpn``
activates, and a ``router bgp`` VRF's ``rd``, evpn route targets and ``address-family ipv4`` networks.

What is not read is counted by name (no values): ``vxlan source-interface``, ``vxlan udp-port``, ``vxlan vlan``
(an L2 VNI), a VRF's neighbours, ``redistribute``, a VRF's route targets of another address family, ...
A VNI or RT line xoff cannot read is a located error and that VRF's value is not observed.
Formats: the public EOS captures in tests/fixtures/real/eos/show_running-config (README there).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

_VRF_VNI = re.compile(r"^vxlan vrf (\S+) vni (\d+)$")
_RT = re.compile(r"^route-target (import|export|both) evpn (\S+)$")
_KEYWORD = re.compile(r"^[a-z][a-z-]*$")
VNI_MAX = 16_777_215


class Line(Protocol):
    line: str
    number: int

    @property
    def children(self) -> Sequence[Line]: ...


@dataclass
class EosBgpVrf:
    rd: str | None = None
    rt_import: list[str] = field(default_factory=list)  # route-target import evpn (and both)
    rt_export: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)


def name_of(line: str) -> str:
    """The command without its values: ``vxlan vlan 110 vni 10110`` -> ``vxlan vlan``, ``neighbor X ...`` -> ``neighbor``."""
    words = line.split()
    out = [words[0]]
    if len(words) > 1 and _KEYWORD.match(words[1]):
        out.append(words[1])
    return " ".join(out)


def read_vxlan(node: Line, unmodelled: Counter[str], errors: list[str]) -> dict[str, int]:
    """VRF -> L3 VNI from ``interface Vxlan1``."""
    vnis: dict[str, int] = {}
    for child in node.children:
        if match := _VRF_VNI.match(child.line):
            vni = int(match[2])
            if not 1 <= vni <= VNI_MAX:
                errors.append(f"line {child.number}: '{child.line}': VNI {vni} out of 1-{VNI_MAX}")
                continue
            vnis[match[1]] = vni
        elif child.line.startswith("vxlan vrf "):
            errors.append(f"line {child.number}: '{child.line}': not a 'vxlan vrf NAME vni N' line")
        else:
            unmodelled[f"interface Vxlan.{name_of(child.line)}"] += 1
    return vnis


def read_address_family_evpn(node: Line, unmodelled: Counter[str]) -> list[str]:
    """The peers (addresses or peer groups) ``address-family evpn`` activates."""
    active: list[str] = []
    for child in node.children:
        if match := re.match(r"^neighbor (\S+) activate$", child.line):
            active.append(match[1])
        else:
            unmodelled[f"router bgp.address-family evpn.{name_of(child.line)}"] += 1
    return active


def read_bgp_vrf(node: Line, unmodelled: Counter[str]) -> EosBgpVrf:
    vrf = EosBgpVrf()
    for child in node.children:
        line = child.line
        if match := re.match(r"^rd (\S+)$", line):
            vrf.rd = match[1]
        elif match := _RT.match(line):
            if match[1] in ("import", "both"):
                vrf.rt_import.append(match[2])
            if match[1] in ("export", "both"):
                vrf.rt_export.append(match[2])
        elif line == "address-family ipv4":
            for inner in child.children:
                if match := re.match(r"^network (\S+)$", inner.line):
                    vrf.networks.append(match[1])
                else:
                    unmodelled[f"router bgp.vrf.address-family ipv4.{name_of(inner.line)}"] += 1
        elif not line.startswith("router-id "):  # the VRF's router-id: the underlay's, not a Vrf field
            unmodelled[f"router bgp.vrf.{name_of(line)}"] += 1
    return vrf


def route_target(vrf: EosBgpVrf) -> str | None:
    """The VRF's evpn route target as ``Vrf.route_target`` holds it (one, imported and exported); when import
    and export differ, both are named, so a comparison with the intended one sees the difference."""
    imported, exported = sorted(set(vrf.rt_import)), sorted(set(vrf.rt_export))
    if not imported and not exported:
        return None
    if imported == exported and len(imported) == 1:
        return imported[0]
    return f"import {' '.join(imported) or 'none'} export {' '.join(exported) or 'none'}"
