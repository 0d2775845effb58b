"""``xoff validate INTENT``: is the fabric what we meant, and is it safe to run lossless?

Offline (the intent alone), on a saved snapshot, on a lab, or live against the intent's own management
addresses (collect first): ``xoff.api.validate``, then the report. The mode is always explicit: with none
of ``--offline``, ``--snapshot``, ``--lab``, ``--live`` nothing is contacted and the exit is 2 (real
devices are never reached by default). Exit status (``xoff.exitcodes``): 0 clean (warnings allowed), 1 findings, 2 bad input (one
located line per problem), 4 could not collect.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xoff.cli.output import exit_bad_input, show_report
from xoff.errors import InputError
from xoff.exitcodes import ExitCode

if TYPE_CHECKING:
    from rich.console import RenderableType

    from xoff.desired.models import FabricState
    from xoff.validate.model import CheckResult
    from xoff.validate.run import Validation


class ReportFormat(StrEnum):
    text = "text"
    json = "json"
    junit = "junit"
    markdown = "markdown"
    html = "html"


def render(validation: Validation, fmt: ReportFormat) -> str | None:
    """The report text, or None for ``text`` (printed with rich). Only the asked format's module is imported: the
    HTML report's template engine and the people's tables are a tenth of a JSON run's imports."""
    if fmt is ReportFormat.json:
        from xoff.report.machine import json_report

        return json_report(validation)
    if fmt is ReportFormat.junit:
        from xoff.report.machine import junit_report

        return junit_report(validation)
    if fmt is ReportFormat.markdown:
        from xoff.report.people import markdown_report

        return markdown_report(validation)
    if fmt is ReportFormat.html:
        from xoff.report.html import html_report

        return html_report(validation)
    return None


def validate_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    offline: Annotated[bool, typer.Option("--offline", help="judge the intent alone (no device contacted)")] = False,
    snapshot: Annotated[Path | None, typer.Option("--snapshot", help="judge a snapshot file (xoff collect -o)")] = None,
    lab: Annotated[
        str | None, typer.Option("--lab", "--name", help="collect the running lab of this name, then judge")
    ] = None,
    live: Annotated[
        bool, typer.Option("--live", help="collect the real devices at the intent's management addresses, then judge")
    ] = False,
    catalog: Annotated[
        str, typer.Option("--catalog", help="default | pre-change | audit | a catalog file (validators/*.yaml)")
    ] = "default",
    limit: Annotated[
        list[str] | None,
        typer.Option("--limit", help="judge (and contact) only these: device names or globs, roles, groups (as push)"),
    ] = None,
    checks: Annotated[
        list[str] | None, typer.Option("--checks", help="run only these checks: ids or globs (lossless.*)")
    ] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option("--tags", help="run only checks with these tags (lossless, buffers, drift, deadlock, hosts, ...)"),
    ] = None,
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="text | json | junit | markdown | html")
    ] = ReportFormat.text,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file")] = None,
    save_snapshot: Annotated[Path | None, typer.Option("--save-snapshot", help="live: also write the snapshot")] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="report only findings new since this accepted snapshot (its findings known)"),
    ] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="live: 0600 secrets file (else XOFF_* env)")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="live: the only host keys trusted")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="live: devices read at once")] = 20,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="live: seconds per connect and command")] = 20.0,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="text: every finding, not the first 20 per check")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:
    """Validate the fabric against the intent and the lossless rules: offline, on a snapshot, or live."""
    from xoff.modes import mode_problem

    problem = mode_problem(offline, snapshot, lab, live)
    if problem is not None:  # said before anything is loaded (``xoff.api`` says the same to a library caller)
        print(problem, file=sys.stderr)
        raise typer.Exit(ExitCode.BAD_INPUT)
    from xoff import api
    from xoff.cli.edge import keep
    from xoff.progress.display import progress_display

    options = api.ValidateOptions(
        offline=offline,
        snapshot=snapshot,
        lab=lab,
        live=live,
        catalog=catalog,
        limit=tuple(limit or ()),
        checks=tuple(checks or ()),
        tags=tuple(tags or ()),
        save_snapshot=save_snapshot,
        secrets=secrets,
        known_hosts=known_hosts,
        workers=workers,
        timeout_s=timeout,
        baseline=baseline,
    )
    try:
        with progress_display(quiet) as progress:
            outcome = api.validate(intent, options, progress)
    except InputError as exc:
        exit_bad_input(exc)
    keep(outcome)  # to the process's end when the console script runs us: not freed object by object (cli.edge)
    result = outcome.validation

    def people() -> RenderableType:
        from xoff.report.people import text_report

        return text_report(result, verbose)

    counts = ", ".join(f"{n} {s}" for s, n in result.summary().items() if n)
    show_report(render(result, fmt), people, output, f": {counts}")
    if outcome.not_collected:
        raise typer.Exit(ExitCode.NOT_COLLECTED)
    raise typer.Exit(ExitCode.FINDINGS if result.blocking else ExitCode.OK)


def pre_change_results(state: FabricState) -> list[CheckResult]:
    """Kept for callers of the old place: ``xoff.validate.run.pre_change_results`` (``xoff.api.check``)."""
    from xoff.validate.run import pre_change_results as results

    return results(state)


def app() -> typer.Typer:
    """A stand-alone app (for tests and ``python -m``); xoff.cli registers ``validate_command`` itself."""
    standalone = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    standalone.command("validate")(validate_command)
    return standalone


if __name__ == "__main__":  # python -m xoff.cli.validate INTENT ... (the same as xoff validate)
    app()()
