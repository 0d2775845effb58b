"""The factory state of an EOS switch in the lab: a new switch as Arista ships it (clean-config lines,
every port at its defaults, Management1 with the lab's management address), built from the hostname, the
management address and the port names only; the underlay comes with a push."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.eos_cli_helpers import (
    INVENTORY,
    Cli,
    RecordingContext,
    make_cli,
    rendered,
    replace_with_rendered,
    with_clean_config,
)
from tests.support.fresh_ast import parsed
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.emulators.eos import Emulator, store
from xoff.lab.emulators.eos.store import header

EMULATOR = Path(__file__).parents[4] / "src" / "xoff" / "lab" / "emulators" / "eos"
LAB_MINI_SPINE2 = """\
!
hostname spine2
!
interface Ethernet1/1
!
interface Ethernet2/1
!
interface Ethernet3/1
!
interface Ethernet4/1
!
interface Management1
   ip address 198.19.252.12/24
!
no ip routing
!
end
"""


@pytest.fixture
def fabric_json(tmp_path: Path) -> Path:
    path = tmp_path / "fabric.json"
    path.write_text(build_fabric_state(load_intent(INVENTORY / "lab-mini")).model_dump_json(), encoding="utf-8")
    return path


def test_factory_is_a_new_switch_with_its_management_address(tmp_path: Path, fabric_json: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=fabric_json)
    cli.quiet("enable")
    assert cli.run("show running-config") == header("spine2") + with_clean_config(LAB_MINI_SPINE2)


def test_without_a_fabric_state_the_switch_is_bare(tmp_path: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=tmp_path / "absent.json")
    cli.quiet("enable")
    bare = "!\nhostname spine2\n!\ninterface Management1\n!\nno ip routing\n!\nend\n"
    assert cli.run("show running-config") == header("spine2") + with_clean_config(bare)


def test_the_emulator_imports_nothing_of_xoffs_renderer_or_intent() -> None:
    """The emulator keeps its own model of EOS: no xoff.platforms, xoff.render, xoff.desired, xoff.intent."""
    imported = set()
    for path, tree in parsed(list(EMULATOR.glob("*.py"))).items():  # parsed in a child: see fresh_ast
        for node in tree["imports"]:
            if node["kind"] == "from" and node["module"]:
                imported.add((path.name, node["module"]))
            elif node["kind"] == "import":
                imported.update((path.name, name) for name in node["names"])
    banned = ("xoff.platforms", "xoff.render", "xoff.desired", "xoff.intent", "xoff.collect", "xoff.push")
    assert [(f, m) for f, m in sorted(imported) if m.startswith(banned)] == []
    assert any(m == "xoff.lab.emulators.eos.model" for _, m in imported), "the walk saw the package"


def test_a_provisioned_boot_changes_nothing_in_the_namespace(tmp_path: Path, fabric_json: Path) -> None:
    """The lab has already put management and the underlay into the namespace and FRR: booting touches none of it."""
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", fabric_state=fabric_json)
    Emulator(ctx)
    assert ctx.calls == []


def test_push_and_undo_to_the_factory_backup(tmp_path: Path, fabric_json: Path) -> None:
    """A push (session: rollback clean-config + xoff's file) and its undo (the same with the backup): the
    management address is never touched, and the switch ends exactly at its backup."""
    ctx = RecordingContext(device="spine2", state_dir=tmp_path / "state", netns="xl-t-spine2", fabric_state=fabric_json)
    cli = Cli(Emulator(ctx))
    cli.quiet("enable")
    backup = cli.run("show running-config")

    def replace_with(name: str, text: str) -> None:
        cli.quiet(f"configure session {name}", "rollback clean-config")
        cli.quiet(*[ln for ln in text.splitlines() if ln.strip() and not ln.startswith("!") and ln != "end"])
        cli.quiet("commit")

    replace_with("push", rendered("lab-mini", "spine2"))
    pushed = cli.run("show running-config")
    assert "priority-flow-control on" in pushed and "\nip routing\n" in pushed
    assert "\nno aaa root\n" in pushed, "clean-config's lines stay under a pushed file, as on a real switch"
    replace_with("undo", backup)
    assert cli.run("show running-config") == backup
    touched = [line for batch in ctx.ip_batches() for line in batch]
    assert touched and not [c for c in touched if "Management1" in c], touched


def test_a_physical_port_cannot_be_removed(tmp_path: Path, fabric_json: Path) -> None:
    cli = make_cli(tmp_path / "state", fabric_state=fabric_json)
    cli.quiet("enable", "configure", "no interface Ethernet1/1", "no interface Management1", "end")
    shown = cli.run("show running-config")
    assert "interface Ethernet1/1\n!\n" in shown and "interface Management1\n!\n" in shown
    cli.quiet("configure", "no interface Loopback0", "end")
    assert "Loopback0" not in cli.run("show running-config")


def test_a_written_running_config_is_known_as_parsing_it_gives(tmp_path: Path, fabric_json: Path) -> None:
    """The running-config a process wrote is remembered for its later sessions without parsing the file again,
    and what is remembered is what parsing the file gives: the factory configuration, and a pushed one."""
    cli = make_cli(tmp_path / "state", fabric_state=fabric_json)  # boots: the factory configuration written
    device = cli.emu.cli.device
    factory = device.store.running_text()
    assert factory in store._PARSED, "remembered when written"
    assert store._parsed(factory) == store.parse(factory)
    replace_with_rendered(cli, tmp_path / "state")
    pushed = device.store.running_text()
    assert pushed != factory and pushed in store._PARSED
    assert store._parsed(pushed) == store.parse(pushed)
    again = make_cli(tmp_path / "state", fabric_state=fabric_json)  # a new session of the device shows it
    again.quiet("enable")
    assert again.run("show running-config") == pushed
