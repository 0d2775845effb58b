"""``diff``: what changed in the running state between two snapshot files (``xoff diff``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.errors import InputError, Location, Problem

if TYPE_CHECKING:
    from xoff.audit.model import SnapshotDiff
    from xoff.contracts.observed import Snapshot


@dataclass(frozen=True)
class DiffOptions:
    limit: tuple[str, ...] = ()  # device names or globs, roles, platforms, groups (push's --limit); () all


def _devices(a: Snapshot, b: Snapshot, limit: tuple[str, ...]) -> frozenset[str] | None:
    """The devices ``limit`` chooses among those of either snapshot (None: no limit)."""
    from xoff.validate.select import select_devices  # noqa: PLC0415

    both = {**a.observed.devices, **b.observed.devices}
    return select_devices(b.observed.model_copy(update={"devices": both}), limit)


def diff(a_path: Path, b_path: Path, options: DiffOptions = DiffOptions()) -> SnapshotDiff:
    """Snapshot A (before) against snapshot B (after); ``InputError`` (located) for a file that is not a snapshot, or
    two snapshots of different fabrics."""
    from xoff.audit.diff import diff_snapshots  # noqa: PLC0415
    from xoff.validate.run import read_snapshot  # noqa: PLC0415

    problems: list[Problem] = []
    snaps: list[Snapshot] = []
    for path in (a_path, b_path):
        try:
            snaps.append(read_snapshot(path))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    a, b = snaps
    if a.fabric != b.fabric:
        where = Location(str(b_path), 1, 1)
        raise InputError(
            [Problem(where, "fabric", f"snapshot of fabric {b.fabric!r}, A is of {a.fabric!r} (allowed: {a.fabric!r})")]
        )
    return diff_snapshots(a, b, str(a_path), str(b_path), _devices(a, b, options.limit))
