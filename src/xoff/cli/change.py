"""``xoff change BASE [HEAD]``: what a change of intent does to the fabric, and whether it is safe.

BASE and HEAD are intent paths or git revisions of the repository in the current directory (``--repo``);
one argument ``A...B`` is a pull request's view (the merge base of A and B against B). ``--intent PATH``
names the intent inside the repository when the sides are revisions (default: the current directory's
path in it). The work is ``xoff.api.change``.

Exit status: 0 no new risk, 1 new failing findings, new PFC deadlock risk or a lossless DSCP made lossy,
2 bad input (a bad path or revision, or a side whose intent does not load: its problems, one per line).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from xoff.cli.output import exit_bad_input, write_file, write_report
from xoff.errors import InputError
from xoff.exitcodes import ExitCode


class ChangeFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    junit = "junit"


def change_command(
    base: Annotated[str, typer.Argument(help="intent path, git revision, or a range A...B (merge base of A, B -> B)")],
    head: Annotated[str | None, typer.Argument(help="intent path or git revision (absent: BASE is a range)")] = None,
    intent: Annotated[
        str | None, typer.Option("--intent", help="the intent's path inside the repository (revisions)")
    ] = None,
    repo: Annotated[Path, typer.Option("--repo", help="the git repository revisions are read from")] = Path(),
    fmt: Annotated[ChangeFormat, typer.Option("--format", "-f", help="text, json, markdown (PR comment), junit")] = (
        ChangeFormat.text
    ),
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="also write JUnit XML to this file")] = None,
    config_diffs: Annotated[
        str, typer.Option("--config-diffs", help="render and diff the first N touched devices, or all")
    ] = "200",
    failures: Annotated[
        int, typer.Option("--failures", help="PFC deadlock: 0 baseline only, 1 also every single link failure")
    ] = 1,
) -> None:
    """What a change of intent (BASE -> HEAD) does to the fabric: per-device semantic and rendered diffs,
    findings added/resolved/kept, PFC deadlock risk before/after, headroom and pool deltas, the rollout plan
    and the blast radius. Exit 0 no new risk, 1 new risk, 2 bad input."""
    from xoff.api.change import ChangeOptions, change
    from xoff.change.markdown import to_markdown
    from xoff.change.text import to_junit, to_text

    if config_diffs != "all" and not config_diffs.isdigit():
        print(f"--config-diffs: {config_diffs!r} is not a count (allowed: 0, 1, ..., or all)", file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT)
    try:
        limit = None if config_diffs == "all" else int(config_diffs)
        options = ChangeOptions(base=base, head=head, intent=intent, repo=repo, failures=failures, config_diffs=limit)
        report = change(options)
    except InputError as exc:
        exit_bad_input(exc)
    render = {
        ChangeFormat.text: to_text,
        ChangeFormat.json: lambda r: r.model_dump_json(indent=2) + "\n",
        ChangeFormat.markdown: to_markdown,
        ChangeFormat.junit: to_junit,
    }[fmt]
    text = render(report)
    write_report(text, output)
    if junit is not None:
        write_file(junit, to_junit(report))
    raise typer.Exit(ExitCode.FINDINGS if report.risky else ExitCode.OK)
