"""The Ansible engine against lab-mini for real (namespaces, the switch SSH server over the EOS and
SONiC emulators, OpenSSH hosts): a command refused mid-change on EOS ends rolled back and equal to
its backup; a host whose script fails mid-change is rolled back by the restore script and its state
read again equals its backup, with the same result the Nornir engine reports; then EOS (spine2),
SONiC (leaf1) and a host (gpu1) are pushed, verified on the devices themselves, and a second push
reports 0 changes. No secret in any event, result, backup or file ansible-runner wrote
(``ansible_lab_support.push``). The fault tests (unreachable, wrong credentials, host key, timeout,
dropped session) are in test_ansible_faults.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ansible_lab_support import config_db_mismatches, rendered, state_dir
from ansible_lab_support import push as _push

from tests.support.paths import ROOT
from xoff.connect.ansible_inventory import export_ansible
from xoff.connect.credentials import load_credentials
from xoff.connect.targets import Target, build_targets, select
from xoff.lab.daemons import host_root
from xoff.lab.emulators.base import SessionFaults
from xoff.lab.lab import resolve
from xoff.lab.observe import run_in
from xoff.lab.provider import LabConnection
from xoff.platforms.cumulus.apply import Strategy as NvueStrategy
from xoff.platforms.cumulus.patch import tree_from_commands
from xoff.platforms.eos.config_tree import config_diff
from xoff.platforms.linux.observe import SNAPSHOT_SCRIPT, parse_snapshot
from xoff.push import nornir_engine
from xoff.push.ansible_engine import XOFF_IMPORT_ROOT
from xoff.push.model import Outcome, PushEvent, Step
from xoff.render import render_fabric


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """OpenSSH's ControlPath socket must fit a Unix socket path (108 bytes): pytest's tmp_path does not under
    pytest-xdist (``.../popen-gw1/test_.../.ansible/cp/<hash>``), so the sockets go to a short directory."""
    path = Path(tempfile.mkdtemp(prefix="xcp-"))
    yield path
    for leftover in path.iterdir():
        leftover.unlink()
    path.rmdir()


pytestmark = pytest.mark.lab
LAB_TAG = "ans"  # the lab's name: a<pid>-ans (conftest.py)
DEVICES = ["spine2", "leaf1", "gpu1"]


def _state(lab: LabConnection, device: str) -> Path:
    return state_dir(lab, device)


def _rendered(lab: LabConnection, device: str, name: str) -> str:
    return rendered(lab, device, name)


def test_rejected_command_mid_change_is_rolled_back(lab: LabConnection, tmp_path: Path) -> None:
    rendered = _rendered(lab, "spine2", "running-config")
    lines = [
        ln for ln in rendered.splitlines() if ln.strip() and not ln.strip().startswith("!") and ln.strip() != "end"
    ]
    # the diff (a session, aborted) types every line once, the apply a second time: refuse one mid-apply
    SessionFaults(reject_nth=len(lines) + len(lines) // 2).save(_state(lab, "spine2"))
    try:
        summary, events = _push(lab, ["spine2"], "fault", tmp_path)
    finally:
        SessionFaults().save(_state(lab, "spine2"))
    (r,) = summary.results
    assert r.outcome is Outcome.ROLLED_BACK, r
    assert r.failed_step is not None and r.failed_step.value == "apply" and "Invalid input" in (r.error or "")
    assert summary.exit_status == 1
    assert r.backup is not None
    running = (_state(lab, "spine2") / "running-config").read_text(encoding="utf-8")
    assert config_diff(running, Path(r.backup).read_text(encoding="utf-8")) == [], "running equals the backup"
    assert ("spine2", "rollback", "ok") in [(e.device, e.step.value, e.status) for e in events]


def _host_state(lab: LabConnection, device: str) -> dict[str, Any]:
    """The host's state read in its namespace (not through either engine), as the backup records it."""
    done = run_in(resolve(lab.lab_dir.name), device, ["bash", "-c", SNAPSHOT_SCRIPT])
    assert done.returncode == 0, done.stderr
    return parse_snapshot(done.stdout)


