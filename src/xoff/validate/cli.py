"""``xoff validate INTENT``: is the fabric what we meant, and is it safe to run lossless?

Offline (the intent alone), on a saved snapshot, or live (collect first). Exit status: 0 clean
(warnings allowed), 1 findings, 2 bad input (one located line per problem), 4 could not collect.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from xoff.contracts.observed import Snapshot
from xoff.desired.models import FabricState
from xoff.errors import InputError, Problem
from xoff.validate.catalog import Catalog, load_catalog
from xoff.validate.model import CheckResult
from xoff.validate.run import Source, Validation, load_snapshot, validate

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_NOT_COLLECTED = 0, 1, 2, 4


class ReportFormat(StrEnum):
    text = "text"
    json = "json"
    junit = "junit"
    markdown = "markdown"
    html = "html"


def _fail(problems: list[Problem]) -> typer.Exit:
    for p in InputError(problems).sorted():
        print(str(p), file=sys.stderr)
    return typer.Exit(EXIT_INPUT)


def pre_change_results(state: FabricState) -> list[CheckResult]:
    """The pre-change gate (``xoff check``): the pre-change catalog on the intent alone."""
    catalog = load_catalog("pre-change")
    return validate(state, catalog).results


def _live(
    intent_state: FabricState,
    lab: str | None,
    secrets: Path | None,
    known_hosts: Path | None,
    workers: int,
    timeout: float,
) -> tuple[FabricState, Snapshot]:
    """Collect first (``xoff collect``'s engine); with --lab the lab's own copy of the plan is the desired state."""
    from xoff.collect.cli import infiniband_reader  # noqa: PLC0415 - collect machinery only when live
    from xoff.collect.engine import CollectOptions, collect  # noqa: PLC0415
    from xoff.connect.credentials import load_credentials  # noqa: PLC0415
    from xoff.connect.sources import TargetSource, open_source  # noqa: PLC0415
    from xoff.connect.targets import build_targets  # noqa: PLC0415

    desired = intent_state
    source: TargetSource | None = None
    if lab is not None:
        source = open_source("lab", lab)
        desired = source.fabric  # remapped addresses: the ones that answer, and were pushed
        secrets = secrets or source.secrets_file
        known_hosts = known_hosts or source.known_hosts
    creds = load_credentials(secrets)
    snapshot = collect(
        desired,
        build_targets(desired),
        creds,
        known_hosts,
        CollectOptions(workers=workers, timeout_s=timeout),
        infiniband=infiniband_reader(desired, source),
    )
    return desired, snapshot


def render(validation: Validation, fmt: ReportFormat) -> str | None:
    """The report text, or None for ``text`` (printed with rich)."""
    from xoff.report import html, machine, people  # noqa: PLC0415

    if fmt is ReportFormat.json:
        return machine.json_report(validation)
    if fmt is ReportFormat.junit:
        return machine.junit_report(validation)
    if fmt is ReportFormat.markdown:
        return people.markdown_report(validation)
    if fmt is ReportFormat.html:
        return html.html_report(validation)
    return None


def validate_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    offline: Annotated[bool, typer.Option("--offline", help="judge the intent alone (no device contacted)")] = False,
    snapshot: Annotated[Path | None, typer.Option("--snapshot", help="judge a snapshot file (xoff collect -o)")] = None,
    lab: Annotated[str | None, typer.Option("--lab", help="collect the running lab of this name, then judge")] = None,
    catalog: Annotated[
        str, typer.Option("--catalog", help="default | pre-change | audit | a catalog file (validators/*.yaml)")
    ] = "default",
    fmt: Annotated[
        ReportFormat, typer.Option("--format", "-f", help="text | json | junit | markdown | html")
    ] = ReportFormat.text,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file")] = None,
    save_snapshot: Annotated[Path | None, typer.Option("--save-snapshot", help="live: also write the snapshot")] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="live: 0600 secrets file (else XOFF_* env)")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="live: the only host keys trusted")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="live: devices read at once")] = 20,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="live: seconds per connect and command")] = 20.0,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="text: every finding, not the first 20 per check")
    ] = False,
) -> None:
    """Validate the fabric against the intent and the lossless rules: offline, on a snapshot, or live."""
    from xoff.desired import build_fabric_state  # noqa: PLC0415
    from xoff.intent import load_intent  # noqa: PLC0415

    if sum((offline, snapshot is not None, lab is not None)) > 1:
        raise _fail([Problem(None, "validate", "give one of --offline, --snapshot FILE, --lab NAME (allowed: one)")])
    try:
        cat: Catalog = load_catalog(catalog)
        desired = build_fabric_state(load_intent(intent))
        snap: Snapshot | None = None
        source: Source = "offline"
        if snapshot is not None:
            snap, source = load_snapshot(snapshot, desired.fabric), "snapshot"
        elif not offline:
            desired, snap = _live(desired, lab, secrets, known_hosts, workers, timeout)
            source = "live"
    except InputError as exc:
        raise _fail(exc.problems) from None
    if save_snapshot is not None and snap is not None and source == "live":
        save_snapshot.parent.mkdir(parents=True, exist_ok=True)
        save_snapshot.write_text(snap.model_dump_json(indent=2) + "\n", encoding="utf-8")
    result = validate(desired, cat, snap, source)
    text = render(result, fmt)
    if text is None:
        from xoff.report.people import text_report  # noqa: PLC0415

        if output is not None:
            with output.open("w", encoding="utf-8") as fh:
                Console(file=fh, width=160, soft_wrap=True).print(text_report(result, verbose))
        else:
            Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200).print(text_report(result, verbose))
    elif output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}: {', '.join(f'{n} {s}' for s, n in result.summary().items() if n)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if source == "live" and snap is not None and snap.errors:
        raise typer.Exit(EXIT_NOT_COLLECTED)
    raise typer.Exit(EXIT_FINDINGS if result.blocking else EXIT_OK)


def app() -> typer.Typer:
    """A stand-alone app (for tests and ``python -m``); xoff.cli registers ``validate_command`` itself."""
    standalone = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    standalone.command("validate")(validate_command)
    return standalone


if __name__ == "__main__":  # python -m xoff.validate.cli INTENT ... (the same as xoff validate)
    app()()
