"""``xoff push INTENT`` and ``xoff inventory export``: the command-line edge of push.

The work is ``xoff.api.prepare_push`` / ``run_push``. Exit status (``xoff.exitcodes``): 0 every device
applied (or unchanged, or dry run), 1 some failed (untouched, or rolled back and verified), 2 bad input
or another push holds the fabric's lock (nothing pushed), 3 a rollback failed or did not verify (a
person must look).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xoff.cli.collect import ShardBy, ShardByOpt, domain_kind, shard_part
from xoff.cli.output import exit_bad_input, terminal
from xoff.errors import InputError, usage_error

if TYPE_CHECKING:
    from xoff.push.display import JsonLines, RichDisplay


class PushFormat(StrEnum):
    text = "text"
    json = "json"


class EngineName(StrEnum):
    nornir = "nornir"
    ansible = "ansible"


class InventoryFormat(StrEnum):
    nornir = "nornir"
    ansible = "ansible"


class ExportShardBy(StrEnum):  # inventory export --shard-by: the kinds issue 16 names (no rack)
    pod = "pod"
    su = "su"
    plane = "plane"


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
        typer.Option(
            "--timeout-factor",
            help="times every timeout that follows a device's pace, and netmiko's own delays (default 1)",
        ),
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
    shard_by: ShardByOpt = None,
) -> None:
    """Push the rendered configuration to every targeted device: back up, diff, apply, verify, roll back on failure."""
    from xoff import api

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
        shard=shard_part(shard, shard_by),
    )
    try:
        prepared = api.prepare_push(intent, options)
    except InputError as exc:
        exit_bad_input(exc)
    display = push_display(fmt, len(prepared.targets), show_diff=dry_run if show_diff is None else show_diff)
    try:
        summary = api.run_push(prepared, display).summary
    except InputError as exc:  # another push holds the fabric's lock: nothing pushed
        exit_bad_input(exc)
    display.summary(summary)
    raise typer.Exit(summary.exit_status)


def push_display(fmt: PushFormat, targets: int, show_diff: bool, what: str = "push") -> JsonLines | RichDisplay:
    """What push and rollback show: JSON Lines on stdout, or for people the plan, a progress bar and the table."""
    from xoff.push.display import JsonLines, RichDisplay

    if fmt is PushFormat.json:
        return JsonLines()
    return RichDisplay(terminal(), targets, show_diff=show_diff, what=what)


inventory_app = typer.Typer(
    help="Export the inventory built from intent (Nornir SimpleInventory, Ansible).", no_args_is_help=True
)


@inventory_app.command("export")
def export_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    fmt: Annotated[InventoryFormat | None, typer.Option("--format", "-f", help="nornir (default) or ansible")] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="directory to write into")] = Path("out/inventory"),
    lab: Annotated[
        str | None, typer.Option("--lab", "--name", help="the running lab's addresses and known_hosts")
    ] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="known_hosts file to reference")] = None,
    shard_by: Annotated[
        ExportShardBy | None,
        typer.Option(
            "--shard-by", help="one Ansible inventory per failure domain, in an AWX project (docs/scale-out.md)"
        ),
    ] = None,
) -> None:
    """Write the inventory files (no credential in any of them).

    With --shard-by pod|su|plane: an AWX / Ansible Automation Platform project (playbooks, rendered files,
    inventories/<shard>/hosts.yml, execution-environment.yml, the job templates in awx/controller.yml)."""
    from xoff import api

    if shard_by is not None:
        _export_awx(intent, shard_by, fmt, output, lab, known_hosts)
        return
    fmt = fmt or InventoryFormat.nornir
    options = api.InventoryOptions(format=fmt.value, output=output, lab=lab, known_hosts=known_hosts)
    try:
        result = api.export_inventory(intent, options)
    except InputError as exc:
        exit_bad_input(exc)
    print(f"wrote the {fmt.value} inventory of {result.devices} devices to {output}/ (no credentials in it)")


def _export_awx(
    intent: Path,
    shard_by: ExportShardBy,
    fmt: InventoryFormat | None,
    output: Path,
    lab: str | None,
    known_hosts: Path | None,
) -> None:
    from xoff import api

    if fmt is InventoryFormat.nornir:
        exit_bad_input(
            usage_error("--shard-by writes Ansible inventories in an AWX project (allowed: --format ansible, or none)")
        )
    options = api.AwxOptions(shard_by=shard_by.value, output=output, lab=lab, known_hosts=known_hosts)
    try:
        result = api.export_awx(intent, options)
    except InputError as exc:
        exit_bad_input(exc)
    counts = ", ".join(f"{name}: {n}" for name, n in result.shards.items())
    print(
        f"wrote the AWX project of {result.devices} devices in {len(result.shards)}"
        f" shard{'s' if len(result.shards) != 1 else ''} by {shard_by.value}"
        f" ({counts}) to {output}/ (no credentials in it)"
    )
