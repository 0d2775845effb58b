"""The plan's dynamic-model profiles equal SONiC's Lua on the same inputs (gearbox delay, over-subscription)."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.intent import load_intent

MINIMAL = ROOT / "tests" / "fixtures" / "intent" / "minimal.yaml"
LUA = ROOT / "tests" / "fixtures" / "sonic-lua" / "headroom.csv"


def _lua(**want: str) -> tuple[int, int, int]:
    with LUA.open(newline="", encoding="utf-8") as f:
        (row,) = [r for r in csv.DictReader(f) if all(r[k] == v for k, v in want.items())]
    return int(row["xon"]), int(row["xoff"]), int(row["size"])


def test_dynamic_plan_uses_gearbox_and_ratio_as_sonic(tmp_path: Path) -> None:
    text = MINIMAL.read_text().replace(
        "    cnp_class: cnp\n",
        "    cnp_class: cnp\n    buffers: {model: dynamic, gearbox_delay_ns: 700, over_subscribe_ratio: 2}\n",
    )
    path = tmp_path / "intent.yaml"
    path.write_text(text)
    buffers = build_fabric_state(load_intent(path)).devices["leaf1"].buffers
    assert buffers is not None and buffers.over_subscribe_ratio == 2 and buffers.gearbox_delay_ns == 700
    profile = buffers.profiles["pg_lossless_400000_5m_profile"]
    # The ratio turns the shared headroom pool on, as a pool xoff does: the stored case with a pool xoff.
    want = _lua(
        asic="spectrum4", speed_mbps="400000", cable_m="5", port_mtu="9100", small_packet_percentage="50",
        pool_xoff="1048576", gearbox_delay_ns="700", lanes="4",
    )  # fmt: skip
    assert (profile.xon, profile.xoff, profile.size) == want
