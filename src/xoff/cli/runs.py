"""``xoff runs``: the push and rollback runs recorded under a backup directory, newest first."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.push import PushFormat


def runs_command(
    backup_dir: Annotated[Path, typer.Option("--backup-dir", help="where push wrote its backups")] = Path("backups"),
    fmt: Annotated[PushFormat, typer.Option("--format", "-f", help="text for people, json")] = PushFormat.text,
) -> None:
    """List the runs (push, rollback) with their devices and outcomes, newest first."""
    from xoff.api.rollback import list_runs
    from xoff.push.runs import unreadable
    from xoff.push.runs_display import runs_text

    found = list_runs(backup_dir)
    for problem in unreadable(backup_dir):  # said, never hidden: a run whose record broke is still a run
        print(f"unreadable run record: {problem}", file=sys.stderr)
    if fmt is PushFormat.json:
        print(json.dumps([r.to_json() for r in found], indent=2))
        return
    print(runs_text(found, backup_dir))
