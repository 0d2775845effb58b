"""``xoff diff SNAP_A SNAP_B``: what changed in the running state between two snapshots (``xoff.api.audit.diff``).

A different intent hash or xoff version between the two collects is said first; then, per section, the observed values
that changed (only fields read on both sides), cabling, BGP sessions, routes, host facts, InfiniBand, devices read on one
side only, and collect errors on either side; counters as rates over the interval (a counter that went down is a reset).
Exit status (``xoff.exitcodes``): 0 no change, 1 changes (counter rates alone are traffic, not a change), 2 bad input,
4 nothing changed but a chosen device was read in neither snapshot (nothing to compare there).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.output import exit_bad_input, write_report
from xoff.errors import InputError
from xoff.exitcodes import ExitCode


class DiffFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


def diff_command(
    snap_a: Annotated[Path, typer.Argument(help="the earlier snapshot (xoff collect -o)")],
    snap_b: Annotated[Path, typer.Argument(help="the later snapshot")],
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="text | json | markdown")] = DiffFormat.text,
    limit: Annotated[
        list[str] | None,
        typer.Option("--limit", help="only these: device names or globs, roles, groups (as push); repeatable"),
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file")] = None,
) -> None:
    """What changed in the running state between two snapshots: values, cabling, BGP, routes, counters as rates."""
    from xoff.api.audit import DiffOptions, diff
    from xoff.audit import render

    try:
        result = diff(snap_a, snap_b, DiffOptions(limit=tuple(limit or ())))
    except InputError as exc:
        exit_bad_input(exc)
    writer = {DiffFormat.text: render.text_report, DiffFormat.json: render.json_report}.get(fmt, render.markdown_report)
    text = writer(result)
    write_report(text, output, f": {len(result.changes)} changes")
    if result.unread:  # nothing to compare on these: never a clean "no change"
        print(f"not compared (read in neither snapshot): {', '.join(result.unread)}", file=sys.stderr)
    if result.changed:
        raise typer.Exit(ExitCode.FINDINGS)
    raise typer.Exit(ExitCode.NOT_COLLECTED if result.unread else ExitCode.OK)
