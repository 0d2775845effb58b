"""One validation: a catalog's checks over the desired state and, when given, an observed snapshot."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import ValidationError

from xoff.contracts.observed import Snapshot
from xoff.desired.addressmap import moved
from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem
from xoff.intent.pydantic_errors import translate
from xoff.intent.yamlsource import load_yaml
from xoff.progress import ProgressHook, no_progress, stage
from xoff.validate.apart import Apart, worthwhile
from xoff.validate.catalog import Catalog
from xoff.validate.context import CheckContext, Derived
from xoff.validate.model import CheckResult, Status
from xoff.validate.registry import run_checks
from xoff.validate.select import Selection

if TYPE_CHECKING:
    from xoff.audit.outcome import BaselineOutcome

Source = Literal["offline", "snapshot", "live"]


@dataclass
class Validation:
    """What a report shows: the fabric, where the observed state came from, and every check's result."""

    desired: FabricState
    catalog: str
    source: Source
    results: list[CheckResult]
    snapshot: Snapshot | None = None
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    # ``--limit`` / ``--checks`` / ``--tags``: {"devices": [...], "checks": [...]} left out (not contacted, not
    # judged, not run); empty lists when everything was selected
    not_selected: dict[str, list[str]] = field(default_factory=lambda: {"devices": [], "checks": []})
    intent_hash: str | None = None  # ``report.meta.intent_hash`` of the intent loaded (None: built without it)
    origin: str | None = None  # the snapshot file judged (or written, --save-snapshot); None: none on disk
    lab: str | None = None  # the lab whose state was collected (the mode is then ``lab``)
    baseline: BaselineOutcome | None = None  # --baseline: the accepted findings left out, and those resolved
    # check id -> device -> judged (True) or not observed (False); a device absent: the check is not about it. Set by
    # xoff watch (its signals judge what was read, with no snapshot); empty: the grid works it out from the snapshot
    judged: dict[str, dict[str, bool]] = field(default_factory=dict)

    @property
    def mode(self) -> str:
        """offline | snapshot | live | lab."""
        return "lab" if self.lab is not None and self.source == "live" else self.source

    @property
    def fabric(self) -> str:
        return self.desired.fabric

    @property
    def address_map(self) -> list[str]:
        """``"source -> lab"`` per block the snapshot was collected under and the intent was mapped by (a lab's
        --remap); empty when the intent's own addresses were compared."""
        return moved(self.snapshot.address_map) if self.snapshot is not None else []

    @property
    def blocking(self) -> bool:
        return any(r.blocking for r in self.results)

    def summary(self) -> dict[str, int]:
        counts = dict.fromkeys((s.value for s in Status), 0)
        for r in self.results:
            counts[r.status.value] += 1
        return counts


def validate(
    desired: FabricState,
    catalog: Catalog,
    snapshot: Snapshot | None = None,
    source: Source = "offline",
    selection: Selection | None = None,
    progress: ProgressHook = no_progress,
    apart: bool | None = None,
) -> Validation:
    """The catalog's checks (as ``selection`` cuts them down: the devices judged, the checks run), each reported to
    ``progress`` as a step of the stage ``checks``. ``apart``: this process judges the slow whole-fabric checks
    (``Check.apart``) while a forked child judges the rest (None: when the fabric is large enough,
    ``validate.apart``); the results are the same either way, in catalog order."""
    start = time.perf_counter()
    chosen = selection or Selection()
    ids = [i for i in catalog.ids if i not in chosen.checks_not_selected]
    derived = Derived()  # what the checks derive from the states, worked out once for all of them

    def run_one(check_id: str) -> CheckResult:
        return run_checks(
            desired,
            [check_id],
            catalog.registry,
            observed=snapshot,
            params=catalog.params,
            selected=chosen.devices,
            derived=derived,
        )[0]

    rest = [i for i in ids if not catalog.registry.get(i).apart]
    if apart is None:
        slow = [i for i in ids if i not in rest]
        apart = bool(rest) and any(_may_run(catalog, i, desired, snapshot, chosen) for i in slow)
        apart = apart and worthwhile(len(desired.links))
    # the child takes the lighter side: its copied pages and pickled results cost less there
    away = Apart(run_one, rest if apart else [])
    done: dict[str, CheckResult] = {}
    try:
        with stage(progress, "checks", len(ids)) as checks:
            for check_id in [i for i in ids if i not in away.ids] + [i for i in ids if i in away.ids]:
                result = done[check_id] = away.result(check_id) if check_id in away.ids else run_one(check_id)
                checks.step(check_id, result.status.value)
    finally:
        away.close()
    results = [done[i] for i in ids]
    notes = list(snapshot.lab_only) if snapshot is not None else []
    validation = Validation(desired, catalog.name, source, results, snapshot, time.perf_counter() - start, notes)
    validation.not_selected = chosen.as_dict()
    return validation


