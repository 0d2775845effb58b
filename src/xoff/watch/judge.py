"""What the signals share: the context they judge in, the verdict they build, and the result they give.

A signal judges each device that reported what it reads; a device that reported nothing of it is not judged
(listed in the result's message), and a signal that judged no device is ``skipped`` with the reason, never a success.
Every finding carries the series that triggered it (``Trace``), for the HTML report's plot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xoff.validate.model import CheckResult, Finding, Severity, Status
from xoff.watch.rates import intervals
from xoff.watch.sample import Labels
from xoff.watch.thresholds import DevicePlan, Thresholds
from xoff.watch.window import Point, Window


@dataclass(frozen=True, slots=True)
class Trace:
    """A series as plotted: a counter's per-interval rate or a gauge's values, and the threshold it crossed."""

    label: str
    unit: str
    points: tuple[tuple[float, float], ...]
    threshold: float | None
    low: float | None = None  # a band's lower bound (ECN ratio, optic power)


def rate_trace(label: str, unit: str, points: list[Point], threshold: float | None) -> Trace:
    return Trace(label, unit, tuple((t1, r) for _, t1, r in intervals(points) if r is not None), threshold)


def gauge_trace(label: str, unit: str, points: list[Point], threshold: float | None, low: float | None = None) -> Trace:
    return Trace(label, unit, tuple((t, v) for t, v in points if v is not None), threshold, low)


@dataclass
class Context:
    window: Window
    thresholds: Thresholds
    plans: dict[str, DevicePlan]
    kinds: Mapping[str, str]  # device -> switch | host | ib_switch (from the intent)

    def devices(self, on: str) -> list[str]:
        """The devices of the kinds ``on`` names (``switch``, ``host``, or ``switch, host``)."""
        kinds = set(on.split(", "))
        return sorted(d for d, k in self.kinds.items() if k in kinds)

    def plan(self, device: str) -> DevicePlan:
        return self.plans.get(device, DevicePlan())


def label_int(labels: Labels, name: str) -> int | None:
    value = dict(labels).get(name)
    return int(value) if value is not None and value.isdigit() else None


def label(labels: Labels, name: str) -> str | None:
    return dict(labels).get(name)


@dataclass
class Verdict:
    """Devices judged and findings, as a signal builds them."""

    judged: set[str] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    traces: list[tuple[Trace, ...]] = field(default_factory=list)  # one per finding
    notes: list[str] = field(default_factory=list)

    def find(self, finding: Finding, *traces: Trace) -> None:
        self.judged.add(finding.device)
        self.findings.append(finding)
        self.traces.append(traces)


@dataclass(frozen=True)
class Signal:
    id: str
    title: str
    severity: Severity
    hint: str
    reads: tuple[str, ...]  # the metrics it judges (METRICS names)
    on: str  # the device kinds it judges: switch | host | "switch, host"
    judge: Callable[[Context, Verdict], None]
    rule: str  # one line for docs/watch.md and the report


@dataclass
class Judgement:
    signal: Signal
    result: CheckResult
    considered: tuple[str, ...]  # the devices of its kind the intent has
    judged: frozenset[str]
    traces: list[tuple[Trace, ...]]

    def status_of(self, device: str) -> Status:
        if any(f.device == device for f in self.result.findings):
            return Status.FAILURE
        return Status.SUCCESS if device in self.judged else Status.SKIPPED


def run_signal(signal: Signal, ctx: Context) -> Judgement:
    verdict = Verdict()
    considered = tuple(ctx.devices(signal.on))
    try:
        signal.judge(ctx, verdict)
    except Exception as exc:
        result = CheckResult(
            signal.id, signal.title, signal.severity, Status.ERROR, message=f"{type(exc).__name__}: {exc}"
        )
        return Judgement(signal, result, considered, frozenset(), [])
    result = CheckResult(signal.id, signal.title, signal.severity, hint=signal.hint)
    unjudged = [d for d in considered if d not in verdict.judged]
    reads = ", ".join(signal.reads)
    if verdict.findings:
        result.status, result.findings = Status.FAILURE, verdict.findings
    elif verdict.judged:
        result.status = Status.SUCCESS
    else:
        result.status = Status.SKIPPED
        result.message = f"nothing observed to judge: no {signal.on} reported {reads}"
    if unjudged and verdict.judged:
        shown = ", ".join(unjudged[:10]) + (f", ... {len(unjudged) - 10} more" if len(unjudged) > 10 else "")
        result.message = f"not judged (nothing observed of {reads}): {shown}"
    if verdict.notes:
        result.message = "; ".join(filter(None, [result.message, *verdict.notes]))
    return Judgement(signal, result, considered, frozenset(verdict.judged), verdict.traces)
