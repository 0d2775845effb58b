"""CONFIG_DB changes through the SONiC emulator: YANG-validated, refused whole, persistent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.sonic_emu import put, run
from xoff.lab.emulators.base import SessionFaults
from xoff.lab.emulators.sonic import Emulator

Session = Callable[..., Emulator]


def loaded(session: Session, rendered: dict[str, Any]) -> Emulator:
    emulator = session()
    put(emulator, "rendered.json", rendered)
    reply = run(emulator, "sudo config load rendered.json -y")
    assert reply.status == 0, reply.output
    return emulator


def test_factory_config_is_yang_valid_and_provisioned_for_the_underlay_only(session: Session, state_dir: Path) -> None:
    """As the lab brings switches up (docs/lab.md): cabled ports up with addresses, loopback, BGP, and the
    tables and fields a real image ships (init_cfg.json.j2, PORT fec/autoneg/...); nothing of the lossless plan,
    which is what a push brings."""
    emulator = session()
    config = emulator.running()
    assert emulator.validate(config) == []
    underlay = {"DEVICE_METADATA", "PORT", "INTERFACE", "LOOPBACK_INTERFACE", "BGP_NEIGHBOR"}
    standard = {"CRM", "FLEX_COUNTER_TABLE", "BGP_DEVICE_GLOBAL", "FEATURE", "AUTO_TECHSUPPORT", "SYSLOG_CONFIG"}
    standard |= {"SYSLOG_CONFIG_FEATURE", "PASSW_HARDENING", "KDUMP", "NTP"}
    assert set(config) == underlay | standard
    assert {"fec", "autoneg", "admin_status", "alias", "lanes", "index", "speed"} <= set(config["PORT"]["Ethernet0"])
    assert {"default_pfcwd_status", "default_bgp_status", "timezone"} <= set(config["DEVICE_METADATA"]["localhost"])
    admin = {name: f["admin_status"] for name, f in config["PORT"].items()}
    assert admin["Ethernet0"] == "up" and admin["Ethernet48"] == "down"  # cabled / spare
    assert "Ethernet0|198.18.0.8/31" in config["INTERFACE"]
    # startup configuration = running configuration at first use
    assert (state_dir / "saved" / "config_db.json").read_text() == (state_dir / "config_db.json").read_text()


def test_valid_patch_applies_and_persists_across_sessions(session: Session, rendered: dict[str, Any]) -> None:
    emulator = loaded(session, rendered)
    put(emulator, "mtu.json", [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
    reply = run(emulator, "sudo config apply-patch mtu.json")
    assert reply.status == 0
    assert reply.output.endswith("Patch Applier: localhost patch application completed.\nPatch applied successfully.\n")
    assert '  * [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}]' in reply.output
    later = session()  # a new SSH session on the same device
    assert later.running()["PORT"]["Ethernet0"]["mtu"] == "9000"
    shown = json.loads(run(later, "show runningconfiguration all").output)
    assert shown["PORT"]["Ethernet0"]["mtu"] == "9000"


def _wred_min_above_max(config: dict[str, Any]) -> list[dict[str, Any]]:
    profile = next(iter(config["WRED_PROFILE"]))
    return [{"op": "replace", "path": f"/WRED_PROFILE/{profile}/green_max_threshold", "value": "1000"}]


INVALID = {
    "pfc_enable 3,9": (
        lambda _c: [{"op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable", "value": "3,9"}],
        'Unsatisfied pattern - "3,9" does not conform to "([0-7](,[0-7])*)?".',
    ),
    "WRED max < min": (_wred_min_above_max, "Green max threshold must be greater than or equal to min threshold"),
    "BUFFER_PG -> missing profile": (
        lambda _c: [{"op": "replace", "path": "/BUFFER_PG/Ethernet0|3/profile", "value": "no_such_profile"}],
        'Invalid union value "no_such_profile"',
    ),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_patch_is_refused_with_the_yang_message(
    case: str, session: Session, rendered: dict[str, Any], state_dir: Path
) -> None:
    emulator = loaded(session, rendered)
    make, message = INVALID[case]
    before = (state_dir / "config_db.json").read_bytes()
    put(emulator, "bad.json", make(emulator.running()))
    reply = run(emulator, "sudo config apply-patch bad.json")
    assert reply.status == 2
    assert "Patch Applier: localhost: sorting patch updates.\nFailed to apply patch due to: " in reply.output
    assert "- localhost: Given patch will produce invalid config. Error: Data Loading Failed\n" in reply.output
    assert message in reply.output
    assert (
        'Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH\nTry "config apply-patch -h" for help.\n' in reply.output
    )
    assert "Patch applied successfully." not in reply.output
    assert (state_dir / "config_db.json").read_bytes() == before


def test_patch_that_touches_several_tables_is_refused_whole(
    session: Session, rendered: dict[str, Any], state_dir: Path
) -> None:
    emulator = loaded(session, rendered)
    before = (state_dir / "config_db.json").read_bytes()
    patch = [
        {"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"},  # valid on its own
        {"op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/pfc_enable", "value": "3,9"},
    ]
    put(emulator, "mixed.json", patch)
    assert run(emulator, "sudo config apply-patch mixed.json").status == 2
    assert (state_dir / "config_db.json").read_bytes() == before


def test_dry_run_changes_nothing(session: Session, rendered: dict[str, Any], state_dir: Path) -> None:
    emulator = loaded(session, rendered)
    before = (state_dir / "config_db.json").read_bytes()
    put(emulator, "mtu.json", [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
    reply = run(emulator, "sudo config apply-patch mtu.json --dry-run")
    assert reply.output.startswith("** DRY RUN EXECUTION **\nPatch Applier: localhost: Patch application starting.\n")
    assert reply.output.endswith("Patch applied successfully.\n")
    assert (state_dir / "config_db.json").read_bytes() == before


def test_jsonpatch_errors_and_gcu_rules(session: Session, rendered: dict[str, Any]) -> None:
    emulator = loaded(session, rendered)
    put(emulator, "missing.json", [{"op": "remove", "path": "/PORT/Ethernet999"}])
    reply = run(emulator, "sudo config apply-patch missing.json")
    assert reply.status == 2 and "failed due to:can't remove a non-existent object 'Ethernet999'" in reply.output
    put(emulator, "wd.json", [{"op": "remove", "path": "/PFC_WD/GLOBAL"}])
    reply = run(emulator, "sudo config apply-patch wd.json")
    assert "Given patch operation is invalid. Operation: remove is illegal on field: /PFC_WD/GLOBAL" in reply.output
    put(emulator, "empty.json", [{"op": "replace", "path": "/WRED_PROFILE", "value": {}}])
    reply = run(emulator, "sudo config apply-patch empty.json")
    assert "will result in empty tables" in reply.output and "Table: WRED_PROFILE" in reply.output
    put(emulator, "noyang.json", [{"op": "add", "path": "/NO_SUCH_TABLE", "value": {"k": {"f": "v"}}}])
    reply = run(emulator, "sudo config apply-patch noyang.json")
    assert "Given patch is not valid because it has changes to tables without YANG models" in reply.output


def test_checkpoint_and_rollback_restore(session: Session, rendered: dict[str, Any], state_dir: Path) -> None:
    emulator = loaded(session, rendered)
    before = emulator.running()
    reply = run(emulator, "sudo config checkpoint before-change")
    assert reply.output.endswith(
        "Config Rollbacker: Saving config db content to /etc/sonic/checkpoints/before-change.cp.json.\n"
        "Config Rollbacker: Config checkpoint completed.\nCheckpoint created successfully.\n"
    )
    assert run(emulator, "sudo config list-checkpoints").output == '[\n    "before-change"\n]\n'
    put(emulator, "p.json", [{"op": "replace", "path": "/PORT/Ethernet8/admin_status", "value": "down"}])
    assert run(emulator, "sudo config apply-patch p.json").status == 0
    assert emulator.running() != before
    reply = run(emulator, "sudo config rollback before-change")
    assert reply.status == 0 and reply.output.endswith(
        "Config rollbacking completed.\nConfig rolled back successfully.\n"
    )
    assert emulator.running() == before
    missing = run(emulator, "sudo config rollback nope")
    assert missing.status == 2 and missing.output.endswith("Error: Checkpoint 'nope' does not exist\n")
    assert run(emulator, "sudo config delete-checkpoint before-change").status == 0
    assert run(emulator, "sudo config list-checkpoints").output == "[]\n"


def test_save_reload_and_invalid_load(session: Session, rendered: dict[str, Any], state_dir: Path) -> None:
    emulator = loaded(session, rendered)
    reply = run(emulator, "sudo config save -y")
    assert reply.output == "Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json\n"
    saved = (state_dir / "saved" / "config_db.json").read_text()
    assert json.loads(saved) == emulator.running()
    assert run(emulator, "cat /etc/sonic/config_db.json").output == saved
    put(emulator, "mtu.json", [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
    run(emulator, "sudo config apply-patch mtu.json")
    reply = run(emulator, "sudo config reload -y")
    assert reply.output.startswith("Acquired lock on /etc/sonic/reload.lock\nDisabling container monitoring ...\n")
    assert reply.output.endswith("Released lock on /etc/sonic/reload.lock\n")
    assert emulator.running()["PORT"]["Ethernet0"]["mtu"] != "9000"
    before = (state_dir / "config_db.json").read_bytes()
    bad = json.loads(saved)
    bad["PORT"]["Ethernet0"]["mtu"] = "99999"
    put(emulator, "bad.json", bad)
    reply = run(emulator, "sudo config load bad.json -y")
    assert reply.status == 1 and reply.output.startswith("bad.json fails YANG validation! Error: Data Loading Failed\n")
    assert reply.output.endswith("Aborted!\n")
    assert (state_dir / "config_db.json").read_bytes() == before


def test_interface_commands_change_config_db(session: Session, rendered: dict[str, Any]) -> None:
    emulator = loaded(session, rendered)
    assert run(emulator, "sudo config interface mtu Ethernet48 4200").status == 0
    assert run(emulator, "sudo config interface startup Ethernet48").status == 0
    assert run(emulator, "sudo config interface ip add Ethernet48 198.18.9.0/31").status == 0
    port = emulator.running()["PORT"]["Ethernet48"]
    assert (port["mtu"], port["admin_status"]) == ("4200", "up")
    assert "Ethernet48|198.18.9.0/31" in emulator.running()["INTERFACE"]
    assert run(emulator, "sudo config interface ip remove Ethernet48 198.18.9.0/31").status == 0
    assert "Ethernet48" not in emulator.running()["INTERFACE"]
    assert run(emulator, "sudo config interface shutdown Ethernet48").status == 0
    assert emulator.running()["PORT"]["Ethernet48"]["admin_status"] == "down"
    reply = run(emulator, "sudo config interface mtu Ethernet0 10000")  # click's range check
    assert reply.output.endswith(
        'Error: Invalid value for "<interface_mtu>": 10000 is not in the valid range of 68 to 9216.\n'
    )
    before = emulator.running()
    reply = run(emulator, "sudo config interface ip add Ethernet99 198.18.9.0/31")  # YANG: no such PORT
    assert reply.status == 2 and "Given patch will produce invalid config" in reply.output
    assert emulator.running() == before
    assert run(emulator, "sudo config interface mtu Ethernet99 9000").output == "Invalid port Ethernet99\n"
    reply = run(emulator, "sudo config interface shutdown Ethernet99")
    assert reply.output.endswith("Error: Interface name is invalid. Please enter a valid interface name!!\n")


def test_reject_nth_fails_exactly_the_nth_config_command(
    session: Session, rendered: dict[str, Any], state_dir: Path
) -> None:
    emulator = loaded(session, rendered)  # that load was this session's config command 1
    SessionFaults(reject_nth=3).save(state_dir)
    put(emulator, "mtu.json", [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9000"}])
    assert run(emulator, "show interfaces status").status == 0  # show commands are not counted
    assert run(emulator, "sudo config list-checkpoints").status == 0  # 2
    before = (state_dir / "config_db.json").read_bytes()
    third = run(emulator, "sudo config apply-patch mtu.json")  # 3: refused
    assert third.status == 2
    assert third.output.startswith("Failed to apply patch due to: rejected by the lab's fault hook (reject_nth=3)\n")
    assert (state_dir / "config_db.json").read_bytes() == before
    assert run(emulator, "sudo config apply-patch mtu.json").status == 0  # 4


def test_confirmation_prompts(session: Session) -> None:
    emulator = session(pty=True)
    reply = run(emulator, "sudo config save")
    assert reply.output == ""
    assert emulator.prompt() == "Existing files will be overwritten, continue? [y/N]: "
    assert run(emulator, "n").output == "Aborted!\r\n"
    assert emulator.prompt() == "admin@leaf1:~$ "
    run(emulator, "sudo config save")
    assert run(emulator, "y").output.startswith("Running command: ")
    exec_session = session()
    reply = exec_session.execute("sudo config reload")
    assert reply.status == 1
    assert reply.output.endswith("[y/N]: \nReleased lock on /etc/sonic/reload.lock\nAborted!\n")


def test_factory_config_is_read_by_the_collector_with_its_unmodelled_names(session: Session) -> None:
    """The emulator's factory CONFIG_DB, as `show runningconfiguration all` prints it, is read with no error;
    what xoff does not model (the init_cfg tables, PORT fec/autoneg/...) is listed, never refused."""
    from xoff.platforms.sonic.running import read_running_config

    emulator = session()
    running = read_running_config(run(emulator, "show runningconfiguration all").output)
    assert running.errors == []
    assert running.reading.switch["name"] == "leaf1"
    unmodelled = set(running.reading.unmodelled)
    assert {"FEATURE", "CRM", "FLEX_COUNTER_TABLE", "NTP", "PORT.fec", "PORT.autoneg"} <= unmodelled
    assert {"DEVICE_METADATA.default_pfcwd_status", "BGP_NEIGHBOR.holdtime"} <= unmodelled


def test_a_push_from_factory_keeps_the_fields_xoff_does_not_model(session: Session, rendered: dict[str, Any]) -> None:
    """The apply strategy's patch from the factory CONFIG_DB to xoff's: the tables and fields xoff does not
    model (FEATURE, PORT fec/autoneg, DEVICE_METADATA timezone, BGP_NEIGHBOR timers) are never removed."""
    from xoff.platforms.sonic.apply import config_patch

    emulator = session()
    factory = emulator.running()
    ops, lines = config_patch(factory, rendered)
    removed = [line for line in lines if line.startswith("- ")]
    assert not [line for line in removed if any(f in line for f in ("fec=", "autoneg=", "timezone=", "holdtime="))]
    assert all(not op["path"].startswith("/FEATURE") for op in ops)
    assert any(line.startswith("+ PFC_WD") or line.startswith("+ PORT_QOS_MAP") for line in lines)  # the push's own
