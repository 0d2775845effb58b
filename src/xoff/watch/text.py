"""The text report of ``xoff watch``: a rich table of findings, then the signals that judged nothing and why."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from xoff.validate.model import Status
from xoff.watch.report import WatchReport

MAX_ROWS = 20  # findings per signal shown; the JSON report lists them all


def _head(report: WatchReport) -> Text:
    w = report.window
    line = (
        f"xoff watch {report.desired.fabric}: {report.source}, {w.rounds} round(s) every {report.interval_s:g} s, "
        f"window {w.seconds:g} s, {len(w.read_ok)}/{len(report.devices)} device(s) read, {report.findings} finding(s)"
        + (" (interrupted: the window so far)" if report.interrupted else "")
    )
    return Text(line, style="bold")


def _findings(report: WatchReport, verbose: bool) -> Table:
    table = Table("signal", "device", "port", "prio", "what", "expected", "actual", "hint", show_lines=False)
    for r in report.results:
        shown = r.findings if verbose else r.findings[:MAX_ROWS]
        for f in shown:
            prio = "" if f.priority is None else str(f.priority)
            hint = r.hint_for(f) or ""
            table.add_row(r.id, f.device, f.port or "", prio, f"{f.object}: {f.problem}", f.expected, f.actual, hint)
        if len(r.findings) > len(shown):
            table.add_row(
                r.id, f"... {len(r.findings) - len(shown)} more (-v or --format json)", "", "", "", "", "", ""
            )
    return table


def text_report(report: WatchReport, verbose: bool = False) -> Group:
    parts: list[Text | Table] = [_head(report)]
    if report.findings:
        parts.append(_findings(report, verbose))
    for r in report.results:
        if r.status is Status.SUCCESS:
            parts.append(Text(f"ok       {r.id}: {r.title}" + (f" ({r.message})" if r.message else "")))
        elif r.status in (Status.SKIPPED, Status.ERROR):
            parts.append(Text(f"{r.status.value:<8} {r.id}: {r.message}", style="yellow"))
    for device, error in report.not_read.items():
        parts.append(Text(f"not read {device}: {error}", style="red"))
    return Group(*parts)
