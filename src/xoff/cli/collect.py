"""``xoff collect INTENT -o SNAPSHOT``: read the running state of every device into a snapshot file.

``--from-captures DIR`` reads saved output (``DIR/<device>/<slug>.txt``, docs/captures.md) instead of connecting: a
device or command without a capture is not observed, not an error. The summary names, per device, the captures
that were absent and how many names it showed that xoff does not model (the first few).

The work is ``xoff.api.collect``. Exit status (``xoff.exitcodes``): 0 every device read, 2 bad input
(nothing contacted), 4 could not collect (some device unreachable, refused, timed out, or gave output
that could not be parsed; the snapshot is still written, with those errors in it).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from xoff.cli.output import exit_bad_input
from xoff.desired.domains import DomainKind
from xoff.errors import InputError
from xoff.exitcodes import ExitCode

if TYPE_CHECKING:
    from xoff.contracts.observed import Snapshot
    from xoff.desired.shard import Shard


# the failure domains --shard-by and push's --canary-by group by (xoff.desired.domains.DomainKind)
ShardBy = StrEnum("ShardBy", ["pod", "su", "plane", "rack"])
ShardByOpt = Annotated[
    ShardBy | None, typer.Option("--shard-by", help="split by whole failure domains (default: a hash of the name)")
]


def domain_kind(choice: ShardBy | None) -> DomainKind | None:
    """The option's value as a DomainKind."""
    kinds: dict[str, DomainKind] = {k: k for k in get_args(DomainKind)}
    return None if choice is None else kinds[choice.value]


def shard_part(shard: str | None, shard_by: ShardBy | None) -> Shard | None:
    """``--shard K/N`` (split ``--shard-by`` domains) as the part this controller works on; bad: exit 2."""
    from xoff.desired.shard import parse_shard

    try:
        return parse_shard(shard, domain_kind(shard_by))
    except InputError as exc:
        exit_bad_input(exc)


def collect_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    output: Annotated[Path, typer.Option("--output", "-o", help="snapshot file to write (JSON)")],
    lab: Annotated[str | None, typer.Option("--lab", "--name", help="collect the running lab of this name")] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="0600 secrets file (else XOFF_* env)")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="the only host keys trusted")] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option("--limit", help="only these: device names or globs, roles, groups (as push); repeatable"),
    ] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="devices read at once")] = 20,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="seconds per connect and command")] = 20.0,
    from_captures: Annotated[
        Path | None,
        typer.Option(
            "--from-captures",
            help="read DIR/<device>/<slug>.txt (saved command output, docs/captures.md) instead of connecting",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
    shard: Annotated[
        str | None,
        typer.Option("--shard", help="K/N: read only part K of N (one controller each); join with snapshot merge"),
    ] = None,
    shard_by: ShardByOpt = None,
) -> None:
    """Read every device's running state (FabricState + LLDP, BGP, counters, host facts) into SNAPSHOT."""
    from xoff import api
    from xoff.progress.display import progress_display

    options = api.CollectOptions(
        lab=lab,
        secrets=secrets,
        known_hosts=known_hosts,
        limit=tuple(limit or ()),
        workers=workers,
        timeout_s=timeout,
        output=output,
        from_captures=from_captures,
        shard=shard_part(shard, shard_by),
    )
    try:
        with progress_display(quiet) as progress:
            result = api.collect(intent, options, progress)
    except InputError as exc:
        exit_bad_input(exc)
    _summary(result.snapshot, result.targets, result.elapsed_s, output, from_captures)
    raise typer.Exit(ExitCode.OK if result.complete else ExitCode.NOT_COLLECTED)


def _summary(snapshot: Snapshot, targets: int, elapsed: float, output: Path, captures: Path | None) -> None:
    from xoff.collect.engine import raw_dir_for

    read = len(snapshot.observed.devices)
    where = f"captures: {captures}" if captures is not None else f"raw: {raw_dir_for(output)}"
    print(f"collected {read}/{targets} devices in {elapsed:.2f} s -> {output} ({where})")
    for device, commands in snapshot.captures_absent.items():
        print(f"{device}: no capture of {len(commands)} command(s), not observed: {_first(commands)}")
    for device, names in snapshot.unmodelled.items():
        print(f"{device}: {len(names)} unmodelled name(s), kept in the snapshot: {_first(sorted(names))}")
    for error in snapshot.errors:
        where = f" [{error.command}]" if error.command else ""
        print(f"{error.device}{where}: {error.kind}: {error.message}", file=sys.stderr)


def _first(names: list[str], few: int = 5) -> str:
    """The first few names, and how many more."""
    text = ", ".join(names[:few])
    return text + (f", ... {len(names) - few} more" if len(names) > few else "")
