"""The Ansible engine against lab-mini for real (namespaces, the switch SSH server over the EOS and
SONiC emulators, OpenSSH hosts): a command refused mid-change on EOS ends rolled back and equal to
its backup; then EOS (spine2), SONiC (leaf1) and a host (gpu1) are pushed, verified on the devices
themselves, and a second push reports 0 changes. No secret in any event, result or backup."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from xoff.connect.credentials import load_credentials
from xoff.connect.targets import LabConnection, Target, build_targets, from_lab, select
from xoff.lab import names, netns
from xoff.lab.emulators.base import Faults
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.teardown import down
from xoff.platforms.eos.config_tree import config_diff
from xoff.push.ansible_engine import run
from xoff.push.job import PushJob, PushOptions
from xoff.push.model import Outcome, PushEvent, PushSummary
from xoff.render import render_fabric

pytestmark = pytest.mark.lab
ROOT = Path(__file__).resolve().parents[3]
LAB = f"a{os.getpid() % 100000}-ans"
DEVICES = ["spine2", "leaf1", "gpu1"]


@pytest.fixture(scope="module")
def lab() -> Iterator[LabConnection]:
    root = Path(tempfile.mkdtemp(prefix="xla"))  # short: FRR's unix socket paths live under it
    root.chmod(0o755)  # FRR runs as user frr
    old = os.environ.get(names.ROOT_ENV)
    os.environ[names.ROOT_ENV] = str(root)
    try:
        up(ROOT / "inventory" / "lab-mini", LAB, remap_addresses=True)
        yield from_lab(LAB)
    finally:
        with contextlib.suppress(LabError):
            resolve(LAB)
            down(LAB)
        assert netns.names(names.namespace_prefix(LAB)) == []
        if old is None:
            os.environ.pop(names.ROOT_ENV, None)
        else:
            os.environ[names.ROOT_ENV] = old
        shutil.rmtree(root, ignore_errors=True)


def _push(lab: LabConnection, devices: list[str], run_id: str, backups: Path) -> tuple[PushSummary, list[PushEvent]]:
    targets = select(build_targets(lab.fabric), devices)
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(lab.fabric, devices):
        desired.setdefault(f.device, {})[f.name] = f.content
    job = PushJob(
        fabric=lab.fabric.fabric,
        run_id=run_id,
        targets=targets,
        desired=desired,
        credentials=load_credentials(lab.secrets_file, environ={}),
        known_hosts=lab.known_hosts,
    )
    events: list[PushEvent] = []
    summary = run(job, PushOptions(workers=4, backup_dir=backups), events.append)
    password = job.secrets[0]
    assert all(password not in json.dumps(e.to_json()) for e in events)
    assert password not in json.dumps(summary.to_json())
    for r in summary.results:
        assert r.backup is None or password not in Path(r.backup).read_text(encoding="utf-8")
    return summary, events


def _state(lab: LabConnection, device: str) -> Path:
    return lab.lab_dir / "devices" / device / "state"


def _config_db_mismatches(running: dict[str, Any], desired: dict[str, Any]) -> list[str]:
    spec = importlib.util.spec_from_file_location("cdb", ROOT / "playbooks" / "filter_plugins" / "config_db.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: list[str] = module.config_db_mismatches(running, desired)
    return found


def _rendered(lab: LabConnection, device: str, name: str) -> str:
    return next(f.content for f in render_fabric(lab.fabric, [device]) if f.name == name)


def test_rejected_command_mid_change_is_rolled_back(lab: LabConnection, tmp_path: Path) -> None:
    rendered = _rendered(lab, "spine2", "running-config")
    lines = [
        ln for ln in rendered.splitlines() if ln.strip() and not ln.strip().startswith("!") and ln.strip() != "end"
    ]
    # the diff (a session, aborted) types every line once, the apply a second time: refuse one mid-apply
    Faults(reject_nth=len(lines) + len(lines) // 2).save(_state(lab, "spine2"))
    try:
        summary, events = _push(lab, ["spine2"], "fault", tmp_path)
    finally:
        Faults().save(_state(lab, "spine2"))
    (r,) = summary.results
    assert r.outcome is Outcome.ROLLED_BACK, r
    assert r.failed_step is not None and r.failed_step.value == "apply" and "Invalid input" in (r.error or "")
    assert summary.exit_status == 1
    assert r.backup is not None
    running = (_state(lab, "spine2") / "running-config").read_text(encoding="utf-8")
    assert config_diff(running, Path(r.backup).read_text(encoding="utf-8")) == [], "running equals the backup"
    assert ("spine2", "rollback", "ok") in [(e.device, e.step.value, e.status) for e in events]


def test_push_verifies_then_a_second_push_changes_nothing(lab: LabConnection, tmp_path: Path) -> None:
    first, _ = _push(lab, DEVICES, "first", tmp_path)
    assert {r.device: r.outcome for r in first.results} == dict.fromkeys(DEVICES, Outcome.CHANGED), first.results
    assert all(r.changes > 0 for r in first.results) and first.exit_status == 0
    # the end state, read from the devices' own state (not through the engine)
    running = (_state(lab, "spine2") / "running-config").read_text(encoding="utf-8")
    assert config_diff(running, _rendered(lab, "spine2", "running-config")) == []
    config_db = json.loads((_state(lab, "leaf1") / "config_db.json").read_text(encoding="utf-8"))
    assert _config_db_mismatches(config_db, json.loads(_rendered(lab, "leaf1", "config_db.json"))) == []
    script = tmp_path / "gpu1.sh"
    script.write_text(_rendered(lab, "gpu1", "xoff-host-apply.sh"), encoding="utf-8")
    check = subprocess.run(
        [sys.executable, "-m", "xoff.lab.cli", "exec", "gpu1", "--name", LAB, "--", "bash", str(script), "--check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert check.returncode == 0, check.stdout + check.stderr

    second, _ = _push(lab, DEVICES, "second", tmp_path)
    assert {r.device: (r.outcome, r.changes) for r in second.results} == dict.fromkeys(DEVICES, (Outcome.UNCHANGED, 0))
    assert second.exit_status == 0


def test_targets_cover_the_three_platforms(lab: LabConnection) -> None:
    chosen: list[Target] = select(build_targets(lab.fabric), DEVICES)
    assert sorted(t.platform for t in chosen) == ["eos", "linux", "sonic"]
