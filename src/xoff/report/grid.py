"""Device x check: one row per device (clean devices of one role with the same row share it, with a count), one
column per check, each cell what the check said about that device, with the reason as a tooltip.

A cell is ``failing`` / ``warning`` (a finding on the device), ``ok`` (judged, no finding), ``unobserved`` (the
snapshot does not hold what the check reads of this device: not judged), ``skipped`` / ``error`` (the check did not
run), or ``na`` (the device holds nothing the check reads)."""

from __future__ import annotations

from dataclasses import dataclass

from xoff.desired.models import Device
from xoff.report.topology import worst
from xoff.validate.coverage import holds, unread
from xoff.validate.model import CheckResult, Finding, Severity, Status
from xoff.validate.registry import CHECKS
from xoff.validate.run import Validation

MAX_ROWS = 120  # rows of failing devices shown one by one; beyond, they are grouped like clean ones
_STATE = {"failing": "failing", "warning": "warning", "error": "failing", "skipped": "skipped"}


@dataclass(frozen=True)
class Cell:
    state: str  # failing | warning | ok | unobserved | skipped | error | na
    tip: str


@dataclass(frozen=True)
class GridRow:
    label: str
    devices: tuple[str, ...]
    cells: tuple[Cell, ...]

    @property
    def state(self) -> str:
        return worst(_STATE.get(c.state, "ok") for c in self.cells)


@dataclass(frozen=True)
class Grid:
    checks: list[CheckResult]
    rows: list[GridRow]


def findings_by_device(results: list[CheckResult]) -> dict[tuple[str, str], list[Finding]]:
    out: dict[tuple[str, str], list[Finding]] = {}
    for r in results:
        for f in r.findings:
            out.setdefault((r.id, f.device), []).append(f)
    return out


def device_states(validation: Validation) -> dict[str, str]:
    """Device -> failing | warning, the worst finding on it (devices without one are absent)."""
    out: dict[str, str] = {}
    for r in validation.results:
        if r.status is Status.FAILURE:
            level = "failing" if r.severity is Severity.ERROR else "warning"
            for f in r.findings:
                out[f.device] = worst((out.get(f.device, "ok"), level))
    return out


def _reads(check_id: str) -> tuple[str, ...]:
    return CHECKS.get(check_id).reads if check_id in CHECKS else ()


def _judged_cell(check_id: str, name: str, per: dict[str, bool]) -> Cell:
    """A cell from what the check says it judged (xoff watch): not about the device, not observed, or no finding."""
    if name not in per:
        return Cell("na", f"{check_id}: not about {name}")
    if not per[name]:
        return Cell("unobserved", f"{check_id}: not judged on {name}: nothing observed")
    return Cell("ok", f"{check_id}: {name}: no finding")


def _cell(validation: Validation, r: CheckResult, dev: Device, found: list[Finding] | None) -> Cell:
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        return Cell("failing" if r.severity is Severity.ERROR else "warning", f"{r.id}: {found[0]}{more}")
    if r.status in (Status.SKIPPED, Status.UNSET, Status.ERROR):
        state = "error" if r.status is Status.ERROR else "skipped"
        return Cell(state, f"{r.id}: {r.status.value}: {r.message or ''}")
    per = validation.judged.get(r.id)
    if per is not None:
        return _judged_cell(r.id, dev.name, per)
    reads = _reads(r.id)
    if reads and not holds(dev, reads[0]):
        return Cell("na", f"{r.id}: nothing on {dev.name} that it reads ({reads[0]})")
    snap = validation.snapshot
    if snap is not None and reads:
        seen = snap.observed.devices.get(dev.name)
        missing = unread(seen, snap.observed_fields.get(dev.name, []), reads) if seen is not None else list(reads)
        if missing:
            return Cell("unobserved", f"{r.id}: not judged on {dev.name}: not observed: {', '.join(missing)}")
    return Cell("ok", f"{r.id}: {dev.name}: no finding")


def _rows(validation: Validation) -> list[tuple[Device, tuple[Cell, ...]]]:
    found = findings_by_device(validation.results)
    return [
        (dev, tuple(_cell(validation, r, dev, found.get((r.id, dev.name))) for r in validation.results))
        for dev in sorted(validation.desired.devices.values(), key=lambda d: d.name)
    ]


def _others(validation: Validation) -> list[GridRow]:
    """Rows for what findings name that is not a device of the intent (a network, a subnet manager's fabric)."""
    found = findings_by_device(validation.results)
    names = sorted({d for _, d in found} - set(validation.desired.devices))
    rows = []
    for name in names:
        cells = []
        for r in validation.results:
            hit = found.get((r.id, name))
            cells.append(
                Cell("failing" if r.severity is Severity.ERROR else "warning", f"{r.id}: {hit[0]}")
                if hit
                else Cell("na", f"{r.id}: nothing about {name}")
            )
        rows.append(GridRow(f"{name} (not a device)", (name,), tuple(cells)))
    return rows


def _grouped(rows: list[tuple[Device, tuple[Cell, ...]]]) -> list[GridRow]:
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[Device, tuple[Cell, ...]]]] = {}
    for dev, cells in rows:
        groups.setdefault((dev.role, tuple(c.state for c in cells)), []).append((dev, cells))
    out = []
    for members in groups.values():
        names = tuple(d.name for d, _ in members)
        label = names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]} ({len(names)} {members[0][0].role})"
        out.append(GridRow(label, names, members[0][1]))
    return out


def grid(validation: Validation) -> Grid:
    """Devices with a finding first (most findings first), one row each up to MAX_ROWS; then the rest grouped."""
    rows = _rows(validation)
    bad = [(d, c) for d, c in rows if any(x.state in ("failing", "warning") for x in c)]
    bad.sort(key=lambda dc: -sum(x.state == "failing" for x in dc[1]))
    named = {d.name for d, _ in bad}
    clean = [(d, c) for d, c in rows if d.name not in named]
    single = [GridRow(d.name, (d.name,), c) for d, c in bad[:MAX_ROWS]]
    return Grid(validation.results, _others(validation) + single + _grouped(bad[MAX_ROWS:]) + _grouped(clean))
