"""``snapshot merge``: join the snapshots of ``collect --shard K/N`` runs into one (``xoff.collect.merge``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.errors import InputError, Location, Problem

if TYPE_CHECKING:
    from xoff.contracts.observed import Snapshot


@dataclass(frozen=True)
class MergeResult:
    snapshot: Snapshot
    output: Path | None
    devices: int


def merge(paths: list[Path], output: Path | None = None) -> MergeResult:
    """Load every shard snapshot (located errors for a bad file), merge them, write ``output`` if given."""
    from xoff.collect.merge import merge_snapshots  # noqa: PLC0415
    from xoff.validate.run import load_snapshot  # noqa: PLC0415

    if len(paths) < 2:
        where = Location(str(paths[0]) if paths else "snapshot merge", 1, 1)
        raise InputError([Problem(where, "snapshot merge", f"{len(paths)} snapshot given (allowed: two or more)")])
    loaded: list[Snapshot] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            loaded.append(load_snapshot(path, None))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    snapshot = merge_snapshots(loaded, [str(p) for p in paths])
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(snapshot.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return MergeResult(snapshot, output, len(snapshot.observed.devices))
