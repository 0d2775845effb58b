"""lab-mini with both spines SONiC (an all-SONiC compute network; with its EOS spine, tests/platforms/eos/
test_eos_evpn.py), its tenants carried by VXLAN-EVPN."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import ROOT

EOS_SPINE = "  - {name: spine2, role: spine, platform: eos, asic: tomahawk5, mgmt: 198.19.252.12,\n"
EOS_PORTS = '     ports: [{name: "Ethernet{1..4}/1", speed: 400G, use: downlink}]}\n'
SONIC_SPINE = "  - {name: spine2, role: spine, mgmt: 198.19.252.12}\n"
TENANTS = (
    "- {name: blue, hosts: ['gpu{1..2}'], vni: 50001}\n  - {name: red, hosts: ['gpu{3..4}'], share_lossless: true}"
)


def sonic_only(tmp_path: Path, items: str) -> Path:
    """lab-mini with both spines SONiC and two tenants."""
    target = tmp_path / "lab-mini"
    shutil.copytree(ROOT / "inventory" / "lab-mini", target)
    devices = target / "devices.yaml"
    text = devices.read_text(encoding="utf-8")
    assert EOS_SPINE + EOS_PORTS in text
    devices.write_text(text.replace(EOS_SPINE + EOS_PORTS, SONIC_SPINE), encoding="utf-8")
    (target / "tenants.yaml").write_text(f"tenants:\n  {items}\n", encoding="utf-8")
    return target
