"""``xoff deadlock --snapshot FILE``: analyse a forwarding snapshot file.

Exit status: 0 the analysis ran (whatever it found), 1 risk found with ``--fail-on-risk``,
2 malformed input (one line ``FILE:LINE:COL: key.path: what is wrong (what is allowed)``).
Also runnable alone: ``python -m xoff.deadlock.cli --snapshot FILE [--format json] [--fail-on-risk]``.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.deadlock.analysis import analyse
from xoff.deadlock.render import render_text
from xoff.deadlock.snapshot_file import load_snapshot
from xoff.errors import InputError

EXIT_OK, EXIT_RISK, EXIT_INPUT = 0, 1, 2


class SnapshotFormat(StrEnum):
    text = "text"
    json = "json"


def snapshot_command(
    snapshot: Annotated[Path, typer.Option("--snapshot", help="forwarding snapshot file (YAML or JSON)")],
    fmt: Annotated[SnapshotFormat, typer.Option("--format", "-f", help="text for people, json for machines")] = (
        SnapshotFormat.text
    ),
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is deadlock risk")] = False,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency) of a forwarding snapshot."""
    try:
        snap = load_snapshot(snapshot)
    except InputError as exc:
        print(str(exc.sorted()[0]), file=sys.stderr)  # the first problem in file order, on one line
        raise typer.Exit(EXIT_INPUT) from None
    result = analyse(snap)
    if SnapshotFormat(fmt) is SnapshotFormat.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(render_text(result))
    if fail_on_risk and result.deadlock_risk:
        raise typer.Exit(EXIT_RISK)


def make_app() -> typer.Typer:
    """A one-command typer app around :func:`snapshot_command` (for ``-m`` runs and tests)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(snapshot_command)
    return app


def main() -> None:
    """Entry point for ``python -m xoff.deadlock.cli``."""
    make_app()()


if __name__ == "__main__":
    main()
