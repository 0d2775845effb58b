"""The issue's faults through the Ansible engine, against lab-mini for real: a device unreachable, wrong
credentials, a changed host key, a device too slow to answer, the SSH session dropped mid-change.

Each test asserts the end state of every device it pushed to (read from the emulator, not through an
engine), the result and exit status, and where the Nornir run is cheap, runs the Nornir engine on the
same fault and asserts the same result (outcome, failed step, backup or none) and the same step
events. ``ansible_lab_support.push`` proves that no secret (the lab's, or the wrong password given)
is in any event, result, backup or file ansible-runner wrote. spine1 (SONiC) is pushed by the first
test and then rides along with the later ones: the other devices of a run finish.
(A command refused mid-change is in test_ansible_lab.py.)
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible_lab_support import config_db_mismatches, device_state, push, rendered, state_dir

from xoff.connect.credentials import load_credentials
from xoff.lab import netns
from xoff.lab.emulators.base import FAULTS_FILE, SessionFaults
from xoff.lab.lab import resolve
from xoff.lab.provider import LabConnection
from xoff.lab.sshd import LOGIN_LOG
from xoff.platforms.eos.config_tree import config_diff, config_lines
from xoff.push import nornir_engine
from xoff.push.model import Outcome, PushEvent, PushSummary, Step

pytestmark = pytest.mark.lab
LAB_TAG = "flt"  # the lab's name: a<pid>-flt (conftest.py)
SWITCHES = ["spine1", "spine2", "leaf2"]


@pytest.fixture(scope="module", autouse=True)
def _booted(lab: LabConnection, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A Nornir dry run reads each switch once, so each emulator has written its factory state (SONiC
    does at its first session) and the tests can compare a device's state before and after."""
    summary, _ = push(lab, SWITCHES, "boot", tmp_path_factory.mktemp("boot"), nornir_engine.run, dry_run=True)
    assert {r.device: r.outcome for r in summary.results} == dict.fromkeys(SWITCHES, Outcome.DRY_RUN)


def _results(summary: PushSummary) -> dict[str, tuple[Outcome, Step | None, bool]]:
    """device -> (outcome, failed step, has a backup): what both engines must agree on."""
    return {r.device: (r.outcome, r.failed_step, r.backup is not None) for r in summary.results}


def _steps(events: list[PushEvent], device: str) -> list[tuple[str, str]]:
    """A device's step events, in order."""
    return [(e.step.value, e.status) for e in events if e.device == device]


def _as_nornir(
    lab: LabConnection, tmp_path: Path, ansible: tuple[PushSummary, list[PushEvent]], **push_args: Any
) -> None:
    """The Nornir engine on the same fault, for the devices that failed under Ansible: the same results."""
    summary, events = ansible
    failed = [
        r.device for r in summary.results if r.outcome is not Outcome.CHANGED and r.outcome is not Outcome.UNCHANGED
    ]
    nornir, nornir_events = push(lab, failed, "nornir", tmp_path / "nornir", nornir_engine.run, **push_args)
    assert _results(nornir) == {d: _results(summary)[d] for d in failed}
    for device in failed:
        assert _steps(events, device) == _steps(nornir_events, device), device
    assert nornir.exit_status == summary.exit_status == 1


def _spine1_as_rendered(lab: LabConnection) -> None:
    desired = json.loads(rendered(lab, "spine1", "config_db.json"))
    assert config_db_mismatches(device_state(lab, "spine1"), desired) == []


@contextlib.contextmanager
def _faults(lab: LabConnection, device: str, **kwargs: Any) -> Iterator[Path]:
    path = state_dir(lab, device) / FAULTS_FILE
    SessionFaults(**kwargs).save(path.parent)
    try:
        yield path
    finally:
        path.unlink()


