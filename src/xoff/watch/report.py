"""What ``xoff watch`` reports: the signals' results over the window, through the validate report writers.

The results are ``CheckResult``s (one per signal, id = the signal id), so JSON, JUnit and HTML are the writers of
``xoff.report`` with the watch's own parts added: JSON gains a ``watch`` object (window, rounds, devices not read,
thresholds, and each finding's series), JUnit has one testcase per signal x device, HTML a time-series chart under
each finding.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from xoff.exitcodes import ExitCode
from xoff.report.html import html_report as validate_html
from xoff.report.machine import json_report as validate_json
from xoff.report.machine import junit_report as validate_junit
from xoff.validate.model import CheckResult, Status
from xoff.validate.run import Source, Validation
from xoff.watch.plot import plot_svg

if TYPE_CHECKING:
    from xoff.desired.models import FabricState
    from xoff.watch.judge import Judgement
    from xoff.watch.thresholds import Thresholds
    from xoff.watch.window import Window


@dataclass
class WatchReport:
    desired: FabricState
    judgements: list[Judgement]
    window: Window
    thresholds: Thresholds
    source: str  # ssh | gnmi | file
    interval_s: float
    devices: tuple[str, ...]  # the devices read (the selection)
    intent_hash: str | None = None
    origin: str | None = None  # the replayed file
    lab: str | None = None  # the lab read (the report's mode is then ``lab``)
    interrupted: bool = False
    fired: int = 0  # continuous mode: findings that started during the run (xoff.watch.live), cleared or not
    notes: list[str] = field(default_factory=list)

    @property
    def results(self) -> list[CheckResult]:
        return [j.result for j in self.judgements]

    @property
    def not_read(self) -> dict[str, str]:
        """Devices never read inside the window: their last error, or that nothing came back."""
        out = {d: self.window.errors[d] for d in self.devices if d in self.window.errors}
        for d in self.devices:
            if d not in self.window.read_ok and d not in out:
                out[d] = "no sample in the window"
        return dict(sorted(out.items()))

    @property
    def findings(self) -> int:
        return sum(len(r.findings) for r in self.results)

    def exit_code(self) -> ExitCode:
        """4 when no device could be read, 1 on findings (any severity), a finding that fired during a continuous run
        (even one that cleared since) or a signal that could not run, else 0."""
        if not self.window.read_ok:
            return ExitCode.NOT_COLLECTED
        if self.fired or any(r.status in (Status.FAILURE, Status.ERROR) for r in self.results):
            return ExitCode.FINDINGS
        return ExitCode.OK

    def validation(self) -> Validation:
        fired = [f"{self.fired} finding(s) started during the run"] if self.fired else []
        notes = [*self.notes, *fired, *(f"{d}: not read: {e}" for d, e in self.not_read.items())]
        where: Source = "snapshot" if self.origin is not None else "live"  # a replay judges recorded samples
        v = Validation(self.desired, "watch", where, self.results, notes=notes)
        v.intent_hash, v.origin, v.lab = self.intent_hash, self.origin, self.lab
        v.judged = {j.signal.id: {d: d in j.judged for d in j.considered} for j in self.judgements}
        v.elapsed_s = (self.window.newest or 0.0) - min((p[0][0] for p in self.window.series.values()), default=0.0)
        return v

    def plots(self) -> dict[tuple[str, int], str]:
        return {
            (j.signal.id, i): plot_svg(traces) for j in self.judgements for i, traces in enumerate(j.traces) if traces
        }

    def watch_doc(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "interval_s": self.interval_s,
            "window_s": self.window.seconds,
            "rounds": self.window.rounds,
            "interrupted": self.interrupted,
            "fired": self.fired,
            "devices": list(self.devices),
            "not_read": self.not_read,
            "unmodelled": {d: dict(sorted(n.items())) for d, n in sorted(self.window.unmodelled.items())},
            "thresholds": asdict(self.thresholds),
            "series": {
                j.signal.id: [[{**asdict(t), "points": [list(p) for p in t.points]} for t in ts] for ts in j.traces]
                for j in self.judgements
                if j.traces
            },
        }


def json_report(report: WatchReport) -> str:
    doc = json.loads(validate_json(report.validation()))
    doc["ok"] = report.exit_code() is ExitCode.OK
    doc["watch"] = report.watch_doc()
    return json.dumps(doc, indent=2) + "\n"


def _per_device(j: Judgement, device: str) -> CheckResult:
    r = j.result
    status = r.status if r.status is Status.ERROR else j.status_of(device)
    findings = [f for f in r.findings if f.device == device]
    message = r.message if status is Status.ERROR else None
    if status is Status.SKIPPED:
        message = f"nothing observed of {', '.join(j.signal.reads)} on {device}"
    return CheckResult(r.id, r.title, r.severity, status, findings, message, r.hint)


def junit_report(report: WatchReport) -> str:
    """One testcase per signal x device of the signal's kind (classname the signal id, name the device)."""
    cases = [(j.signal.id, d, _per_device(j, d)) for j in report.judgements for d in j.considered]
    return validate_junit(report.validation(), cases)


def html_report(report: WatchReport) -> str:
    return validate_html(report.validation(), report.plots(), command="watch")