def test_host_failing_mid_change_is_rolled_back_as_with_nornir(lab: LabConnection, tmp_path: Path) -> None:
    """gpu1's /etc/xoff is a file, so its script fails at its last step (the NCCL file), after it has
    changed links, addresses, routes and rules, NIC QoS, RoCE and ECN; the restore script generated
    from the backup undoes all of it. gpu2 is pushed in the same run and finishes."""
    before = _host_state(lab, "gpu1")
    blocker = host_root(lab.lab_dir, "gpu1") / "etc" / "xoff"
    assert not blocker.exists()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a directory\n", encoding="utf-8")
    try:
        summary, events = _push(lab, ["gpu1", "gpu2"], "hostfault", tmp_path / "ansible")
        after_ansible = _host_state(lab, "gpu1")
        nornir, nornir_events = _push(lab, ["gpu1"], "hostfault", tmp_path / "nornir", nornir_engine.run)
        after_nornir = _host_state(lab, "gpu1")
    finally:
        blocker.unlink()
    results = {r.device: r for r in summary.results}
    gpu1 = results["gpu1"]
    assert (gpu1.outcome, gpu1.failed_step) == (Outcome.ROLLED_BACK, Step.APPLY), gpu1
    assert "could not change /etc/xoff/nccl.env" in (gpu1.error or ""), gpu1.error
    assert gpu1.changes > 10, "the script had changed much before it failed"
    assert results["gpu2"].outcome is Outcome.CHANGED, results["gpu2"]
    assert summary.exit_status == 1

    # the step events the Nornir engine emits, in its order, from connect to done
    def steps(evs: list[PushEvent]) -> list[tuple[str, str]]:
        return [(e.step.value, e.status) for e in evs if e.device == "gpu1"]

    assert steps(events) == steps(nornir_events), steps(events)
    assert steps(events)[-3:] == [("rollback", "start"), ("rollback", "ok"), ("done", "failed")]
    assert [e.message for e in events if e.device == "gpu1" and e.step is Step.DONE] == ["rolled_back"]
    # the backup is the Nornir strategy's snapshot, 0600, and the host equals it again
    assert gpu1.backup is not None and Path(gpu1.backup).stat().st_mode & 0o777 == 0o600
    assert json.loads(Path(gpu1.backup).read_text(encoding="utf-8")) == before == after_ansible
    # the Nornir engine, on the same fault: the same result, the same backup, the same end state
    (same,) = nornir.results
    assert (same.outcome, same.failed_step, same.changes) == (gpu1.outcome, gpu1.failed_step, gpu1.changes)
    assert same.error == f"ApplyError: {gpu1.error}"
    assert nornir.exit_status == summary.exit_status
    assert same.backup is not None
    assert Path(same.backup).read_text(encoding="utf-8") == Path(gpu1.backup).read_text(encoding="utf-8")
    assert after_nornir == before


def test_host_rollback_with_ansible_playbook_directly(lab: LabConnection, tmp_path: Path, short_dir: Path) -> None:
    """The same fault, with no xoff engine around the playbooks: ``ansible-playbook`` against the
    exported inventory, as under AWX. gpu1 ends rolled back to a backup equal to its state."""
    before = _host_state(lab, "gpu1")
    render = tmp_path / "render"
    for f in render_fabric(lab.fabric, ["gpu1"]):
        (render / f.device).mkdir(parents=True, exist_ok=True)
        (render / f.device / f.name).write_text(f.content, encoding="utf-8")
    inventory = export_ansible(select(build_targets(lab.fabric), ["gpu1"]), tmp_path / "inv", lab.known_hosts)
    creds = load_credentials(lab.secrets_file, environ={})
    assert creds.host is not None and creds.host.key_file is not None
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(short_dir),
        "ANSIBLE_NOCOLOR": "1",
        # the filters import xoff: this checkout's, as an AWX execution environment has the xoff installed
        # with its playbooks (not another copy the venv may have installed)
        "PYTHONPATH": XOFF_IMPORT_ROOT,
        "XOFF_HOST_USERNAME": creds.host.username,
        "XOFF_HOST_KEY": str(creds.host.key_file),
    }
    blocker = host_root(lab.lab_dir, "gpu1") / "etc" / "xoff"
    blocker.write_text("not a directory\n", encoding="utf-8")
    try:
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "ansible-playbook"),
                *("-i", str(inventory), str(ROOT / "playbooks" / "push.yml")),
                *("-e", f"xoff_render_dir={render}", "-e", f"xoff_backups={tmp_path / 'backups'}"),
                *("-e", "xoff_run_stamp=direct"),
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            env=env,
        )
    finally:
        blocker.unlink()
    out = done.stdout + done.stderr
    assert done.returncode == 2, out  # a host failed: the rolled-back device fails its play
    assert "'outcome': 'rolled_back'" in out or '"outcome": "rolled_back"' in out, out
    assert "could not change /etc/xoff/nccl.env" in out
    backup = tmp_path / "backups" / "direct" / "gpu1"
    assert backup.stat().st_mode & 0o777 == 0o600
    assert json.loads(backup.read_text(encoding="utf-8")) == before == _host_state(lab, "gpu1")
    secrets = creds.secrets()
    assert secrets and not [s for s in secrets if s in out or s in backup.read_text(encoding="utf-8")]


