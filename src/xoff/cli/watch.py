"""``xoff watch INTENT``: the fabric's counters over time, judged as the signals of a lossless fabric in trouble.

From a recording (``--replay FILE``), a lab (``--lab NAME``) or the real devices (``--live``): exactly one, else
exit 2 and nothing is contacted. ``--once`` reads one window (at least two rounds), reports and exits; without it
(``--lab``/``--live``) the rounds go on (a line per round on stderr) until Ctrl-C, the signals judge the window after
every round and each finding prints one line on stdout when it starts and one when it clears (``--format json``:
one JSON object per line, and the final report as one more line), then the report of the last window. Exit status
(``xoff.exitcodes``): 0 no finding, 1 findings (or one that fired during the run, or a signal that could not run),
2 bad input, 4 nothing could be read, 130 ``--once`` interrupted (after the report); Ctrl-C ending continuous mode
gives the run's status (1 if anything fired, else 0).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xoff.cli.output import exit_bad_input, show_report
from xoff.errors import InputError
from xoff.exitcodes import ExitCode

if TYPE_CHECKING:
    from rich.console import RenderableType

    from xoff.watch.live import Change
    from xoff.watch.report import WatchReport
    from xoff.watch.sample import Sample
    from xoff.watch.window import Window


class WatchFormat(StrEnum):
    text = "text"
    json = "json"
    junit = "junit"
    html = "html"


def render(report: WatchReport, fmt: WatchFormat) -> str | None:
    """The report text, or None for ``text`` (printed with rich)."""
    from xoff.watch import report as reports

    if fmt is WatchFormat.json:
        return reports.json_report(report)
    if fmt is WatchFormat.junit:
        return reports.junit_report(report)
    if fmt is WatchFormat.html:
        return reports.html_report(report)
    return None


def _round_line(samples: Sequence[Sample], window: Window) -> None:
    failed = sum(1 for s in samples if s.error is not None)
    print(f"round {window.rounds}: {len(samples) - failed} read, {failed} failed", file=sys.stderr)


def change_line(fmt: WatchFormat) -> Callable[[Change], None]:
    """Continuous mode's stream on stdout: a finding's start and clear, JSON Lines for ``json``, else text."""

    def emit(change: Change) -> None:
        print(change.as_json() if fmt is WatchFormat.json else change.as_text(), flush=True)

    return emit


def _show(report: WatchReport, fmt: WatchFormat, output: Path | None, verbose: bool, lines: bool = False) -> None:
    """The report; ``lines``: after a JSON Lines stream, the JSON report on one line (the stream stays JSON Lines)."""
    text = render(report, fmt)
    if lines and text is not None and fmt is WatchFormat.json and output is None:
        text = json.dumps(json.loads(text), separators=(",", ":")) + "\n"

    def people() -> RenderableType:
        from xoff.watch.text import text_report

        return text_report(report, verbose)

    show_report(text, people, output, f": {report.findings} finding(s)")


def watch_command(
    intent: Annotated[Path, typer.Argument(help="intent file, or a directory of YAML files")],
    replay: Annotated[
        Path | None, typer.Option("--replay", help="read recorded samples (JSON Lines, --record) instead of devices")
    ] = None,
    lab: Annotated[str | None, typer.Option("--lab", "--name", help="read the running lab of this name")] = None,
    live: Annotated[
        bool, typer.Option("--live", help="read the real devices at the intent's management addresses")
    ] = False,
    interval: Annotated[float, typer.Option("--interval", help="seconds between rounds")] = 10.0,
    window: Annotated[float, typer.Option("--window", help="seconds of samples the signals judge")] = 60.0,
    once: Annotated[bool, typer.Option("--once", help="read one window (at least two rounds), report, exit")] = False,
    source: Annotated[str, typer.Option("--source", help="lab and live: ssh (gnmi where available)")] = "ssh",
    record: Annotated[Path | None, typer.Option("--record", help="also write every sample read (JSON Lines)")] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option("--limit", help="read and judge only these: device names or globs, roles, groups (as push)"),
    ] = None,
    threshold: Annotated[
        list[str] | None, typer.Option("--threshold", help="NAME=VALUE: override a threshold (docs/watch.md)")
    ] = None,
    fmt: Annotated[WatchFormat, typer.Option("--format", "-f", help="text | json | junit | html")] = WatchFormat.text,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file")] = None,
    secrets: Annotated[Path | None, typer.Option("--secrets", help="live: 0600 secrets file (else XOFF_* env)")] = None,
    known_hosts: Annotated[Path | None, typer.Option("--known-hosts", help="live: the only host keys trusted")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="devices read at once")] = 16,
    timeout: Annotated[float, typer.Option("--timeout", min=1.0, help="seconds per connect and command")] = 20.0,
    listen: Annotated[
        str | None, typer.Option("--listen", help="HOST:PORT: serve the latest readings to Prometheus (/metrics)")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="text: every finding, not the first 20")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no line per round on stderr")] = False,
) -> None:
    """Watch the fabric's counters: pause storms, slow drains, lossless drops, ECN, headroom, FEC, optics, NIC
    discards, GPU stragglers."""
    from xoff import api

    options = api.WatchOptions(
        interval_s=interval,
        window_s=window,
        once=once,
        replay=replay,
        lab=lab,
        live=live,
        source=source,
        record=record,
        limit=tuple(limit or ()),
        thresholds=tuple(threshold or ()),
        secrets=secrets,
        known_hosts=known_hosts,
        workers=workers,
        timeout_s=timeout,
        listen=listen,
    )
    continuous = not (once or replay)
    try:
        report = api.watch(
            intent,
            options,
            hooks=(_round_line,) if continuous and not quiet else (),
            changes=change_line(fmt) if continuous else None,
        )
    except InputError as exc:
        exit_bad_input(exc)
    _show(report, fmt, output, verbose, lines=continuous)
    code = report.exit_code()
    # Ctrl-C is how continuous mode ends: its status is the run's (1 if anything fired); --once cut short is 130
    stopped = report.interrupted and not continuous and code is not ExitCode.NOT_COLLECTED
    raise typer.Exit(ExitCode.INTERRUPTED if stopped else code)


def app() -> typer.Typer:
    """A stand-alone app (for tests and ``python -m``); xoff.cli registers ``watch_command`` by name."""
    standalone = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    standalone.command("watch")(watch_command)
    return standalone


if __name__ == "__main__":  # python -m xoff.cli.watch INTENT ... (the same as xoff watch)
    app()()
