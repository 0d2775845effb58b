"""``rollback`` (restore the backups a push run took) and ``runs`` (the run store, newest first).

A rollback is a run of its own, prepared and run like a push (``api.push``: the intent's targets,
credentials, known_hosts, the fabric's lock, the run record, the same result model and display), whose
devices restore the earlier run's backups instead of applying rendered files (``push.restore``). The
devices that run did not change are skipped (said so); a device whose backup is missing fails alone.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.push import PushHooks, PushOptions, PushPlan, prepare_push, run_push
from xoff.errors import InputError, Location, Problem

if TYPE_CHECKING:
    from xoff.contracts.apply import ApplyStrategy, Capabilities
    from xoff.push.model import PushSummary
    from xoff.push.runs import RunDevice, RunRecord

# what a run did to a device that a rollback undoes (a device whose own rollback failed is restored too)
RESTORE_OUTCOMES = ("changed", "rollback_failed")


@dataclass(frozen=True)
class RollbackOptions:
    backup_dir: Path = Path("backups")  # where the run's record and backups are; the rollback's go there too
    limit: tuple[str, ...] = ()  # of the run's devices, these only
    dry_run: bool = False  # back up and show what the restore would change; change nothing
    engine: str = "nornir"
    intent: Path | None = None  # default: the intent the run pushed (its addresses, credentials' kinds)
    lab: str | None = None  # default: the lab the run pushed to, if any
    secrets: Path | None = None
    known_hosts: Path | None = None
    workers: int = 20
    timeout_s: float | None = None
    timeout_factor: float = 1.0
    other_host_died: bool = False  # the run is recorded as running on another host whose controller is gone


@dataclass(frozen=True)
class RollbackPlan:
    push: PushPlan  # the rollback run, ready to go
    of: RunRecord  # the run it undoes
    skipped: dict[str, str] = field(default_factory=dict)  # device -> why it is not restored


@dataclass(frozen=True)
class RollbackResult:
    summary: PushSummary
    run_id: str
    of: str
    skipped: dict[str, str]


def _bad(where: str, what: str, message: str) -> InputError:
    return InputError([Problem(Location(where, 1, 1), what, message)])


def _record(run_id: str, root: Path, other_host_died: bool = False) -> RunRecord:
    from xoff.push import runs  # noqa: PLC0415

    try:
        record = runs.read(root, run_id)
    except KeyError:
        raise _bad(
            "RUN_ID", run_id, f"no run {run_id!r} in {root} (xoff runs --backup-dir {root} lists them)"
        ) from None
    except ValueError as exc:
        raise _bad("RUN_ID", run_id, str(exc)) from None
    if record.status == runs.RUNNING and not (other_host_died and record.host != socket.gethostname()):
        # on this host a dead pid already reads back as interrupted; another host's pid cannot be checked from here
        more = " (if that controller is gone: --other-host-died)" if record.host != socket.gethostname() else ""
        raise _bad("RUN_ID", run_id, f"the run is still running (pid {record.pid} on {record.host}){more}")
    if record.options.get("dry_run"):
        raise _bad("RUN_ID", run_id, "a dry run changed nothing: there is nothing to roll back")
    return record


def _restores(root: Path, of: RunRecord, device: RunDevice) -> bool:
    """The run changed it, or may have: it was interrupted after backing the device up (the diff decides)."""
    from xoff.push.backups import backup_path  # noqa: PLC0415

    if device.outcome is None:
        return backup_path(root, of.run_id, device.name).is_file()
    return device.outcome in RESTORE_OUTCOMES


def _strategies(root: Path, of: RunRecord):  # type: ignore[no-untyped-def]
    from xoff.platforms.registry import get_platform, strategy_for  # noqa: PLC0415
    from xoff.push.backups import backup_path  # noqa: PLC0415
    from xoff.push.restore import RestoreStrategy, restore_capabilities  # noqa: PLC0415

    def make(device: str, platform: str, run_id: str) -> tuple[ApplyStrategy, Capabilities]:
        caps = get_platform(platform).capabilities
        if caps is None:
            raise KeyError(f"no push strategy for platform {platform!r}")
        path = backup_path(root, of.run_id, device)
        try:
            backup: str | None = path.read_text(encoding="utf-8")
        except OSError as exc:
            backup, missing = None, f"run {of.run_id}'s backup of {device} cannot be read: {path} ({exc.strerror})"
        else:
            missing = ""
        inner = strategy_for(platform, run_id)
        return RestoreStrategy(inner, backup, of.run_id, missing), restore_capabilities(caps)

    return make


def prepare_rollback(run_id: str, options: RollbackOptions = RollbackOptions()) -> RollbackPlan:
    """The run's record read, the devices it changed chosen (``--limit`` among them), the rollback
    prepared as a push of those devices: nothing contacted yet."""
    root = options.backup_dir
    of = _record(run_id, root, options.other_host_died)
    intent = options.intent or (Path(of.intent) if of.intent else None)
    if intent is None:
        raise _bad("--intent", run_id, "the run recorded no intent: name it with --intent")
    lab = options.lab or of.options.get("lab")
    restore = [d.name for d in of.devices if _restores(root, of, d)]
    skipped = {
        d.name: f"run {of.run_id} did not change it ({d.outcome})"
        if d.outcome
        else f"run {of.run_id} was interrupted before it backed it up"
        for d in of.devices
        if d.name not in restore
    }
    push_options = PushOptions(
        lab=str(lab) if lab else None,
        secrets=options.secrets,
        known_hosts=options.known_hosts,
        dry_run=options.dry_run,
        limit=options.limit or tuple(restore) or tuple(d.name for d in of.devices),
        workers=options.workers,
        timeout_s=options.timeout_s,
        timeout_factor=options.timeout_factor,
        engine=options.engine,
        backup_dir=root,
    )
    plan = prepare_push(intent, push_options)
    chosen = {t.name for t in plan.job.targets}
    plan.job.targets = [t for t in plan.job.targets if t.name in restore]
    plan.job.strategies = _strategies(root, of)  # the Nornir engine's device flow
    plan.job.restore_from = root / of.run_id  # the Ansible engine's restore.yml
    if options.limit:  # of the devices --limit chose, the ones not restored and why
        skipped = {name: skipped.get(name, f"not in run {of.run_id}") for name in sorted(chosen) if name not in restore}
    plan.record.kind, plan.record.rollback_of = "rollback", of.run_id
    plan.record.options["limit"] = list(options.limit)
    return RollbackPlan(plan, of, skipped)


def run_rollback(prepared: RollbackPlan, hooks: PushHooks | None = None) -> RollbackResult:
    """Run a prepared rollback under the fabric's lock (its own run record, ``rollback_of`` set)."""
    summary = run_push(prepared.push, hooks).summary
    return RollbackResult(summary, prepared.push.record.run_id, prepared.of.run_id, prepared.skipped)


def rollback(
    run_id: str, options: RollbackOptions = RollbackOptions(), hooks: PushHooks | None = None
) -> RollbackResult:
    """Restore the backups run ``run_id`` took on the devices it changed; verify; report like push."""
    return run_rollback(prepare_rollback(run_id, options), hooks)


def list_runs(backup_dir: Path = Path("backups")) -> list[RunRecord]:
    """Every run recorded under ``backup_dir``, newest first (a dead run's ``running`` reads ``interrupted``)."""
    from xoff.push import runs  # noqa: PLC0415

    return runs.runs(backup_dir)
