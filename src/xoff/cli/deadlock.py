"""``xoff deadlock``'s edge: options -> ``xoff.api.deadlock`` -> the report printed -> the exit status.

``--snapshot FILE`` analyses a forwarding snapshot file. Exit status (``xoff.exitcodes``): 0 the
analysis ran (whatever it found), 1 risk found with ``--fail-on-risk``, 2 malformed input (one line
``FILE:LINE:COL: key.path: what is wrong (what is allowed)``), 4 the InfiniBand fabric could not be read.
Also runnable alone: ``python -m xoff.cli.deadlock --snapshot FILE [--format json] [--fail-on-risk]``.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.errors import InputError
from xoff.exitcodes import ExitCode


class SnapshotFormat(StrEnum):
    text = "text"
    json = "json"


def run_deadlock(
    *,
    intent: Path | None = None,
    snapshot: Path | None = None,
    ib_lab: str | None = None,
    ib_dump: Path | None = None,
    failures: int = 0,
    routing: str = "bgp",
    workers: int = 1,
    network: str = "compute",
    export_snapshot: Path | None = None,
    sl: tuple[int, ...] | None = None,
    save: Path | None = None,
    json_format: bool = False,
    fail_on_risk: bool = False,
    quiet: bool = False,
) -> None:
    """Every ``deadlock`` command: call the API (its stages drawn on stderr unless ``quiet``), print its report, exit
    as ``xoff.exitcodes`` says."""
    from xoff import api
    from xoff.progress.display import progress_display

    options = api.DeadlockOptions(
        intent=intent,
        snapshot=snapshot,
        ib_lab=ib_lab,
        ib_dump=ib_dump,
        failures=failures,
        routing=routing,
        workers=workers,
        network=network,
        export_snapshot=export_snapshot,
        sl=sl,
        save=save,
    )
    try:
        with progress_display(quiet) as progress:
            result = api.deadlock(options, progress)
    except InputError as exc:
        problems = exc.sorted()
        # a snapshot file: the first problem in file order, on one line
        for p in problems[:1] if snapshot is not None and intent is None else problems:
            print(str(p), file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT) from None
    except api.NotCollectedError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(ExitCode.NOT_COLLECTED) from None
    if result.exported is not None:
        print(
            f"wrote {export_snapshot} (baseline forwarding snapshot, {result.exported} destinations)", file=sys.stderr
        )
    print(json.dumps(result.to_json(), indent=2) if json_format else result.to_text())
    if fail_on_risk and result.risk:
        raise typer.Exit(ExitCode.FINDINGS)


def snapshot_command(
    snapshot: Annotated[Path, typer.Option("--snapshot", help="forwarding snapshot file (YAML or JSON)")],
    fmt: Annotated[SnapshotFormat, typer.Option("--format", "-f", help="text for people, json for machines")] = (
        SnapshotFormat.text
    ),
    fail_on_risk: Annotated[bool, typer.Option("--fail-on-risk", help="exit 1 when there is deadlock risk")] = False,
) -> None:
    """PFC deadlock risk (cyclic buffer dependency) of a forwarding snapshot."""
    run_deadlock(snapshot=snapshot, json_format=SnapshotFormat(fmt) is SnapshotFormat.json, fail_on_risk=fail_on_risk)


def make_app() -> typer.Typer:
    """A one-command typer app around :func:`snapshot_command` (for ``-m`` runs and tests)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command()(snapshot_command)
    return app


def main() -> None:
    """Entry point for ``python -m xoff.cli.deadlock``."""
    make_app()()


if __name__ == "__main__":
    main()