def _may_run(
    catalog: Catalog, check_id: str, desired: FabricState, snapshot: Snapshot | None, chosen: Selection
) -> bool:
    """Whether a slow check will do its work (a snapshot without FIBs skips deadlock.cbd: then no fork is worth it).
    Only the fork depends on it, never a result: a check whose reason cannot be told counts as running."""
    cls = catalog.registry.get(check_id)
    params = catalog.params.get(check_id) or cls.Params()
    try:
        return cls().skip_reason(CheckContext(desired, snapshot, params, chosen.devices)) is None
    except Exception:  # judged again, and reported, when the check runs
        return True


def load_snapshot(path: Path, fabric: str | None) -> Snapshot:
    """A snapshot file (JSON, as ``xoff collect`` writes it); InputError with located lines if it is not one.

    The fast path is pydantic's own JSON parser: a 10,000-GPU snapshot is a few million small objects
    and no cycles (the CLI runs with the cyclic GC off for that reason, ``xoff.gcpause``). The same schema judges the
    file either way; only a file that fails goes through ``json.loads`` and the YAML source map, to
    say where it is wrong.
    """
    name = str(path)
    snap = read_snapshot(path)
    if fabric is not None and snap.fabric != fabric:  # None: any fabric (snapshot merge compares them itself)
        raise InputError(
            [
                Problem(
                    Location(name, 1, 1),
                    "fabric",
                    f"snapshot of fabric {snap.fabric!r}, not of this intent (allowed: {fabric!r})",
                )
            ]
        )
    return snap


def read_snapshot(path: Path) -> Snapshot:
    """A snapshot file of any fabric (``load_snapshot`` without the fabric check)."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError([Problem(Location(name, 1, 1), "", f"cannot read snapshot: {exc.strerror}")]) from None
    try:
        return Snapshot.model_validate_json(raw)
    except ValidationError:
        return _located_snapshot(path, raw, name)


def _located_snapshot(path: Path, raw: bytes, name: str) -> Snapshot:
    """The slow path, for a file the fast one refused: the same validation from ``json.loads`` data, so
    that every problem gets its file, line and column."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line, col = (exc.lineno, exc.colno) if isinstance(exc, json.JSONDecodeError) else (1, 1)
        raise InputError(
            [Problem(Location(name, line, col), "", "not a JSON snapshot (allowed: xoff collect output)")]
        ) from None
    try:
        return Snapshot.model_validate(data)
    except ValidationError as exc:
        _, smap = load_yaml(path, name)  # JSON is YAML: only to locate the errors
        raise InputError(translate(exc, data, smap, Snapshot)) from None


def pre_change_results(state: FabricState) -> list[CheckResult]:
    """The pre-change gate (``xoff check``): the pre-change catalog on the intent alone."""
    from xoff.validate.catalog import load_catalog  # noqa: PLC0415 - the catalog files only when asked

    return validate(state, load_catalog("pre-change")).results