def test_unreachable_device_fails_untouched_and_the_other_finishes(lab: LabConnection, tmp_path: Path) -> None:
    """leaf2's management link down: no route to it within the connection setup's time (--timeout-factor
    0.25: 5 s; not a fixed --timeout, which would also bound spine1's commands on a busy machine);
    spine1, in the same run, is pushed from factory, verified, and as rendered."""
    before = device_state(lab, "leaf2")
    ns = resolve(lab.lab_dir.name).devices["leaf2"].netns
    netns.ip(["link", "set", "eth0", "down"], netns=ns)
    try:
        ansible = push(lab, ["leaf2", "spine1"], "unreachable", tmp_path / "ansible", timeout_factor=0.25)
        _as_nornir(lab, tmp_path, ansible, timeout_factor=0.25)
    finally:
        netns.ip(["link", "set", "eth0", "up"], netns=ns)
    summary, events = ansible
    assert _results(summary) == {
        "leaf2": (Outcome.FAILED, Step.CONNECT, False),
        "spine1": (Outcome.CHANGED, None, True),
    }
    leaf2 = next(r for r in summary.results if r.device == "leaf2")
    assert "timed out" in (leaf2.error or "") and "raise --timeout-factor (now 0.25)" in (leaf2.error or ""), (
        leaf2.error
    )
    assert _steps(events, "leaf2") == [("connect", "start"), ("connect", "failed"), ("done", "failed")]
    assert summary.exit_status == 1
    assert device_state(lab, "leaf2") == before
    assert not (tmp_path / "ansible" / "unreachable" / "leaf2").exists(), "nothing read, nothing backed up"
    _spine1_as_rendered(lab)


def test_wrong_credentials_fail_at_connect_and_nothing_changes(lab: LabConnection, tmp_path: Path) -> None:
    """The switch password is wrong: OpenSSH (SONiC leaf2) and paramiko under network_cli (EOS spine2)
    are both refused at login; neither the wrong nor the right password shows anywhere."""
    before = {d: device_state(lab, d) for d in ("leaf2", "spine2")}
    data = yaml.safe_load(lab.secrets_file.read_text(encoding="utf-8"))
    data["switch"]["password"] = "not-the-password-" + os.urandom(4).hex()
    wrong = tmp_path / "secrets.yaml"
    wrong.write_text(yaml.safe_dump(data), encoding="utf-8")
    wrong.chmod(0o600)
    creds = load_credentials(wrong, environ={})
    ansible = push(lab, ["leaf2", "spine2"], "credentials", tmp_path / "ansible", credentials=creds, timeout_s=10)
    summary, _ = ansible
    assert _results(summary) == dict.fromkeys(["leaf2", "spine2"], (Outcome.FAILED, Step.CONNECT, False))
    errors = {r.device: r.error or "" for r in summary.results}
    assert "Permission denied" in errors["leaf2"] and "Authentication failed" in errors["spine2"], errors
    assert summary.exit_status == 1
    _as_nornir(lab, tmp_path, ansible, credentials=creds, timeout_s=10)
    assert {d: device_state(lab, d) for d in ("leaf2", "spine2")} == before


def _forged_known_hosts(lab: LabConnection, path: Path) -> Path:
    """leaf2's line carries spine2's key and spine2's leaf2's; every other line is right."""
    lines = lab.known_hosts.read_text(encoding="utf-8").splitlines()
    by_name = {ln.split()[0].split(",")[0]: ln for ln in lines}

    def forged(device: str, other: str) -> str:
        return f"{by_name[device].split()[0]} {by_name[other].split(' ', 1)[1]}"

    kept = [ln for name, ln in by_name.items() if name not in {"leaf2", "spine2"}]
    path.write_text("\n".join([*kept, forged("leaf2", "spine2"), forged("spine2", "leaf2")]) + "\n", encoding="utf-8")
    return path


def test_host_key_mismatch_is_refused_before_anything_is_sent(lab: LabConnection, tmp_path: Path) -> None:
    """A changed host key (leaf2: OpenSSH via sshpass; spine2: paramiko under network_cli): refused
    before login, so no command reaches the emulator. The proof: every command an emulator runs reads
    its faults.json first, and that file's access time (set back, so relatime updates it on a read)
    moved on spine1 (the right key, in the same run) and on neither refused device."""
    known = _forged_known_hosts(lab, tmp_path / "known_hosts")
    logs = sorted(lab.lab_dir.glob("switch-ssh-*.log"))
    assert logs, "the lab's switch SSH servers log nothing?"
    log_before = {log: len(log.read_text(encoding="utf-8")) for log in logs}
    before = {d: device_state(lab, d) for d in ("leaf2", "spine2", "spine1")}
    with contextlib.ExitStack() as stack:
        probes = {d: stack.enter_context(_faults(lab, d)) for d in ("leaf2", "spine2", "spine1")}
        for probe in probes.values():
            st = probe.stat()
            os.utime(probe, ns=(st.st_mtime_ns - 10**10, st.st_mtime_ns))
        read_before = {d: p.stat().st_atime_ns for d, p in probes.items()}
        ansible = push(lab, ["leaf2", "spine2", "spine1"], "hostkey", tmp_path / "ansible", known_hosts=known)
        read = {d: p.stat().st_atime_ns != read_before[d] for d, p in probes.items()}
        _as_nornir(lab, tmp_path, ansible, known_hosts=known)
    assert read == {"leaf2": False, "spine2": False, "spine1": True}, read
    summary, _ = ansible
    assert _results(summary) == {
        "leaf2": (Outcome.FAILED, Step.CONNECT, False),
        "spine2": (Outcome.FAILED, Step.CONNECT, False),
        "spine1": (Outcome.UNCHANGED, None, True),
    }
    errors = {r.device: (r.error or "").lower() for r in summary.results if r.error}
    assert all("host key" in e for e in errors.values()), errors
    assert {d: device_state(lab, d) for d in before} == before
    new_log = "".join(log.read_text(encoding="utf-8")[log_before[log] :] for log in logs)
    assert f"{LOGIN_LOG} spine1 " in new_log, new_log  # the servers log every accepted login: spine1's
    assert f"{LOGIN_LOG} leaf2 " not in new_log and f"{LOGIN_LOG} spine2 " not in new_log, new_log


