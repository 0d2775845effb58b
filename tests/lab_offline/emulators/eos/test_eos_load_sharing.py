"""The EOS emulator takes xoff's ``ip load-sharing`` lines (ECMP hash fields) and shows them back after ``ip
routing``, and refuses a field keyword EOS does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import as_eos_shows, make_cli
from tests.support.lb_intent import SONIC_DEFAULTS, lb_intent
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.render import render_fabric

LB = f"{SONIC_DEFAULTS}    load_balancing: {{hash_fields: [src-ip, dst-ip, l4-src-port, l4-dst-port, flow-label]}}\n"


def _spine2(tmp_path: Path) -> str:
    state = build_fabric_state(load_intent(lb_intent(tmp_path, (SONIC_DEFAULTS, LB))))
    (f,) = [f for f in render_fabric(state, devices=["spine2"]) if f.name == "running-config"]
    return f.content


def test_rendered_load_sharing_is_taken_and_shown(tmp_path: Path) -> None:
    text = _spine2(tmp_path)
    assert (
        "ip load-sharing trident fields ipv6 source-ip destination-ip source-port destination-port flow-label" in text
    )
    c = make_cli(tmp_path / "state", device="factory-name")
    flash = tmp_path / "state" / "files" / "mnt" / "flash"
    (flash / "xoff.cfg").write_text(text, encoding="utf-8")
    c.quiet("enable", "configure replace flash:xoff.cfg")
    assert c.run("show running-config") == as_eos_shows(text, "spine2")


@pytest.mark.parametrize(
    "line",
    [
        "ip load-sharing trident fields ip flow-label",  # the flow label is IPv6's
        "ip load-sharing trident fields ip source-ip source-ip",
        "ip load-sharing trident fields ip src-ip",
    ],
)
def test_unknown_field_is_refused(tmp_path: Path, line: str) -> None:
    c = make_cli(tmp_path / "state")
    c.quiet("enable", "configure")
    assert "% Invalid input" in c.run(line)
    c.quiet("no ip load-sharing trident fields ip")