def test_push_verifies_then_a_second_push_changes_nothing(lab: LabConnection, tmp_path: Path) -> None:
    first, _ = _push(lab, DEVICES, "first", tmp_path)
    assert {r.device: r.outcome for r in first.results} == dict.fromkeys(DEVICES, Outcome.CHANGED), first.results
    assert all(r.changes > 0 for r in first.results) and first.exit_status == 0
    # the end state, read from the devices' own state (not through the engine)
    running = (_state(lab, "spine2") / "running-config").read_text(encoding="utf-8")
    assert config_diff(running, _rendered(lab, "spine2", "running-config")) == []
    config_db = json.loads((_state(lab, "leaf1") / "config_db.json").read_text(encoding="utf-8"))
    assert config_db_mismatches(config_db, json.loads(_rendered(lab, "leaf1", "config_db.json"))) == []
    script = tmp_path / "gpu1.sh"
    script.write_text(_rendered(lab, "gpu1", "xoff-host-apply.sh"), encoding="utf-8")
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "xoff.lab.cli",
            "exec",
            "gpu1",
            "--name",
            lab.lab_dir.name,
            "--",
            "bash",
            str(script),
            "--check",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout + check.stderr

    second, _ = _push(lab, DEVICES, "second", tmp_path)
    assert {r.device: (r.outcome, r.changes) for r in second.results} == dict.fromkeys(DEVICES, (Outcome.UNCHANGED, 0))
    assert second.exit_status == 0


def test_cumulus_refused_line_is_rolled_back(lab: LabConnection, tmp_path: Path) -> None:
    """sleaf1: NVUE refuses the 5th nv set of the pending revision; nothing was applied, the pending
    revision is set aside, and the applied configuration read again equals the backup."""
    before = json.loads((_state(lab, "sleaf1") / "nvue.json").read_text(encoding="utf-8"))
    SessionFaults(reject_nth=5).save(_state(lab, "sleaf1"))
    try:
        summary, events = _push(lab, ["sleaf1"], "nvuefault", tmp_path)
    finally:
        SessionFaults().save(_state(lab, "sleaf1"))
    (r,) = summary.results
    assert (r.outcome, r.failed_step) == (Outcome.ROLLED_BACK, Step.APPLY), r
    assert "nv set: Error: rejected by the lab's fault hook" in (r.error or ""), r.error
    after = json.loads((_state(lab, "sleaf1") / "nvue.json").read_text(encoding="utf-8"))
    assert after["applied"] == before["applied"] and after["history"] == before["history"], "nothing applied"
    assert after["pending"] == {}, "the partial pending revision was set aside"
    assert ("sleaf1", "rollback", "ok") in [(e.device, e.step.value, e.status) for e in events]


