"""The Cumulus emulator takes xoff's load-balancing lines (ecmp-hash fields, hash-seed, adaptive routing, per
port too) as NVUE's object model documents them, applies them, and refuses values outside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cumulus_emu import run, session, set_lines

from tests.support.lb_intent import CUMULUS_LEAF, lb_intent
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.render import render_fabric


def test_rendered_load_balancing_applies(tmp_path: Path) -> None:
    edit = (CUMULUS_LEAF, f"{CUMULUS_LEAF} load_balancing: {{seed: 7, adaptive_routing: true}},")
    state = build_fabric_state(load_intent(lb_intent(tmp_path / "intent", edit)))
    (f,) = [f for f in render_fabric(state, devices=["sleaf1"]) if f.name == "nvue-commands.txt"]
    lines = [ln for ln in set_lines(f.content) if "forwarding" in ln or "adaptive-routing" in ln]
    lines.append("nv set interface swp1 router adaptive-routing enable on")
    emu = session(tmp_path / "state")
    for line in lines:
        reply = run(emu, line)
        assert (reply.status, reply.output) == (0, ""), line
    assert run(emu, "nv config diff -o commands").output.splitlines() == lines
    assert run(emu, "nv config apply -y").status == 0


@pytest.mark.parametrize(
    "line",
    [
        "nv set system forwarding ecmp-hash source-ip enabled",  # 5.15+ spelling
        "nv set system forwarding ecmp-hash destination-qp on",  # no such field
        "nv set system forwarding hash-seed 4294967296",  # above 32 bits
        "nv set router adaptive-routing enable yes",
    ],
)
def test_refused(tmp_path: Path, line: str) -> None:
    emu = session(tmp_path)
    reply = run(emu, line)
    assert reply.status == 1 and reply.output.startswith("Error:"), reply.output
    assert run(emu, "nv config diff").output == ""
