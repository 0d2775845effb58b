"""The run store (``push/runs.py``), the restore flow (``push/restore.py``) and the rollback's preparation,
without devices: atomic records, interrupted runs, masking, fresh run ids, what a rollback restores and skips."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
import typer
import yaml
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.api.push import PushOptions, prepare_push, run_push
from xoff.api.rollback import RollbackOptions, prepare_rollback
from xoff.cli.rollback import rollback_command
from xoff.cli.runs import runs_command
from xoff.connect.targets import Target
from xoff.contracts.apply import ApplyError, ApplyStrategy, Capabilities, ChangeSet
from xoff.contracts.session import Session
from xoff.errors import InputError
from xoff.intent.fingerprint import intent_sha256
from xoff.push import runs
from xoff.push.device_flow import DeviceContext, push_device
from xoff.push.job import PushJob
from xoff.push.job import PushOptions as EngineOptions
from xoff.push.model import DeviceResult, Outcome, PushEvent, PushSummary
from xoff.push.restore import RestoreStrategy, restore_capabilities
from xoff.push.runs_display import runs_text

INTENT = ROOT / "inventory" / "lab-mini"
SECRET = "s3cret-pw"


def _record(run_id: str = "20260101T000000Z", **kw: object) -> runs.RunRecord:
    return runs.RunRecord(run_id, fabric="lab-mini", intent=str(INTENT), **kw)  # type: ignore[arg-type]


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    return int(proc.stdout)


def test_a_record_is_written_whole_private_and_masked(tmp_path: Path) -> None:
    record = _record(devices=[runs.RunDevice("leaf1", "sonic", "failed", error=f"login {SECRET} refused")])
    path = runs.write(tmp_path, record, [SECRET])
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and "login ******** refused" in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["run.json"]  # no temporary file left
    assert runs.read(tmp_path, record.run_id) == record


def test_a_write_that_breaks_leaves_the_previous_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = _record(status=runs.DONE)
    runs.write(tmp_path, record)
    before = (tmp_path / record.run_id / "run.json").read_text(encoding="utf-8")

    def broken(_fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken)
    record.exit_status = 3
    with pytest.raises(OSError, match="disk full"):
        runs.write(tmp_path, record)
    assert (tmp_path / record.run_id / "run.json").read_text(encoding="utf-8") == before
    assert [p.name for p in (tmp_path / record.run_id).iterdir()] == ["run.json"]


@pytest.mark.parametrize(
    ("pid", "host", "status"),
    [
        (os.getpid(), None, runs.RUNNING),  # this process: still running
        (None, None, runs.INTERRUPTED),  # its process is gone: it died before its end
        (None, "another-controller", runs.RUNNING),  # another host's pid cannot be checked from here
        (os.getpid(), "reused", runs.INTERRUPTED),  # a live pid, but a process started at another time
    ],
    ids=["this-process", "process-gone", "other-host", "pid-reused"],  # no pid in an id: xdist workers differ
)
def test_a_running_record_whose_process_is_gone_reads_interrupted(
    tmp_path: Path, pid: int | None, host: str | None, status: str
) -> None:
    record = _record(pid=pid or _dead_pid())
    if host == "reused":
        record.pid_started = "1"
    elif host:
        record.host = host
    runs.write(tmp_path, record)
    assert runs.read(tmp_path, record.run_id).status == status


def test_run_ids_are_never_reused_and_runs_list_newest_first(tmp_path: Path) -> None:
    assert runs.claim(tmp_path, "r") == "r" and runs.claim(tmp_path, "r") == "r-2"
    runs.write(tmp_path, _record("old", started="2026-01-01T00:00:00Z", status=runs.DONE))
    runs.write(tmp_path, _record("new", started="2026-02-01T00:00:00Z", status=runs.DONE))
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "run.json").write_text("{not json", encoding="utf-8")
    assert [r.run_id for r in runs.runs(tmp_path)] == ["new", "old"]
    assert runs.runs(tmp_path / "none") == []
    (tmp_path / "r-2").rmdir()  # claimed but never written: no record, no run
    (tmp_path / "old-backups").mkdir()  # backups from before the run store: no record, no run
    assert [u.split(": ", 1)[1] for u in runs.unreadable(tmp_path)] == [
        "not a run record (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
    ]
    status, out = _cli(runs_command, "--backup-dir", str(tmp_path))
    assert status == 0 and "unreadable run record: " in out and "junk/run.json" in out, out
    with pytest.raises(KeyError):
        runs.read(tmp_path, "../etc")


def _target(name: str, platform: str = "sonic") -> Target:
    return Target(name, platform, "switch", "leaf", None, "198.18.0.1")


def test_begin_and_finish_record_every_device(tmp_path: Path) -> None:
    record = _record("r1")
    runs.begin(tmp_path, record, [_target("leaf1"), _target("leaf2")], [SECRET])
    started = runs.read(tmp_path, "r1")
    assert started.status == runs.RUNNING and [d.outcome for d in started.devices] == [None, None]
    summary = PushSummary(
        [
            DeviceResult("leaf1", "sonic", Outcome.CHANGED, changes=2, backup="b/r1/leaf1", batch=1),
            DeviceResult("leaf2", "sonic", Outcome.FAILED, error=f"auth {SECRET}", batch=1),
        ]
    )
    runs.finish(tmp_path, record, summary, [SECRET])
    done = runs.read(tmp_path, "r1")
    assert (done.status, done.exit_status, done.counts()) == (runs.DONE, 1, {"changed": 1, "failed": 1})
    assert done.device("leaf1") == runs.RunDevice("leaf1", "sonic", "changed", 1, "b/r1/leaf1", 2, None)
    text = runs_text([done], tmp_path)
    assert "r1  push  done" in text and "leaf2 (sonic): failed: auth ********" in text and SECRET not in text


def _secrets(tmp_path: Path) -> tuple[Path, Path]:
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text(yaml.safe_dump({"switch": {"username": "admin", "password": SECRET}, "host": {"username": "r"}}))
    secrets.chmod(0o600)
    known = tmp_path / "known_hosts"
    known.write_text("", encoding="utf-8")
    return secrets, known


def run(job: PushJob, options: EngineOptions, on_event: object) -> PushSummary:
    """A fake engine (``xoff.push.job.ENGINES``): leaf1 changed, spine2 unchanged; ``gpu1`` breaks the run."""
    if any(t.name == "gpu1" for t in job.targets):
        raise KeyboardInterrupt
    outcome = {"leaf1": Outcome.CHANGED, "spine2": Outcome.UNCHANGED}
    return PushSummary([DeviceResult(t.name, t.platform, outcome[t.name]) for t in job.targets], engine="fake")


def test_every_push_is_recorded_and_an_interrupted_one_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("xoff.push.job").push.job.ENGINES, "fake", __name__)
    secrets, known = _secrets(tmp_path)
    options = PushOptions(secrets=secrets, known_hosts=known, backup_dir=tmp_path / "b", run_id="r")
    plan = prepare_push(INTENT, options.__class__(**{**options.__dict__, "limit": ("leaf1", "spine2")}))
    object.__setattr__(plan, "engine", "fake")
    summary = run_push(plan).summary
    record = runs.read(tmp_path / "b", "r")
    assert summary.run_id == "r" and record.status == runs.DONE and record.counts() == {"changed": 1, "unchanged": 1}
    assert record.intent == str(INTENT.absolute()) and record.intent_sha256 == intent_sha256(INTENT)
    assert record.options["limit"] == ["leaf1", "spine2"] and SECRET not in json.dumps(record.to_json())
    plan = prepare_push(INTENT, options.__class__(**{**options.__dict__, "limit": ("gpu1",)}))
    object.__setattr__(plan, "engine", "fake")
    with pytest.raises(KeyboardInterrupt):
        run_push(plan)
    broken = runs.read(tmp_path / "b", "r-2")  # the same id asked for again: a fresh one
    assert broken.status == runs.INTERRUPTED and [d.outcome for d in broken.devices] == [None]


def _pushed(tmp_path: Path) -> Path:
    root = tmp_path / "b"
    record = _record(
        "r",
        status=runs.DONE,
        devices=[
            runs.RunDevice("leaf1", "sonic", "changed"),
            runs.RunDevice("spine2", "eos", "unchanged"),
            runs.RunDevice("gpu1", "linux", "failed"),
        ],
    )
    runs.write(root, record)
    return root


def test_a_rollback_restores_what_the_run_changed_and_says_what_it_skips(tmp_path: Path) -> None:
    root = _pushed(tmp_path)
    secrets, known = _secrets(tmp_path)
    plan = prepare_rollback("r", RollbackOptions(backup_dir=root, secrets=secrets, known_hosts=known))
    assert [t.name for t in plan.push.targets] == ["leaf1"]
    assert plan.skipped == {
        "gpu1": "run r did not change it (failed)",
        "spine2": "run r did not change it (unchanged)",
    }
    assert (plan.push.record.kind, plan.push.record.rollback_of) == ("rollback", "r")
    limited = prepare_rollback(
        "r", RollbackOptions(backup_dir=root, secrets=secrets, known_hosts=known, limit=("spine2",))
    )
    assert limited.push.targets == [] and list(limited.skipped) == ["spine2"]
    # the run has no backup of leaf1: the restore fails for that device alone, untouched
    assert plan.push.job.strategies is not None
    strategy, caps = plan.push.job.strategies("leaf1", "sonic", "rb")
    assert isinstance(strategy, RestoreStrategy) and caps.commit_confirm
    with pytest.raises(ApplyError, match="backup of leaf1 cannot be read"):
        strategy.diff("{}", {})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"run_id": "r", "status": runs.DONE, "options": {"dry_run": True}}, "dry run changed nothing"),
        ({"run_id": "r", "status": runs.RUNNING}, "still running"),
        ({"run_id": "other", "status": runs.DONE}, "no run 'r'"),
    ],
)
def test_a_rollback_refuses_what_it_cannot_undo(tmp_path: Path, change: dict[str, object], message: str) -> None:
    runs.write(tmp_path, _record(**change))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=message):
        prepare_rollback("r", RollbackOptions(backup_dir=tmp_path))


CAPS = Capabilities(
    atomic_replace=True, commit_confirm=False, rollback=True, on_box_diff=False, apply_means="x", undo_means="y"
)


class _Device(ApplyStrategy):
    """An in-memory device whose restore may be refused, or land on the wrong state."""

    platform = "fake"

    def __init__(self, running: str, fail: str = "") -> None:
        super().__init__("rb")
        self.running, self.fail = running, fail

    def backup(self, session: Session) -> str:
        return self.running

    def diff(self, running: str, desired: dict[str, str]) -> ChangeSet:
        raise AssertionError("a restore never diffs rendered files")

    def apply(self, session: Session, change: ChangeSet, desired: dict[str, str]) -> None:
        raise AssertionError("a restore never applies rendered files")

    def verify(self, session: Session, desired: dict[str, str]) -> list[str]:
        raise AssertionError("a restore never verifies rendered files")

    def restore(self, session: Session, change: ChangeSet, backup: str, of_run: str) -> None:
        if self.fail == "refuse":
            raise ApplyError("refused")
        self.running = "wrong" if self.fail == "wrong" else backup

    def rollback(self, session: Session, backup: str) -> None:
        self.running = backup


@pytest.mark.parametrize(
    ("running", "fail", "backup", "outcome", "after"),
    [
        ("pushed", "", "before", Outcome.CHANGED, "before"),  # restored and verified
        ("before", "", "before", Outcome.UNCHANGED, "before"),  # already at the backup: nothing sent
        ("pushed", "wrong", "before", Outcome.ROLLED_BACK, "pushed"),  # did not verify: undone
        ("pushed", "refuse", "before", Outcome.ROLLED_BACK, "pushed"),
        ("pushed", "", None, Outcome.FAILED, "pushed"),  # no backup: this device fails, untouched
        ("pushed", "", "pw ********", Outcome.FAILED, "pushed"),  # a masked secret is never restored
    ],
)
def test_the_restore_flow(
    tmp_path: Path, running: str, fail: str, backup: str | None, outcome: Outcome, after: str
) -> None:
    device = _Device(running, fail)
    strategy = RestoreStrategy(device, backup, "r")
    ctx = DeviceContext("d", "fake", {}, "rb", tmp_path, False, [], capabilities=restore_capabilities(CAPS))
    events: list[PushEvent] = []
    result = push_device(ctx, strategy, lambda: cast("Session", object()), lambda: None, events.append)
    assert (result.outcome, device.running) == (outcome, after), result.error
    assert (tmp_path / "rb" / "d").read_text(encoding="utf-8") == running  # the rollback run's own backup


def test_an_interrupted_run_is_restored_where_it_backed_a_device_up(tmp_path: Path) -> None:
    root = tmp_path / "b"
    devices = [runs.RunDevice("leaf1", "sonic"), runs.RunDevice("spine2", "eos")]
    runs.write(root, _record("r", status=runs.INTERRUPTED, devices=devices))
    (root / "r" / "leaf1").write_text("{}", encoding="utf-8")
    secrets, known = _secrets(tmp_path)
    plan = prepare_rollback("r", RollbackOptions(backup_dir=root, secrets=secrets, known_hosts=known))
    assert [t.name for t in plan.push.targets] == ["leaf1"]
    assert plan.skipped == {"spine2": "run r was interrupted before it backed it up"}


def _cli(command: object, *args: str) -> tuple[int, str]:
    app = typer.Typer()
    app.command()(command)  # type: ignore[arg-type]
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def test_the_runs_and_rollback_commands(tmp_path: Path) -> None:
    root = _pushed(tmp_path)
    runs.write(root, _record("u", started="2027-01-01T00:00:00Z", status=runs.DONE, kind="rollback", rollback_of="r"))
    status, out = _cli(runs_command, "--backup-dir", str(root))
    assert status == 0 and out.index("u  rollback of r  done") < out.index("r  push  done"), out
    assert "3 devices: 1 changed, 1 failed, 1 unchanged" in out and "gpu1 (linux): failed" in out, out
    status, out = _cli(runs_command, "--backup-dir", str(root), "-f", "json")
    assert status == 0 and [r["run_id"] for r in json.loads(out)] == ["u", "r"]
    status, out = _cli(runs_command, "--backup-dir", str(tmp_path / "none"))
    assert (status, out.strip()) == (0, f"no runs recorded in {tmp_path / 'none'}")
    status, out = _cli(rollback_command, "nope", "--backup-dir", str(root))
    assert (
        status == 2
        and out.strip() == f"RUN_ID:1:1: nope: no run 'nope' in {root} (xoff runs --backup-dir {root} lists them)"
    )


def test_a_backup_dir_that_cannot_hold_the_record_is_bad_input(tmp_path: Path) -> None:
    secrets, known = _secrets(tmp_path)
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    options = PushOptions(secrets=secrets, known_hosts=known, backup_dir=blocked / "b", limit=("leaf1",))
    with pytest.raises(InputError, match="cannot record the run there"):
        run_push(prepare_push(INTENT, options))


def test_a_run_left_running_by_a_dead_controller_elsewhere_is_rolled_back_when_told(tmp_path: Path) -> None:
    root = _pushed(tmp_path)
    record = runs.read(root, "r")
    record.status, record.host, record.pid = runs.RUNNING, "controller-gone", 4242
    runs.write(root, record)
    secrets, known = _secrets(tmp_path)
    options = RollbackOptions(backup_dir=root, secrets=secrets, known_hosts=known)
    with pytest.raises(InputError, match=r"still running \(pid 4242 on controller-gone\) \(if that controller is gone"):
        prepare_rollback("r", options)
    told = RollbackOptions(backup_dir=root, secrets=secrets, known_hosts=known, other_host_died=True)
    assert [t.name for t in prepare_rollback("r", told).push.targets] == ["leaf1"]
