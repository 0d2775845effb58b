"""``xoff rollback RUN_ID``: restore the backups a push run took, verify, report like push.

The work is ``xoff.api.rollback``. Exit status as push's (``xoff.exitcodes``): 0 every device restored
(or already equal to its backup, or dry run), 1 some failed (untouched, or the restore undone and
verified), 2 bad input (no such run, a run still running, another push holds the lock), 3 a restore
and its undo both failed (a person must look).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.output import exit_bad_input
from xoff.cli.push import EngineName, PushFormat, push_display
from xoff.errors import InputError


def rollback_command(
    run_id: Annotated[str, typer.Argument(help="the run to undo (xoff runs lists them)")],
    backup_dir: Annotated[
        Path, typer.Option("--backup-dir", help="where the run's record and backups are (the rollback's go there too)")
    ] = Path("backups"),
    limit: Annotated[
        list[str] | None, typer.Option("--limit", help="of the run's devices: names, globs, roles, groups")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="back up and show what would change; change nothing")
    ] = False,
    engine: Annotated[EngineName, typer.Option("--engine", help="nornir (default) or ansible")] = EngineName.nornir,
    intent: Annotated[
        Path | None, typer.Option("--intent", help="the intent to reach the devices by (default: the run's)")
    ] = None,
    lab: Annotated[str | None, typer.Option("--lab", "--name", help="the running lab (default: the run's)")] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="0600 secrets file (else environment)")] = None,
    known_hosts: Annotated[
        Path | None, typer.Option("--known-hosts", help="known_hosts file; host keys are always checked")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="devices in parallel")] = 20,
    timeout: Annotated[float | None, typer.Option("--timeout", help="fixed seconds per SSH operation")] = None,
    timeout_factor: Annotated[float, typer.Option("--timeout-factor", help="times every adaptive timeout")] = 1.0,
    fmt: Annotated[PushFormat, typer.Option("--format", "-f", help="text for people, json lines")] = PushFormat.text,
    other_host_died: Annotated[
        bool,
        typer.Option(
            "--other-host-died",
            help="roll back a run still recorded as running on another host, whose controller is gone",
        ),
    ] = False,
) -> None:
    """Restore the backups run RUN_ID took on the devices it changed, verify, report like push."""
    from xoff.api.rollback import RollbackOptions, prepare_rollback, run_rollback
    from xoff.push.display import RichDisplay

    options = RollbackOptions(
        backup_dir=backup_dir,
        limit=tuple(limit or ()),
        dry_run=dry_run,
        engine=engine.value,
        intent=intent,
        lab=lab,
        secrets=secrets,
        known_hosts=known_hosts,
        other_host_died=other_host_died,
        workers=workers,
        timeout_s=timeout,
        timeout_factor=timeout_factor,
    )
    try:
        prepared = prepare_rollback(run_id, options)
    except InputError as exc:
        exit_bad_input(exc)
    display = push_display(fmt, len(prepared.push.targets), dry_run, what=f"rollback of {run_id}")
    for device, why in prepared.skipped.items():
        if isinstance(display, RichDisplay):
            display.console.print(f"{device}: skipped, {why}", markup=False, highlight=False)
        else:
            print(json.dumps({"event": "skipped", "device": device, "message": why}), flush=True)
    try:
        result = run_rollback(prepared, display)
    except InputError as exc:  # another push holds the fabric's lock: nothing restored
        exit_bad_input(exc)
    display.summary(result.summary)
    raise typer.Exit(result.summary.exit_status)
