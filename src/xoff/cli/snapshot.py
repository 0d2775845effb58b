"""``xoff snapshot merge A.json B.json ... -o OUT.json``: one snapshot from the shards' (``collect --shard K/N``).

The work is ``xoff.api.snapshot.merge``. Exit status: 0 merged, 2 bad input (a file that is not a snapshot, a
device in two shards, shards of different fabrics or intents: each a located line; nothing written).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from xoff.errors import InputError
from xoff.exitcodes import ExitCode

snapshot_app = typer.Typer(help="Work with snapshot files.", no_args_is_help=True)


@snapshot_app.command("merge")
def merge_command(
    snapshots: Annotated[list[Path], typer.Argument(help="the shard snapshots (two or more)")],
    output: Annotated[Path, typer.Option("--output", "-o", help="the merged snapshot to write (JSON)")],
) -> None:
    """Join shard snapshots into one: per-device data unioned (a device in two is an error), the rest must agree."""
    from xoff.api.snapshot import merge

    try:
        result = merge(snapshots, output)
    except InputError as exc:
        for problem in exc.sorted():
            print(str(problem), file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT) from None
    print(f"merged {len(snapshots)} snapshots: {result.devices} devices -> {output}")
