"""The self-contained HTML audit report: one file, inline CSS and SVG, nothing fetched from anywhere.

Failures first (with what to do about each), then the pictures a person would rather look at than read: the
topology coloured by status, the device x check grid, the DSCP -> priority -> queue map along a path, required vs
configured headroom per lossless port; passes and skips folded. The parts are built by ``topology``, ``grid``,
``pathmap`` and ``headroom``; the page by ``templates/report/``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined

from xoff.report.grid import device_states, grid
from xoff.report.headroom import headroom_rows
from xoff.report.meta import report_meta
from xoff.report.pathmap import path_map
from xoff.report.people import not_selected_lines, status_label
from xoff.report.rows import remedy, unmodelled
from xoff.report.svg import svg
from xoff.report.topology import topology
from xoff.validate.model import CheckResult, Finding, Severity, Status
from xoff.validate.run import Validation

DRIFT_CHECK = "drift.state"
MAX_FINDINGS = 200  # rows per failing check on the page; the JSON report lists them all
MAX_DRIFT_DEVICES = 100  # devices in the drift section; the rest counted


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("xoff", "data/templates"),  # templates/report/ (see render/jinja.py)
        undefined=StrictUndefined,
        autoescape=True,  # device output and intent names end up in HTML
        trim_blocks=True,
        lstrip_blocks=True,
    )


@dataclass(frozen=True)
class Failed:
    """A failing (or errored) check as the page shows it: its findings, each with its remedy."""

    result: CheckResult
    findings: list[tuple[Finding, str]]
    more: int  # findings not shown


def _order(r: CheckResult) -> int:
    if r.status is Status.FAILURE and r.severity is Severity.ERROR:
        return 0
    return 1 if r.status is Status.ERROR else 2


def failed(validation: Validation) -> list[Failed]:
    """Failures of error severity first, then checks that could not run, then warnings."""
    bad = [r for r in validation.results if r.status in (Status.FAILURE, Status.ERROR)]
    return [
        Failed(r, [(f, remedy(r, f)) for f in r.findings[:MAX_FINDINGS]], max(len(r.findings) - MAX_FINDINGS, 0))
        for r in sorted(bad, key=_order)
    ]


def _failing_ports(validation: Validation) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for r in validation.results:
        if r.status is Status.FAILURE and r.severity is Severity.ERROR:
            for f in r.findings:
                if f.port is not None:
                    out.setdefault((f.device, f.port), f"{r.id}: {f.problem}")
    return out


def _device_colours(validation: Validation) -> dict[str, str]:
    """Device -> worst status: its findings; ``skipped`` for a device a snapshot does not hold (not observed)."""
    states = device_states(validation)
    if validation.judged:  # xoff watch: a device no signal could judge was not read
        seen = {d for per in validation.judged.values() for d, ok in per.items() if ok}
        for name in validation.desired.devices:
            if name not in seen and name not in states:
                states[name] = "skipped"
    snap = validation.snapshot
    if snap is not None:
        for name in validation.desired.devices:
            if name not in snap.observed.devices and name not in states:
                states[name] = "skipped"
    return states


def html_report(
    validation: Validation, plots: Mapping[tuple[str, int], str] | None = None, command: str = "validate"
) -> str:
    """The page; ``plots``: (check id, finding index) -> inline SVG markup shown under that finding (xoff watch's
    time series, built with ElementTree so every text is escaped); ``command`` names the page."""
    drift: dict[str, list[tuple[str, str | None, str | None]]] = {}
    for r in validation.results:
        if r.id == DRIFT_CHECK:
            for f in r.findings:
                drift.setdefault(f.device, []).append((f.object, f.expected, f.actual))
    states = _device_colours(validation)
    headroom, headroom_more = headroom_rows(validation)
    bad = failed(validation)
    picture = topology(validation.desired, _failing_ports(validation), states)
    return (
        _environment()
        .get_template("report/validate.html.j2")
        .render(
            v=validation,
            meta=report_meta(validation),
            not_selected=not_selected_lines(validation),
            summary=validation.summary(),
            failed=bad,
            failed_findings=sum(len(fc.result.findings) for fc in bad),
            passed=[r for r in validation.results if r.status is Status.SUCCESS],
            not_run=[r for r in validation.results if r.status in (Status.SKIPPED, Status.UNSET)],
            label=status_label,
            picture=picture,
            picture_svg=svg(picture),  # printed |safe: ElementTree escaped every text and attribute
            grid=grid(validation),
            path=path_map(validation, {d for d, s in states.items() if s in ("failing", "warning")}),
            headroom=headroom,
            headroom_more=headroom_more,
            drift=dict(sorted(drift.items())[:MAX_DRIFT_DEVICES]),
            drift_more=max(len(drift) - MAX_DRIFT_DEVICES, 0),
            unmodelled=unmodelled(validation),
            plots=plots or {},
            command=command,
        )
    )
