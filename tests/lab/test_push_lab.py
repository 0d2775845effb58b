"""``xoff push`` against lab-mini for real: Nornir + netmiko over SSH with host keys checked, the SONiC,
EOS and Cumulus emulators, OpenSSH hosts with the NIC shims.

The fault tests come first, on switches at factory state (so each has a change to make); each
asserts the end state of every device it pushed to and that the lab's password appears nowhere.
The last tests push the whole fabric from factory to intent, then again (0 changes, no apply).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.cli.push import push_command
from xoff.connect.credentials import load_credentials
from xoff.connect.options import connection_options
from xoff.connect.session import NetmikoSession
from xoff.connect.targets import build_targets, select
from xoff.lab import netns
from xoff.lab.emulators.base import SessionFaults
from xoff.lab.lab import resolve
from xoff.lab.provider import from_lab
from xoff.lab.sshd import LOGIN_LOG
from xoff.lab.state import LabState
from xoff.platforms.cumulus.apply import Strategy as NvueStrategy
from xoff.push.lock import fabric_lock, lock_path
from xoff.render import render_fabric

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"p{os.getpid()}"
SWITCHES = ("spine1", "spine2", "leaf1", "leaf2")


@pytest.fixture(scope="module")
def lab() -> Iterator[LabState]:
    # FRR runs as user frr: the labs root must be traversable (pytest's tmp dirs are 0700)
    with running_lab(INTENT, LAB, prefix="xoff-push-labs-") as root:
        # a dry run reads every switch once, so each emulator has booted and written its factory state
        status, _, out = _push(root, "--dry-run", *(f"--limit={s}" for s in SWITCHES))
        assert status == 0, out
        yield resolve(LAB)


def _password(state: LabState) -> str:
    return str(yaml.safe_load((state.dir / "secrets.yaml").read_text(encoding="utf-8"))["switch"]["password"])


def _push(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    app = typer.Typer()
    app.command()(push_command)
    result = CliRunner().invoke(
        app, [str(INTENT), "--lab", LAB, "-f", "json", "--backup-dir", str(tmp_path / "backups"), *args]
    )
    lines = [json.loads(ln) for ln in result.stdout.splitlines() if ln.startswith("{")]
    return result.exit_code, lines, result.stdout + result.stderr


def _summary(lines: list[dict[str, Any]]) -> dict[str, Any]:
    assert lines and lines[-1]["event"] == "summary", lines[-3:]
    return lines[-1]


def _outcomes(lines: list[dict[str, Any]]) -> dict[str, str]:
    return {r["device"]: r["outcome"] for r in _summary(lines)["results"]}


def _device_state(state: LabState, device: str) -> Any:
    """What the emulator holds as the device's running configuration (None: never booted)."""
    d = state.dir / "devices" / device / "state"
    if (d / "config_db.json").exists():
        return json.loads((d / "config_db.json").read_text(encoding="utf-8"))
    if (d / "running-config").exists():
        return (d / "running-config").read_text(encoding="utf-8")
    return None


def _no_secret(state: LabState, tmp_path: Path, output: str) -> None:
    password = _password(state)
    assert password not in output
    for f in (tmp_path / "backups").rglob("*"):
        if f.is_file():
            assert password not in f.read_text(encoding="utf-8"), f
            assert f.stat().st_mode & 0o077 == 0, f


@contextlib.contextmanager
def _fault(state: LabState, device: str, **kwargs: Any) -> Iterator[None]:
    d = state.dir / "devices" / device / "state"
    SessionFaults(**kwargs).save(d)
    try:
        yield
    finally:
        (d / "faults.json").unlink()


def test_unreachable_device_fails_untouched_and_the_other_finishes(lab: LabState, tmp_path: Path) -> None:
    """leaf2's management link down: connect times out (--timeout-factor 0.25: 5 s, twice); spine1 is
    pushed all the same (its reads follow its pace: no fixed timeout that a busy machine would miss)."""
    ns = lab.devices["leaf2"].netns
    netns.ip(["link", "set", "eth0", "down"], netns=ns)
    try:
        status, lines, out = _push(tmp_path, "--limit", "leaf2", "--limit", "spine1", "--timeout-factor", "0.25")
    finally:
        netns.ip(["link", "set", "eth0", "up"], netns=ns)
    assert status == 1, out
    outcomes = _outcomes(lines)
    assert outcomes == {"leaf2": "failed", "spine1": "changed"}, out
    leaf2 = next(r for r in _summary(lines)["results"] if r["device"] == "leaf2")
    assert leaf2["failed_step"] == "connect" and leaf2["backup"] is None
    assert "raise --timeout-factor (now 0.25)" in leaf2["error"], leaf2["error"]
    _no_secret(lab, tmp_path, out)