def test_slow_device_times_out_untouched(lab: LabConnection, tmp_path: Path) -> None:
    """leaf2 answers every command 2.5 s late; --timeout 1 bounds each command (under Ansible: the task
    timeout of each raw command, ``xoff_command_timeout``): it fails at its first answer, untouched."""
    before = device_state(lab, "leaf2")
    with _faults(lab, "leaf2", delay_ms=2500):
        ansible = push(lab, ["leaf2"], "slow", tmp_path / "ansible", timeout_s=1)
        _as_nornir(lab, tmp_path, ansible, timeout_s=1)
    summary, events = ansible
    assert _results(summary) == {"leaf2": (Outcome.FAILED, Step.CONNECT, False)}
    assert "Timed out after" in (summary.results[0].error or ""), summary.results[0].error
    assert "raise --timeout (now 1 s)" in (summary.results[0].error or ""), "the knob to turn"
    assert _steps(events, "leaf2") == [("connect", "start"), ("connect", "failed"), ("done", "failed")]
    assert device_state(lab, "leaf2") == before


def test_session_dropped_mid_change_is_rolled_back(lab: LabConnection, tmp_path: Path) -> None:
    """EOS spine2: the SSH session is cut (at the TCP level) half way through the configuration
    session's lines; the link is back when Ansible notices. The rollback runs on a new session: it
    aborts the configuration session the drop left pending, replaces the configuration with the
    backup and proves running == backup. spine1, in the same run, finishes (as rendered). The Nornir
    engine reports the same for the same fault (tests/lab/test_push_lab.py): rolled_back, apply."""
    before = device_state(lab, "spine2")
    lines = config_lines(rendered(lab, "spine2", "running-config"))
    # one persistent CLI session: login, show version, show running-config, the diff (a session with
    # every line, aborted), then the apply's session: cut it half way through its lines
    state = state_dir(lab, "spine2")

    def link_back(event: PushEvent) -> None:
        if (event.device, event.step, event.status) == ("spine2", Step.APPLY, "failed"):
            SessionFaults().save(state)

    with _faults(lab, "spine2", drop_after=len(lines) + len(lines) // 2 + 15):
        summary, events = push(lab, ["spine2", "spine1"], "dropped", tmp_path, on_event=link_back)
    results = _results(summary)
    # spine1 is unchanged after the module's first test pushed it, changed when this test runs alone
    assert results.pop("spine1") in {(Outcome.UNCHANGED, None, True), (Outcome.CHANGED, None, True)}
    assert results == {"spine2": (Outcome.ROLLED_BACK, Step.APPLY, True)}
    _spine1_as_rendered(lab)
    spine2 = next(r for r in summary.results if r.device == "spine2")
    assert "Socket is closed" in (spine2.error or ""), spine2.error
    assert summary.exit_status == 1
    # as Nornir's, but for its ("rollback", "retry"): Ansible rolls back on a new session at once
    assert [s for s in _steps(events, "spine2") if s[1] != "start"] == [
        ("connect", "ok"),
        ("backup", "ok"),
        ("diff", "ok"),
        ("apply", "failed"),
        ("rollback", "ok"),
        ("done", "failed"),
    ]
    assert device_state(lab, "spine2") == before
    assert config_diff(before, Path(spine2.backup or "").read_text(encoding="utf-8")) == []
    sessions = json.loads((state / "sessions.json").read_text(encoding="utf-8"))
    assert [n for n, s in sessions.items() if s["state"] != "completed"] == [], "no session left pending"
