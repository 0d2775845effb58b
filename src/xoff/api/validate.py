"""``validate``: a catalog's checks over the desired state, offline, on a saved snapshot, on a lab, or live.

The mode is always explicit, as on the command line: exactly one of ``offline``, ``snapshot``, ``lab``, ``live``, else
``InputError`` and nothing is contacted (real devices are never reached by default). ``limit`` chooses the devices
judged (and, live or on a lab, the only ones contacted), ``checks`` / ``tags`` the checks run (``validate.select``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.collect import Reach, read_devices
from xoff.api.intent import IntentSource, Loaded, load
from xoff.errors import InputError, Problem, usage_error
from xoff.modes import mode_problem
from xoff.progress import ProgressHook, no_progress

if TYPE_CHECKING:
    from xoff.contracts.observed import Snapshot
    from xoff.desired.models import FabricState
    from xoff.validate.catalog import Catalog
    from xoff.validate.run import Source, Validation
    from xoff.validate.select import Selection


@dataclass(frozen=True)
class ValidateOptions:
    offline: bool = False  # judge the intent alone (no device contacted)
    snapshot: Path | None = None  # judge a snapshot file (xoff collect -o)
    lab: str | None = None  # collect the running lab of this name, then judge
    live: bool = False  # collect the real devices at the intent's management addresses, then judge
    catalog: str = "default"  # default | pre-change | audit | a catalog file
    limit: tuple[str, ...] = ()  # devices judged (and contacted): push's --limit syntax; () all
    checks: tuple[str, ...] = ()  # check ids or globs (lossless.*); with tags: either chooses
    tags: tuple[str, ...] = ()  # check tags (lossless, buffers, drift, deadlock, infiniband, cabling, hosts, ...)
    save_snapshot: Path | None = None  # live: also write the snapshot
    secrets: Path | None = None
    known_hosts: Path | None = None
    workers: int = 20
    timeout_s: float = 20.0
    baseline: Path | None = None  # report only findings new since this accepted snapshot (needs observed state)


@dataclass(frozen=True)
class ValidateResult:
    validation: Validation

    @property
    def source(self) -> Source:
        return self.validation.source

    @property
    def blocking(self) -> bool:
        return self.validation.blocking

    @property
    def not_collected(self) -> bool:
        """Some device could not be read live, or the snapshot judged holds no device at all (an empty captures
        directory): nothing observed is never a clean audit."""
        snap = self.validation.snapshot
        if snap is None:
            return False
        return (self.source == "live" and bool(snap.errors)) or not snap.observed.devices


def _selection(desired: FabricState, catalog: Catalog, options: ValidateOptions) -> Selection:
    from xoff.validate.select import Selection, select_checks, select_devices  # noqa: PLC0415

    problems: list[Problem] = []
    devices: frozenset[str] | None = None
    ids: list[str] = []
    try:
        devices = select_devices(desired, options.limit)
    except InputError as exc:
        problems += exc.problems
    try:
        ids = select_checks(catalog.ids, catalog.registry, options.checks, options.tags)
    except InputError as exc:
        problems += exc.problems
    if problems:  # a bad --limit and a bad --tags are said together
        raise InputError(problems)
    return Selection(
        devices=devices,
        devices_not_selected=tuple(sorted(set(desired.devices) - devices)) if devices is not None else (),
        checks_not_selected=tuple(i for i in catalog.ids if i not in ids),
    )


def _baseline(loaded: Loaded, cat: Catalog, selection: Selection, path: Path | None) -> Validation | None:
    """The baseline snapshot validated against the same intent (in its own collect's addresses), catalog and selection."""
    if path is None:
        return None
    from xoff.desired.addressmap import map_fabric  # noqa: PLC0415
    from xoff.validate.run import load_snapshot  # noqa: PLC0415
    from xoff.validate.run import validate as run_checks  # noqa: PLC0415

    snap = load_snapshot(path, loaded.state.fabric)
    return run_checks(map_fabric(loaded.state, snap.address_map), cat, snap, "snapshot", selection)


def validate(source: IntentSource, options: ValidateOptions, progress: ProgressHook = no_progress) -> ValidateResult:
    """Exactly one mode (``offline``, ``snapshot``, ``lab``, ``live``); ``progress`` hears the stages ``collect``
    (live and lab: a step per device) and ``checks`` (a step per check)."""
    from xoff.desired.addressmap import map_fabric  # noqa: PLC0415
    from xoff.report.meta import intent_hash  # noqa: PLC0415
    from xoff.validate.catalog import load_catalog  # noqa: PLC0415
    from xoff.validate.run import load_snapshot  # noqa: PLC0415
    from xoff.validate.run import validate as run_checks  # noqa: PLC0415

    problem = mode_problem(options.offline, options.snapshot, options.lab, options.live)
    if problem is not None:
        raise usage_error(problem)
    if options.baseline is not None and options.offline:
        raise usage_error("xoff validate: --baseline compares observed state: give --snapshot, --lab or --live")
    cat = load_catalog(options.catalog)
    loaded = load(source)
    desired = loaded.state
    selection = _selection(desired, cat, options)
    snap: Snapshot | None = None
    where: Source = "offline"
    if options.snapshot is not None:
        snap, where = load_snapshot(options.snapshot, desired.fabric), "snapshot"
        desired = map_fabric(desired, snap.address_map)  # collected under a lab's --remap: compare in its addresses
    elif not options.offline:
        reach = Reach(options.lab, options.secrets, options.known_hosts, options.workers, options.timeout_s)
        chosen: list[str] | frozenset[str] = selection.devices if selection.devices is not None else []
        desired, snap, _ = read_devices(loaded, reach, chosen, None, progress)
        where = "live"
    if options.save_snapshot is not None and snap is not None and where == "live":
        options.save_snapshot.parent.mkdir(parents=True, exist_ok=True)
        options.save_snapshot.write_text(snap.model_dump_json(indent=2) + "\n", encoding="utf-8")
    baseline = _baseline(loaded, cat, selection, options.baseline)  # a bad baseline is said before anything runs
    validation = run_checks(desired, cat, snap, where, selection, progress)
    validation.intent_hash = intent_hash(loaded.intent)
    if baseline is not None and options.baseline is not None:
        from xoff.audit.baseline import apply_baseline  # noqa: PLC0415

        apply_baseline(validation, baseline, str(options.baseline))
    validation.lab = options.lab if where == "live" else None
    saved = options.save_snapshot if where == "live" else None
    validation.origin = next((str(p) for p in (options.snapshot, saved) if p is not None), None)
    return ValidateResult(validation)