def test_cumulus_from_factory_then_nothing(lab: LabConnection, tmp_path: Path) -> None:
    """Cumulus sleaf1 (NVUE over plain SSH, ``ansible.builtin.raw``) from factory: the unset/set lines in a
    pending revision, ``nv config apply --confirm``, verified, confirmed (so saved as startup: a trial is
    not); the applied tree is the rendered one. A second push reports 0 changes, as Nornir would."""
    first, events = _push(lab, ["sleaf1"], "nvue1", tmp_path)
    (r,) = first.results
    assert (r.outcome, first.exit_status) == (Outcome.CHANGED, 0), r
    rendered = tree_from_commands(_rendered(lab, "sleaf1", "nvue-commands.txt"))
    assert r.changes == len(
        NvueStrategy()
        .diff(
            Path(r.backup or "").read_text(encoding="utf-8"),
            {"nvue-commands.txt": _rendered(lab, "sleaf1", "nvue-commands.txt")},
        )
        .lines
    )
    nvue = json.loads((_state(lab, "sleaf1") / "nvue.json").read_text(encoding="utf-8"))
    applied = nvue["revisions"][str(nvue["applied"])]
    assert nvue["confirm"] is None and applied["state"] == "applied", "confirmed, not left on trial"
    assert applied["tree"] == rendered == nvue["startup"]
    assert ("sleaf1", "verify", "ok") in [(e.device, e.step.value, e.status) for e in events]
    second, _ = _push(lab, ["sleaf1"], "nvue2", tmp_path)
    assert [(x.outcome, x.changes) for x in second.results] == [(Outcome.UNCHANGED, 0)]
    after = json.loads((_state(lab, "sleaf1") / "nvue.json").read_text(encoding="utf-8"))
    assert after["applied"] == nvue["applied"] and after["history"] == nvue["history"], "nothing applied"


def test_targets_cover_the_three_platforms(lab: LabConnection) -> None:
    chosen: list[Target] = select(build_targets(lab.fabric), DEVICES)
    assert sorted(t.platform for t in chosen) == ["eos", "linux", "sonic"]


def test_awx_shard_runs_as_exported_in_dry_run(lab: LabConnection, tmp_path: Path, short_dir: Path) -> None:
    """``xoff inventory export --shard-by su --lab``: one shard's inventory and the project's playbooks, run
    by ``ansible-playbook`` from the project directory as an AWX job runs them (its logins in the environment
    as the AWX credential injects them, host keys from the project's known_hosts), with ``xoff_dry_run``:
    every device of the shard, and only those, is backed up and diffed, none is changed."""
    from xoff import api

    project = tmp_path / "project"
    result = api.export_awx(
        ROOT / "inventory" / "lab-mini", api.AwxOptions(shard_by="su", output=project, lab=lab.name)
    )
    assert result.shards == {"su1": 7, "shared": 2}
    before = _host_state(lab, "gpu2")
    creds = load_credentials(lab.secrets_file, environ={})
    assert creds.switch is not None and creds.host is not None and creds.host.key_file is not None
    env = {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "tmp"),
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(short_dir),
        "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json",
        "PYTHONPATH": XOFF_IMPORT_ROOT,  # the execution environment's xoff: this checkout's
        "XOFF_SWITCH_USERNAME": creds.switch.username,
        "XOFF_SWITCH_PASSWORD": creds.switch.password or "",
        "XOFF_HOST_USERNAME": creds.host.username,
        "XOFF_HOST_KEY": str(creds.host.key_file),
    }
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            *("-i", "inventories/su1/hosts.yml", "push.yml"),
            *("-e", "xoff_dry_run=true", "-e", f"xoff_backups={tmp_path / 'backups'}", "-e", "xoff_run_stamp=awx"),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    report = json.loads(done.stdout)
    outcomes = {
        host: res["msg"]["outcome"]
        for play in report["plays"]
        for task in play["tasks"]
        if task["task"]["name"] == "Done | report"
        for host, res in task["hosts"].items()
        if not res.get("skipped")
    }
    su1 = {"leaf1", "leaf2", "sleaf1", "gpu1", "gpu2", "gpu3", "gpu4"}
    assert set(outcomes) == su1, outcomes
    assert set(outcomes.values()) <= {"dry_run", "unchanged"}, outcomes
    assert {p.name for p in (tmp_path / "backups" / "awx").iterdir()} == su1
    assert _host_state(lab, "gpu2") == before, "a dry run changes nothing"
    secrets = [*creds.secrets()]
    assert secrets and not [s for s in secrets if s in done.stdout or s in done.stderr]
