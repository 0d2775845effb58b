# ruff: noqa: PLC0415  (imports inside commands keep `xoff --help` fast: nornir, netmiko and rich load only for a push)
"""``xoff push INTENT`` and ``xoff inventory export``: the command-line edge of push.

Exit status: 0 every device applied (or unchanged, or dry run), 1 some failed (untouched, or rolled
back and verified), 2 bad input or another push holds the fabric's lock (nothing pushed), 3 a
rollback failed or did not verify (a person must look).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from xoff.errors import InputError, Location, Problem

EXIT_INPUT = 2


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
    raise typer.Exit(EXIT_INPUT)


def _bad(where: str, path: str, message: str) -> InputError:
    return InputError([Problem(Location(where, 1, 1), path, message)])


def _fabric(intent: Path, lab: str | None):  # type: ignore[no-untyped-def]
    """The FabricState to push (the lab's remapped one with --lab) and the lab's target source, if any."""
    from xoff.connect.sources import open_source
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    fabric = build_fabric_state(load_intent(intent))
    if lab is None:
        return fabric, None
    conn = open_source("lab", lab)
    if conn.fabric.fabric != fabric.fabric:
        raise _bad("--lab", lab, f"the lab runs fabric {conn.fabric.fabric!r}, not this intent's {fabric.fabric!r}")
    return conn.fabric, conn


def push_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    lab: Annotated[
        str | None, typer.Option("--lab", help="push to this running lab (its addresses, secrets, keys)")
    ] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="0600 secrets file (else environment)")] = None,
    known_hosts: Annotated[
        Path | None, typer.Option("--known-hosts", help="known_hosts file; host keys are always checked")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="back up and show the diff; change nothing")] = False,
    limit: Annotated[list[str] | None, typer.Option("--limit", help="device names, roles, groups (repeatable)")] = None,
    canary: Annotated[int, typer.Option("--canary", help="push N devices first; the rest only if they verify")] = 0,
    batch_size: Annotated[int, typer.Option("--batch-size", help="devices per batch after the canary (0: all)")] = 0,
    max_failures: Annotated[
        int | None, typer.Option("--max-failures", help="start no new batch once this many failed")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="devices in parallel")] = 20,
    timeout: Annotated[float | None, typer.Option("--timeout", help="seconds per SSH operation")] = None,
    engine: Annotated[EngineName, typer.Option("--engine", help="nornir (default) or ansible")] = EngineName.nornir,
    backup_dir: Annotated[Path, typer.Option("--backup-dir", help="backups go to DIR/<run>/<device>")] = Path(
        "backups"
    ),
    fmt: Annotated[PushFormat, typer.Option("--format", "-f", help="text for people, json lines")] = PushFormat.text,
    show_diff: Annotated[
        bool | None,
        typer.Option("--show-diff/--no-show-diff", help="text: print each device's diff (default: with --dry-run)"),
    ] = None,
) -> None:
    """Push the rendered configuration to every targeted device: back up, diff, apply, verify, roll back on failure."""
    from xoff.connect.credentials import load_credentials
    from xoff.connect.targets import build_targets, select
    from xoff.platforms.registry import platforms
    from xoff.push.display import JsonLines, RichDisplay
    from xoff.push.job import PushJob, PushOptions
    from xoff.push.job import engine as engine_for
    from xoff.push.lock import LockedError, fabric_lock, lock_path
    from xoff.render import render_fabric

    try:
        fabric, conn = _fabric(intent, lab)
        targets = select(build_targets(fabric), limit or [])
        for t in targets:
            record = platforms().get(t.platform)
            try:
                if record is None or record.strategy is None:
                    raise KeyError(t.platform)
                record.strategy.load()
            except (KeyError, ImportError):
                raise _bad(
                    "--limit", t.name, f"no push strategy for platform {t.platform!r} yet (leave it out with --limit)"
                ) from None
        creds = load_credentials(secrets or (conn.secrets_file if conn else None))
        missing = [t.name for t in targets if creds.for_device(t.platform, t.kind) is None]
        if missing:
            raise _bad(
                str(secrets or "environment"),
                missing[0],
                "no credentials for this device's kind (allowed: switch, host)",
            )
        hosts_file = known_hosts or (conn.known_hosts if conn else Path.home() / ".ssh" / "known_hosts")
        if not hosts_file.is_file():
            raise _bad("--known-hosts", str(hosts_file), "no such file (host keys are always checked)")
        if engine is EngineName.ansible and importlib.util.find_spec("xoff.push.ansible_engine") is None:
            raise _bad("--engine", "ansible", "the Ansible engine is not installed (allowed: nornir)")
    except InputError as exc:
        _fail(exc)
    desired: dict[str, dict[str, str]] = {}
    for f in render_fabric(fabric, [t.name for t in targets]):
        desired.setdefault(f.device, {})[f.name] = f.content
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    job = PushJob(fabric.fabric, run_id, targets, desired, creds, hosts_file)
    options = PushOptions(dry_run, canary, batch_size, max_failures, workers, timeout, backup_dir)
    console = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
    display = (
        JsonLines()
        if fmt is PushFormat.json
        else RichDisplay(console, len(targets), show_diff=dry_run if show_diff is None else show_diff)
    )
    try:
        with fabric_lock(lock_path(fabric.fabric, conn.lock_dir if conn else None), f"fabric {fabric.fabric}"):
            display.plan(targets, dry_run)
            try:
                summary = engine_for(engine.value)(job, options, display)
            finally:
                display.close()
    except LockedError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT) from None
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
    lab: Annotated[str | None, typer.Option("--lab", help="the running lab's addresses and known_hosts")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="known_hosts file to reference")] = None,
) -> None:
    """Write the inventory files (no credential in any of them)."""
    from xoff.connect.targets import build_targets

    try:
        fabric, conn = _fabric(intent, lab)
    except InputError as exc:
        _fail(exc)
    targets = build_targets(fabric)
    hosts_file = known_hosts or (conn.known_hosts if conn else None)
    if fmt is InventoryFormat.ansible:
        if importlib.util.find_spec("xoff.connect.ansible_inventory") is None:
            print("inventory export: --format ansible is not installed (allowed: nornir)", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        from xoff.connect import ansible_inventory

        ansible_inventory.export_ansible(targets, output)
    else:
        from xoff.connect.nornir_inventory import export_nornir

        export_nornir(targets, output, hosts_file)
    print(f"wrote the {fmt.value} inventory of {len(targets)} devices to {output}/ (no credentials in it)")
