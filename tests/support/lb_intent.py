"""lab-mini (SONiC, EOS and Cumulus switches) with load_balancing edits, for the load-balancing tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import ROOT

LAB_MINI = ROOT / "inventory" / "lab-mini"
SONIC_DEFAULTS = "    hwsku: ACS-SN5600\n"
EOS_SPINE = "platform: eos, asic: tomahawk5, mgmt: 198.19.252.12,"
CUMULUS_LEAF = "asic: spectrum3, mgmt: 198.19.252.31,"
LEAF_ROLE = "  leaf:\n    ports:\n"
SPINE_ROLE = "  spine:\n    ports:\n"
PROFILE = "    nic_model: connectx7\n"


def lb_intent(tmp: Path, *edits: tuple[str, str]) -> Path:
    """A copy of lab-mini with each (old, new) replaced once in devices.yaml."""
    out = tmp / "intent"
    shutil.copytree(LAB_MINI, out)
    devices = out / "devices.yaml"
    text = devices.read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    devices.write_text(text)
    return out


# lab-mini's SONiC switches (spine1, leaf1, leaf2) as Cumulus ones: the platform that renders seeds and adaptive
# routing; spine2 stays EOS and sleaf1 Cumulus
TO_CUMULUS: tuple[tuple[str, str], ...] = (
    ("    platform: sonic\n", "    platform: cumulus\n"),
    ("    hwsku: ACS-SN5600\n", ""),
    (
        '{name: "Ethernet{0..24..8}", speed: 400G, use: downlink}\n  leaf:',
        '{name: "swp{1..4}", speed: 400G, use: downlink}\n  leaf:',
    ),
    (
        '      - {name: "Ethernet{0..24..8}", speed: 400G, use: downlink}\n      - {name: "Ethernet{32..56..8}"',
        '      - {name: "swp{1..4}", speed: 400G, use: downlink}\n      - {name: "swp{5..8}"',
    ),
)

# adaptive routing on the Cumulus leaf (sleaf1), and host profiles whose NICs take RoCE out of order
AR_SLEAF_EDIT = (CUMULUS_LEAF, f"{CUMULUS_LEAF} load_balancing: {{adaptive_routing: true}},")
OOO_HOSTS_EDIT = (PROFILE, f"{PROFILE}    roce_adaptive_routing: true\n")