def test_wrong_credentials_fail_at_connect_and_nothing_changes(lab: LabState, tmp_path: Path) -> None:
    before = _device_state(lab, "leaf2")
    wrong = tmp_path / "secrets.yaml"
    data = yaml.safe_load((lab.dir / "secrets.yaml").read_text(encoding="utf-8"))
    data["switch"]["password"] = "not-the-password"
    wrong.write_text(yaml.safe_dump(data), encoding="utf-8")
    wrong.chmod(0o600)
    status, lines, out = _push(tmp_path, "--limit", "leaf2", "--secrets", str(wrong))
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert (result["outcome"], result["failed_step"]) == ("failed", "connect"), out
    assert "Authentication" in result["error"]
    assert _device_state(lab, "leaf2") == before
    _no_secret(lab, tmp_path, out)


def test_host_key_mismatch_is_refused_before_anything_is_sent(lab: LabState, tmp_path: Path) -> None:
    """leaf2's line in known_hosts carries spine2's key: paramiko's RejectPolicy refuses, no login."""
    lines_kh = (lab.dir / "ssh" / "known_hosts").read_text(encoding="utf-8").splitlines()
    keys = {ln.split()[0].split(",")[0]: ln for ln in lines_kh}
    leaf2_names = keys["leaf2"].split()[0]
    forged = [ln for ln in lines_kh if not ln.startswith("leaf2,")] + [
        f"{leaf2_names} {keys['spine2'].split(' ', 1)[1]}"
    ]
    known = tmp_path / "known_hosts"
    known.write_text("\n".join(forged) + "\n", encoding="utf-8")
    logs = sorted(lab.dir.glob("switch-ssh-*.log"))
    assert logs, "the lab's switch SSH servers log nothing?"
    log_before = {log: len(log.read_text(encoding="utf-8")) for log in logs}
    before = _device_state(lab, "leaf2")
    status, lines, out = _push(tmp_path, "--limit", "leaf2", "--known-hosts", str(known))
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert (result["outcome"], result["failed_step"]) == ("failed", "connect"), out
    assert "BadHostKey" in result["error"] or "host key" in result["error"].lower(), result["error"]
    assert _device_state(lab, "leaf2") == before
    new_log = "".join(log.read_text(encoding="utf-8")[log_before[log] :] for log in logs)
    assert f"{LOGIN_LOG} leaf2 " not in new_log, new_log  # never logged in (the servers log every login)
    _no_secret(lab, tmp_path, out)


def test_slow_device_times_out_untouched(lab: LabState, tmp_path: Path) -> None:
    before = _device_state(lab, "leaf2")
    with _fault(lab, "leaf2", delay_ms=2500):
        status, lines, out = _push(tmp_path, "--limit", "leaf2", "--timeout", "1")
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert result["outcome"] == "failed" and result["failed_step"] in {"connect", "backup"}, out
    assert "raise --timeout (now 1 s)" in result["error"], result["error"]
    assert _device_state(lab, "leaf2") == before


def test_rejected_patch_is_rolled_back_to_the_backup(lab: LabState, tmp_path: Path) -> None:
    """SONiC leaf2: the 2nd config command (apply-patch, after the checkpoint) is refused."""
    before = _device_state(lab, "leaf2")
    with _fault(lab, "leaf2", reject_nth=2):
        status, lines, out = _push(tmp_path, "--limit", "leaf2")
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert (result["outcome"], result["failed_step"]) == ("rolled_back", "apply"), out
    assert _device_state(lab, "leaf2") == before
    _no_secret(lab, tmp_path, out)


def test_rejected_eos_line_aborts_the_session(lab: LabState, tmp_path: Path) -> None:
    """EOS spine2: a line refused inside the configuration session; the session is aborted."""
    before = _device_state(lab, "spine2")
    with _fault(lab, "spine2", reject_nth=7):
        status, lines, out = _push(tmp_path, "--limit", "spine2")
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert (result["outcome"], result["failed_step"]) == ("rolled_back", "apply"), out
    backup = Path(result["backup"]).read_text(encoding="utf-8")
    assert _device_state(lab, "spine2") == before
    assert before.rstrip("\n") == backup.rstrip("\n")  # netmiko drops the last newline, nothing else


