"""xoff's EOS push against the emulator (an independent oracle of EOS's sessions): a site's own lines (a
user, NTP) and the clean-config's survive the replace, and verify then finds nothing to judge in them."""

from __future__ import annotations

from pathlib import Path

from tests.support.eos_cli_helpers import INVENTORY, Cli, RecordingContext, rendered
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.eos import Emulator
from xoff.platforms.eos.apply import RUNNING_CONFIG, Strategy
from xoff.platforms.eos.config_tree import config_diff

SITE = ("username ops privilege 15 role network-admin nopassword", "ntp server 192.0.2.123")


def test_the_replace_keeps_what_xoff_does_not_manage(tmp_path: Path) -> None:
    fabric = tmp_path / "fabric.json"
    fabric.write_text(build_fabric_state(load_intent(INVENTORY / "lab-mini")).model_dump_json(), encoding="utf-8")
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", fabric_state=fabric)
    cli = Cli(Emulator(ctx))
    cli.quiet("enable", "configure", *SITE, "end")
    before = cli.run("show running-config")
    desired = {RUNNING_CONFIG: rendered("lab-mini", "spine2")}
    change = Strategy().diff(before, desired)
    assert change.lines and not [ln for ln in change.lines if "ntp" in ln or "username" in ln or "aaa" in ln]

    cli.quiet("configure session push", "rollback clean-config", *change.payload, "commit")
    after = cli.run("show running-config")
    assert all(f"\n{line}\n" in after for line in (*SITE, "no aaa root", "spanning-tree mode mstp")), after
    assert "priority-flow-control on" in after
    assert config_diff(after, desired[RUNNING_CONFIG]) == []
    assert Strategy().diff(after, desired).lines == []
