"""``xoff lab list``: every lab on this machine, from its state directory (``lab.json``), and whether it runs.

A lab is ``alive`` when every process it recorded still runs (same PID *and* start time, so a PID the
kernel gave to another program does not count), ``stale`` when none does (its processes were killed,
or the machine rebooted under a labs root that survives reboots: ``xoff lab down --name NAME`` clears
it), and ``partial`` in between (``xoff lab up`` brings the missing ones back). Reads files and /proc
only: no namespace is entered, nothing is started or stopped.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from xoff.lab import names
from xoff.lab.processes import alive
from xoff.lab.state import STATE_FILE, load


@dataclass(frozen=True)
class LabRow:
    name: str
    state: str  # alive | partial | stale | unreadable
    fabric: str | None = None
    intent: str | None = None
    devices: int = 0
    started: str | None = None  # ISO 8601, UTC
    processes: int = 0
    processes_alive: int = 0
    remapped: bool = False  # brought up with --remap, and some block moved
    problem: str | None = None  # why lab.json could not be read


def _state_of(total: int, running: int) -> str:
    if total and running == total:
        return "alive"
    return "partial" if running else "stale"


def row(lab_dir: Path) -> LabRow:
    """One lab's row; a lab.json that cannot be read is a row saying why, never a failure of the list."""
    try:
        state = load(lab_dir)
    except (OSError, ValueError) as exc:  # JSON, version or schema (pydantic's ValidationError is a ValueError)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return LabRow(lab_dir.name, "unreadable", problem=first)
    if state is None:
        return LabRow(lab_dir.name, "unreadable", problem=f"no {STATE_FILE}")
    running = sum(1 for p in state.processes.values() if alive(p))
    return LabRow(
        name=state.name,
        state=_state_of(len(state.processes), running),
        fabric=state.fabric,
        intent=state.intent,
        devices=len(state.devices),
        started=datetime.fromtimestamp(state.created_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if state.created_at
        else None,
        processes=len(state.processes),
        processes_alive=running,
        remapped=any(a != b for a, b in state.remap),
    )


def rows(root: Path | None = None) -> list[LabRow]:
    """Every lab under the labs root (``XOFF_LAB_DIR`` or /run/xoff/labs), by name."""
    base = root or names.labs_root()
    if not base.is_dir():
        return []
    return [row(d) for d in sorted(base.iterdir()) if d.is_dir() and (d / STATE_FILE).exists()]


def text(found: list[LabRow], root: Path) -> str:
    if not found:
        return f"no lab on this machine (labs root: {root})"
    lines = [f"{'lab':<16} {'state':<10} {'devices':>7} {'started (UTC)':<20} {'processes':>9}  intent"]
    for r in found:
        if r.state == "unreadable":
            lines.append(f"{r.name:<16} {r.state:<10} {'':>7} {'':<20} {'':>9}  {r.problem}")
            continue
        procs = f"{r.processes_alive}/{r.processes}"
        intent = (r.intent or "") + (" (--remap)" if r.remapped else "")
        lines.append(f"{r.name:<16} {r.state:<10} {r.devices:>7} {r.started or '?':<20} {procs:>9}  {intent}")
    return "\n".join(lines)


def as_json(found: list[LabRow]) -> str:
    return json.dumps([asdict(r) for r in found], indent=2)
