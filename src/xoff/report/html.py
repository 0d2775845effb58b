"""The self-contained HTML audit report: one file, inline CSS and SVG, nothing fetched from anywhere."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, StrictUndefined

from xoff.report.people import status_label
from xoff.report.rows import unmodelled
from xoff.report.topology import topology
from xoff.validate.model import Severity, Status
from xoff.validate.run import Validation

DRIFT_CHECK = "drift.state"


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("xoff", "data/templates"),  # templates/report/ (see render/jinja.py)
        undefined=StrictUndefined,
        autoescape=True,  # device output and intent names end up in HTML
        trim_blocks=True,
        lstrip_blocks=True,
    )


def html_report(validation: Validation) -> str:
    failing_ports: dict[tuple[str, str], str] = {}
    device_state: dict[str, str] = {}
    for r in validation.results:
        if r.status is not Status.FAILURE:
            continue
        level = "failing" if r.severity is Severity.ERROR else "warning"
        for f in r.findings:
            if device_state.get(f.device) != "failing":
                device_state[f.device] = level
            if f.port is not None and level == "failing":
                failing_ports.setdefault((f.device, f.port), f"{r.id}: {f.problem}")
    drift: dict[str, list[tuple[str, str | None, str | None]]] = {}
    for r in validation.results:
        if r.id == DRIFT_CHECK:
            for f in r.findings:
                drift.setdefault(f.device, []).append((f.object, f.expected, f.actual))
    snap = validation.snapshot
    return (
        _environment()
        .get_template("report/validate.html.j2")
        .render(
            v=validation,
            summary=validation.summary(),
            results=validation.results,
            label=status_label,
            picture=topology(validation.desired, failing_ports, device_state),
            drift=dict(sorted(drift.items())),
            collected_at=snap.collected_at if snap else None,
            unmodelled=unmodelled(validation),
        )
    )
