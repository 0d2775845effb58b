"""``xoff push INTENT`` and ``xoff inventory export``: the command-line edge of push.

The work is ``xoff.api.prepare_push`` / ``run_push``. Exit status (``xoff.exitcodes``): 0 every device
applied (or unchanged, or dry run), 1 some failed (untouched, or rolled back and verified), 2 bad input
or another push holds the fabric's lock (nothing pushed), 3 a rollback failed or did not verify (a
person must look).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from xoff.cli.collect import ShardBy, domain_kind
from xoff.errors import InputError
from xoff.exitcodes import ExitCode


class PushFormat(StrEnum):
    text = "text"
    json = "json"


class EngineName(StrEnum):
    nornir = "nornir"
    ansible = "ansible"


class InventoryFormat(StrEnum):
    nornir = "nornir"
    ansible = "ansible"


def _fail(exc: InputError) -> NoReturn:
    for p in exc.sorted():
        print(str(p), file=sys.stderr)
    raise typer.Exit(ExitCode.BAD_INPUT)


def push_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    lab: Annotated[
        str | None, typer.Option("--lab", "--name", help="push to this running lab (its addresses, secrets, keys)")
    ] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="0600 secrets file (else environment)")] = None,
    known_hosts: Annotated[
        Path | None, typer.Option("--known-hosts", help="known_hosts file; host keys are always checked")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="back up and show the diff; change nothing")] = False,
    limit: Annotated[list[str] | None, typer.Option("--limit", help="names, globs, roles, groups (repeatable)")] = None,
    canary: Annotated[int, typer.Option("--canary", help="push N devices first; the rest only if they verify")] = 0,
    batch_size: Annotated[int, typer.Option("--batch-size", help="devices per batch after the canary (0: all)")] = 0,
    max_failures: Annotated[
        int | None, typer.Option("--max-failures", help="start no new batch once this many failed")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="devices in parallel")] = 20,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="fixed seconds per SSH operation (default: follow each device's pace)"),
    ] = None,
    timeout_factor: Annotated[
        float,
        typer.Option("--timeout-factor", help="times every timeout that follows a device's pace (default 1)"),
    ] = 1.0,
    engine: Annotated[EngineName, typer.Option("--engine", help="nornir (default) or ansible")] = EngineName.nornir,
    backup_dir: Annotated[Path, typer.Option("--backup-dir", help="backups go to DIR/<run>/<device>")] = Path(
        "backups"
    ),
    fmt: Annotated[PushFormat, typer.Option("--format", "-f", help="text for people, json lines")] = PushFormat.text,
    show_diff: Annotated[
        bool | None,
        typer.Option("--show-diff/--no-show-diff", help="text: print each device's diff (default: with --dry-run)"),
    ] = None,
    canary_by: Annotated[
        ShardBy | None,
        typer.Option("--canary-by", help="the canary is one whole failure domain; batches never mix domains"),
    ] = None,
    shard: Annotated[
        str | None, typer.Option("--shard", help="K/N: push only part K of N (one controller each)")
    ] = None,
    shard_by: Annotated[
        ShardBy | None, typer.Option("--shard-by", help="split by whole failure domains (default: a hash of the name)")
    ] = None,
) -> None:
    """Push the rendered configuration to every targeted device: back up, diff, apply, verify, roll back on failure."""
    from xoff import api
    from xoff.desired.shard import parse_shard
    from xoff.push.display import JsonLines, RichDisplay

    try:
        part = parse_shard(shard, domain_kind(shard_by))
    except InputError as exc:
        _fail(exc)
    options = api.PushOptions(
        lab=lab,
        secrets=secrets,
        known_hosts=known_hosts,
        dry_run=dry_run,
        limit=tuple(limit or ()),
        canary=canary,
        batch_size=batch_size,
        max_failures=max_failures,
        workers=workers,
        timeout_s=timeout,
        timeout_factor=timeout_factor,
        engine=engine.value,
        backup_dir=backup_dir,
        canary_by=domain_kind(canary_by),
        shard=part,
    )
    try:
        prepared = api.prepare_push(intent, options)
    except InputError as exc:
        _fail(exc)
    console = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
    display = (
        JsonLines()
        if fmt is PushFormat.json
        else RichDisplay(console, len(prepared.targets), show_diff=dry_run if show_diff is None else show_diff)
    )
    try:
        summary = api.run_push(prepared, display).summary
    except InputError as exc:  # another push holds the fabric's lock: nothing pushed
        _fail(exc)
    display.summary(summary)
    raise typer.Exit(summary.exit_status)


inventory_app = typer.Typer(
    help="Export the inventory built from intent (Nornir SimpleInventory, Ansible).", no_args_is_help=True
)


@inventory_app.command("export")
def export_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    fmt: Annotated[InventoryFormat, typer.Option("--format", "-f", help="nornir or ansible")] = InventoryFormat.nornir,
    output: Annotated[Path, typer.Option("--output", "-o", help="directory to write into")] = Path("out/inventory"),
    lab: Annotated[
        str | None, typer.Option("--lab", "--name", help="the running lab's addresses and known_hosts")
    ] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="known_hosts file to reference")] = None,
) -> None:
    """Write the inventory files (no credential in any of them)."""
    from xoff import api

    options = api.InventoryOptions(format=fmt.value, output=output, lab=lab, known_hosts=known_hosts)
    try:
        result = api.export_inventory(intent, options)
    except InputError as exc:
        _fail(exc)
    print(f"wrote the {fmt.value} inventory of {result.devices} devices to {output}/ (no credentials in it)")
