"""``push`` (preflight, credentials, render, the fabric's lock, the engine) and the inventory export.

A push is prepared first (:func:`prepare_push`: every check that needs no device, so bad input stops
before anything is contacted), then run (:func:`run_push`) under the fabric's lock; :func:`push` does
both. Progress reaches the caller only through ``hooks`` (the CLI's rich display or JSON lines).
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from xoff.api.intent import IntentSource, load
from xoff.errors import InputError, Location, Problem, usage_error

if TYPE_CHECKING:
    from xoff.connect.sources import TargetSource
    from xoff.connect.targets import Target
    from xoff.desired.domains import DomainKind
    from xoff.desired.models import FabricState
    from xoff.desired.shard import Shard
    from xoff.push.job import PushJob
    from xoff.push.job import PushOptions as EngineOptions
    from xoff.push.model import PushEvent, PushSummary, StageEvent

ENGINES = ("nornir", "ansible")


def _bad(where: str, path: str, message: str) -> InputError:
    return InputError([Problem(Location(where, 1, 1), path, message)])


def _fabric(source: IntentSource, lab: str | None) -> tuple[FabricState, TargetSource | None]:
    """The FabricState to push (the lab's remapped one with --lab) and the lab's target source, if any."""
    from xoff.connect.sources import open_source  # noqa: PLC0415

    fabric = load(source).state
    if lab is None:
        return fabric, None
    conn = open_source("lab", lab)
    if conn.fabric.fabric != fabric.fabric:
        raise _bad("--lab", lab, f"the lab runs fabric {conn.fabric.fabric!r}, not this intent's {fabric.fabric!r}")
    return conn.fabric, conn


@dataclass(frozen=True)
class PushOptions:
    lab: str | None = None  # push to this running lab (its addresses, secrets, keys)
    secrets: Path | None = None  # 0600 secrets file (else the environment)
    known_hosts: Path | None = None  # host keys are always checked (default ~/.ssh/known_hosts)
    dry_run: bool = False  # back up and compute the diff; change nothing
    limit: tuple[str, ...] = ()  # device names, roles, groups
    canary: int = 0
    batch_size: int = 0
    max_failures: int | None = None
    workers: int = 20
    timeout_s: float | None = None  # fixed seconds per SSH operation; None: follow each device's pace
    timeout_factor: float = 1.0  # times every adaptive timeout (connect.pace)
    engine: str = "nornir"  # nornir | ansible
    backup_dir: Path = Path("backups")
    run_id: str | None = None  # default: the UTC time, 20260101T120000Z
    canary_by: DomainKind | None = None  # the canary is one whole failure domain; batches never mix domains
    shard: Shard | None = None  # only this controller's part of the devices (``--shard K/N``), after ``limit``


class PushHooks(Protocol):
    """What a push tells its caller: the plan (inside the lock, before any device), every step's event
    (from worker threads) and each rollout stage (canary, batches), and that the engine is done."""

    def plan(self, targets: list[Target], dry_run: bool) -> None: ...

    def __call__(self, event: PushEvent | StageEvent) -> None: ...

    def close(self) -> None: ...


class SilentHooks:
    """Hooks that keep nothing: for callers that only want the summary."""

    def plan(self, targets: list[Target], dry_run: bool) -> None:
        pass

    def __call__(self, event: PushEvent | StageEvent) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class PushPlan:
    """A push that passed every check without contacting a device: ready to run."""

    job: PushJob
    engine_options: EngineOptions
    engine: str
    lock_files: tuple[Path, ...]  # one per pod the push's devices are in (``push.lock``), sorted

    @property
    def targets(self) -> list[Target]:
        return self.job.targets


@dataclass(frozen=True)
class PushResult:
    summary: PushSummary


def _check_options(options: PushOptions) -> None:
    """The options that need no intent: engine, timeouts, one kind of canary."""
    if options.engine not in ENGINES:
        raise _bad("--engine", options.engine, f"no push engine {options.engine!r} (allowed: {', '.join(ENGINES)})")
    for flag, value in (("--timeout", options.timeout_s), ("--timeout-factor", options.timeout_factor)):
        if value is not None and not value > 0:
            raise _bad(flag, str(value), "must be above 0")
    if options.canary_by is not None and options.canary > 0:
        raise _bad("--canary-by", options.canary_by, "give one of --canary N, --canary-by DOMAIN (allowed: one)")


def prepare_push(source: IntentSource, options: PushOptions = PushOptions()) -> PushPlan:
    """Targets, strategies, credentials, known_hosts and the engine checked; the files rendered."""
    from xoff.api.collect import sharded  # noqa: PLC0415
    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.targets import build_targets, select  # noqa: PLC0415
    from xoff.desired.domains import domains  # noqa: PLC0415
    from xoff.platforms.registry import platforms  # noqa: PLC0415
    from xoff.push.job import PushJob  # noqa: PLC0415
    from xoff.push.job import PushOptions as EngineOptions  # noqa: PLC0415
    from xoff.push.lock import locks_for  # noqa: PLC0415
    from xoff.render import render_fabric  # noqa: PLC0415

    _check_options(options)
    lab, secrets, known_hosts, engine = options.lab, options.secrets, options.known_hosts, options.engine
    fabric, conn = _fabric(source, lab)
    targets = sharded(fabric, select(build_targets(fabric), list(options.limit)), options.shard)
    for t in targets:
        record = platforms().get(t.platform)
        try:
            if record is None or record.strategy is None:
                raise KeyError(t.platform)
            record.strategy.load()
        except (KeyError, ImportError):
            raise _bad(
                "--limit", t.name, f"no push strategy for platform {t.platform!r} yet (leave it out with --limit)"
            ) from None
    creds = load_credentials(secrets or (conn.secrets_file if conn else None))
    missing = [t.name for t in targets if creds.for_device(t.platform, t.kind) is None]
    if missing:
        raise _bad(
            str(secrets or "environment"),
            missing[0],
            "no credentials for this device's kind (allowed: switch, host)",
        )
    hosts_file = known_hosts or (conn.known_hosts if conn else None) or Path.home() / ".ssh" / "known_hosts"
    if not hosts_file.is_file():
        raise _bad("--known-hosts", str(hosts_file), "no such file (host keys are always checked)")
    if engine == "ansible" and importlib.util.find_spec("xoff.push.ansible_engine") is None:
        raise _bad("--engine", "ansible", "the Ansible engine is not installed (allowed: nornir)")
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(fabric, [t.name for t in targets]):
        desired.setdefault(f.device, {})[f.name] = f.content
    run_id = options.run_id or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    job = PushJob(fabric.fabric, run_id, targets, desired, creds, hosts_file)
    if options.canary_by is not None:
        job.domain_of = domains(fabric, options.canary_by)
    engine_options = EngineOptions(
        dry_run=options.dry_run,
        canary=options.canary,
        batch_size=options.batch_size,
        max_failures=options.max_failures,
        workers=options.workers,
        timeout_s=options.timeout_s,
        timeout_factor=options.timeout_factor,
        backup_dir=options.backup_dir,
        canary_by=options.canary_by,
    )
    locks = locks_for(fabric, [t.name for t in targets], conn.lock_dir if conn else None)
    return PushPlan(job, engine_options, engine, locks)


def run_push(prepared: PushPlan, hooks: PushHooks | None = None) -> PushResult:
    """Run a prepared push under the locks of its pods; another push holding one is an InputError."""
    from xoff.push.job import engine as engine_for  # noqa: PLC0415
    from xoff.push.lock import LockedError, domain_locks  # noqa: PLC0415

    display = hooks if hooks is not None else SilentHooks()
    job, options = prepared.job, prepared.engine_options
    try:
        with domain_locks(prepared.lock_files, f"fabric {job.fabric}"):
            display.plan(job.targets, options.dry_run)
            try:
                summary = engine_for(prepared.engine)(job, options, display)
            finally:
                display.close()
    except LockedError as exc:
        raise usage_error(str(exc)) from None
    return PushResult(summary)


def push(source: IntentSource, options: PushOptions = PushOptions(), hooks: PushHooks | None = None) -> PushResult:
    """Back up, diff, apply, verify, roll back on failure: every targeted device, by the chosen engine."""
    return run_push(prepare_push(source, options), hooks)


@dataclass(frozen=True)
class InventoryOptions:
    format: str = "nornir"  # nornir | ansible
    output: Path = Path("out/inventory")
    lab: str | None = None  # the running lab's addresses and known_hosts
    known_hosts: Path | None = None


@dataclass(frozen=True)
class InventoryResult:
    output: Path
    devices: int
    format: str


def export_inventory(source: IntentSource, options: InventoryOptions = InventoryOptions()) -> InventoryResult:
    """Write the Nornir SimpleInventory or the Ansible inventory built from intent (no credential in it)."""
    from xoff.connect.targets import build_targets  # noqa: PLC0415

    lab, known_hosts, output = options.lab, options.known_hosts, options.output
    fabric, conn = _fabric(source, lab)
    targets = build_targets(fabric)
    hosts_file = known_hosts or (conn.known_hosts if conn else None)
    if options.format == "ansible":
        if importlib.util.find_spec("xoff.connect.ansible_inventory") is None:
            raise usage_error("inventory export: --format ansible is not installed (allowed: nornir)")
        from xoff.connect import ansible_inventory  # noqa: PLC0415

        ansible_inventory.export_ansible(targets, output)
    else:
        from xoff.connect.nornir_inventory import export_nornir  # noqa: PLC0415

        export_nornir(targets, output, hosts_file)
    return InventoryResult(output, len(targets), options.format)
