"""The factory state of an EOS switch in the lab: provisioned for the underlay (docs/lab.md), so its
running-config is xoff's rendered running-config without the lossless plan, and undoing a push
(rollback to the factory backup) keeps the switch reachable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import INVENTORY, Cli, RecordingContext, as_eos_shows, make_cli, rendered
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.eos import Emulator
from xoff.lab.emulators.eos.store import header

# the lines of xoff's file that a push brings (QoS, PFC, tx-queues/ECN, watchdog)
LOSSLESS = re.compile(
    r"^\s*(qos |priority-flow-control|tx-queue|no priority|priority strict|bandwidth percent|random-detect)"
)


@pytest.fixture
def fabric_json(tmp_path: Path) -> Path:
    path = tmp_path / "fabric.json"
    path.write_text(build_fabric_state(load_intent(INVENTORY / "lab-mini")).model_dump_json(), encoding="utf-8")
    return path


def _underlay_of(text: str) -> str:
    """xoff's file without its lossless lines, and without the ``!`` separators left with nothing to separate."""
    lines = [ln for ln in text.splitlines() if not LOSSLESS.match(ln)]
    out: list[str] = []
    for i, ln in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if ln.strip() == "!" and (nxt.strip() == "!" or (ln.startswith(" ") and not nxt.startswith(" "))):
            continue
        out.append(ln)
    return "".join(ln + "\n" for ln in out)


def test_factory_is_the_rendered_underlay(tmp_path: Path, fabric_json: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=fabric_json)
    cli.quiet("enable")
    shown = cli.run("show running-config")
    assert shown == as_eos_shows(_underlay_of(rendered("lab-mini", "spine2")), "spine2")
    assert "interface Management1\n   ip address 192.0.2.12/24\n" in shown
    assert "interface Ethernet3/1\n   shutdown\n" in shown, "an uncabled port is listed too"
    assert "\nip routing\n" in shown and "qos" not in shown and "priority-flow-control" not in shown


def test_without_a_fabric_state_the_switch_is_bare(tmp_path: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=tmp_path / "absent.json")
    cli.quiet("enable")
    assert cli.run("show running-config") == header("spine2") + "!\nhostname spine2\n!\nno ip routing\n!\nend\n"


def test_a_provisioned_boot_changes_nothing_in_the_namespace(tmp_path: Path, fabric_json: Path) -> None:
    """The lab has already put the underlay into the namespace and FRR: booting re-applies none of it."""
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", fabric_state=fabric_json)
    Emulator(ctx)
    assert ctx.calls == []


def test_rollback_to_the_factory_backup_keeps_the_switch_reachable(tmp_path: Path, fabric_json: Path) -> None:
    """A push (session: rollback clean-config + xoff's file) and its undo (the same with the backup):
    the management address is never touched, and the switch ends exactly at its backup."""
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", fabric_state=fabric_json)
    cli = Cli(Emulator(ctx))
    cli.quiet("enable")
    backup = cli.run("show running-config")

    def replace_with(name: str, text: str) -> None:
        cli.quiet(f"configure session {name}", "rollback clean-config")
        cli.quiet(*[ln for ln in text.splitlines() if ln.strip() and not ln.startswith("!") and ln != "end"])
        cli.quiet("commit")

    replace_with("push", rendered("lab-mini", "spine2"))
    assert "priority-flow-control on" in cli.run("show running-config")
    replace_with("undo", backup)
    assert cli.run("show running-config") == backup
    touched = [" ".join(c) for c in ctx.calls if c[0] == "ip"]
    assert not [c for c in touched if "Management1" in c], touched
    assert touched == [], "QoS has no kernel counterpart: neither the push nor its undo changes the namespace"


def test_a_physical_port_cannot_be_removed(tmp_path: Path, fabric_json: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=fabric_json)
    cli.quiet("enable", "configure", "no interface Ethernet1/1", "no interface Management1", "end")
    shown = cli.run("show running-config")
    assert "interface Ethernet1/1\n!\n" in shown and "interface Management1\n!\n" in shown
    cli.quiet("configure", "no interface Loopback0", "end")
    assert "Loopback0" not in cli.run("show running-config")