def test_session_dropped_mid_change_is_rolled_back(lab: LabState, tmp_path: Path) -> None:
    """EOS spine2: the session is cut after 20 commands, inside the configuration session. The apply's
    outcome is unknown: a new session reads the device (not as desired: the configuration session never
    committed), rolls back (aborting that session) and proves running == backup."""
    before = _device_state(lab, "spine2")
    with _fault(lab, "spine2", drop_after=20):
        # a dropped session is noticed by its read timing out: shorter reads (a quarter), still paced
        status, lines, out = _push(tmp_path, "--limit", "spine2", "--timeout-factor", "0.25")
    assert status == 1, out
    result = _summary(lines)["results"][0]
    assert (result["outcome"], result["failed_step"]) == ("rolled_back", "apply"), out
    steps = [(e.get("step"), e.get("status")) for e in lines if e.get("event") == "step" and e["status"] != "start"]
    assert steps[steps.index(("apply", "unknown")) :] == [
        ("apply", "unknown"),
        ("verify", "failed"),
        ("rollback", "ok"),
        ("done", "failed"),
    ], steps
    assert _device_state(lab, "spine2") == before
    _no_secret(lab, tmp_path, out)


def test_a_second_push_waits_for_the_lock(lab: LabState, tmp_path: Path) -> None:
    with fabric_lock(lock_path("lab-mini", lab.dir), "test"):
        status, _, out = _push(tmp_path, "--limit", "leaf1")
    assert status == 2
    assert "another push holds" in out and f"pid {os.getpid()}" in out


def _nvue(state: LabState, device: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((state.dir / "devices" / device / "state" / "nvue.json").read_text("utf-8"))
    return data


def test_cumulus_rolls_back_by_itself_when_the_controller_is_gone(lab: LabState, tmp_path: Path) -> None:
    """Cumulus sleaf1 over real SSH with the Nornir strategy: applied with ``nv config apply --confirm 2s``,
    then the session is dropped (no verify, no confirm, no rollback ever comes): NVUE (the lab's
    emulator, with nobody connected) puts the previous revision back when the timer lapses."""
    from netmiko import ConnectHandler

    conn_lab = from_lab(LAB)
    (target,) = select(build_targets(conn_lab.fabric), ["sleaf1"])
    creds = load_credentials(conn_lab.secrets_file, environ={}).for_device(target.platform, target.kind)
    assert creds is not None
    desired = {f.name: f.content for f in render_fabric(conn_lab.fabric, ["sleaf1"])}

    def connect() -> Any:
        extras = connection_options(target, conn_lab.known_hosts, 20.0)
        return ConnectHandler(
            host=target.address, port=target.port, username=creds.username, password=creds.password, **extras
        )

    strategy = NvueStrategy("dropped")
    strategy.confirm_timer_s = 2
    conn = connect()
    session = NetmikoSession(conn)
    backup = strategy.backup(session)
    before = _nvue(lab, "sleaf1")["applied"]
    change = strategy.diff(backup, desired)
    assert change.count > 10, "factory state: much to change"
    strategy.apply(session, change, desired)
    on_trial = _nvue(lab, "sleaf1")
    assert on_trial["confirm"] is not None and on_trial["applied"] == on_trial["confirm"]["rev_id"] != before
    conn.remote_conn_pre.get_transport().close()  # dropped: no exit, no confirm, and nobody comes back
    deadline = time.monotonic() + SETTLE_S
    while _nvue(lab, "sleaf1")["confirm"] is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    after = _nvue(lab, "sleaf1")
    assert after["confirm"] is None and after["applied"] == before, "NVUE rolled back by itself"
    assert after["revisions"][str(on_trial["applied"])]["state"] == "confirm_no"
    again = connect()
    try:
        assert NvueStrategy("check").backup(NetmikoSession(again)) == backup
    finally:
        again.disconnect()


def test_push_lab_mini_from_factory_to_intent_then_nothing(lab: LabState, tmp_path: Path) -> None:
    status, lines, out = _push(tmp_path, "--workers", "10")
    assert status == 0, out
    summary = _summary(lines)
    assert summary["devices"] == 9 and summary["failed"] == 0 and summary["rolled_back"] == 0, out
    outcomes = _outcomes(lines)
    assert outcomes["spine1"] == "unchanged"  # the unreachable test pushed it already
    assert {d: o for d, o in outcomes.items() if d != "spine1"} == {d: "changed" for d in outcomes if d != "spine1"}, (
        outcomes
    )
    assert [e for e in lines if e["event"] == "plan"] and len([e for e in lines if e["event"] == "plan"]) == 9
    _no_secret(lab, tmp_path, out)
    states = {d: _device_state(lab, d) for d in SWITCHES}
    status, lines, out = _push(tmp_path)
    assert status == 0, out
    assert set(_outcomes(lines).values()) == {"unchanged"}, out
    assert _summary(lines)["changed"] == 0
    assert not [e for e in lines if e.get("step") in {"apply", "verify", "rollback"}], "nothing sent but reads"
    assert {d: _device_state(lab, d) for d in SWITCHES} == states
