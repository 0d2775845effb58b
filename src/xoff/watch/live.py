"""Continuous mode: after every round, once the window holds two rounds (a rate needs two reads), the signals judge
the window and a finding that is new (a signal x device x port x priority, not firing in the previous evaluation) is
announced when it starts and again when it clears. A storm the pause counters and the watchdog both show on one
port and priority is one finding here (the first of them, by object, is the one printed), as an operator sees it.

Only the signals run each round (``signals.evaluate`` over the window the loop keeps), never a report: no plots, no
JSON of the series. ``fired`` counts the findings that started during the run, so the final report's exit status
says whether anything fired even when it cleared before Ctrl-C.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from xoff.validate.model import Finding
from xoff.watch.judge import Context
from xoff.watch.sample import Sample
from xoff.watch.signals import evaluate
from xoff.watch.thresholds import DevicePlan, Thresholds
from xoff.watch.window import Window

FindingKey = tuple[str, str, str, int]  # signal id, device, port ("" none), priority (-1 none: a lane, a GPU)
MIN_ROUNDS = 2


@dataclass(frozen=True)
class Change:
    """A finding that started or cleared, at the round that saw it."""

    event: Literal["start", "clear"]
    signal: str
    severity: str
    finding: Finding
    round: int
    at: float | None  # the newest sample's time (Unix seconds)

    def as_json(self) -> str:
        f = self.finding
        doc = {
            "event": self.event,
            "signal": self.signal,
            "severity": self.severity,
            "device": f.device,
            "port": f.port,
            "priority": f.priority,
            "object": f.object,
            "problem": f.problem,
            "expected": f.expected,
            "actual": f.actual,
            "round": self.round,
            "at": self.at,
        }
        return json.dumps(doc, separators=(",", ":"))

    def as_text(self) -> str:
        when = datetime.fromtimestamp(self.at, UTC).strftime("%H:%M:%S") if self.at is not None else "-"
        f = self.finding
        head = f"{when} round {self.round} {self.event.upper():5} {self.signal} {f.device}: {f.object}"
        if self.event == "clear":
            return head
        return f"{head} - {f.problem} - Expected: {f.expected} Actual: {f.actual}"


@dataclass
class LiveJudge:
    """A round hook: judge the window, hand each start and clear to ``emit``."""

    thresholds: Thresholds
    plans: dict[str, DevicePlan]
    kinds: Mapping[str, str]
    emit: Callable[[Change], None]
    firing: dict[FindingKey, tuple[str, Finding]] = field(default_factory=dict)  # key -> severity, finding
    fired: int = 0

    def __call__(self, _samples: Sequence[Sample], window: Window) -> None:
        if window.rounds < MIN_ROUNDS:
            return
        now: dict[FindingKey, tuple[str, Finding]] = {}
        for j in evaluate(Context(window, self.thresholds, self.plans, self.kinds)):
            for f in sorted(j.result.findings, key=lambda f: f.object, reverse=True):  # the first object wins
                key = (j.signal.id, f.device, f.port or "", -1 if f.priority is None else f.priority)
                now[key] = (j.signal.severity.value, f)
        for key in sorted(now.keys() - self.firing.keys()):
            self.fired += 1
            self.emit(Change("start", key[0], now[key][0], now[key][1], window.rounds, window.newest))
        for key in sorted(self.firing.keys() - now.keys()):
            severity, was = self.firing[key]
            self.emit(Change("clear", key[0], severity, was, window.rounds, window.newest))
        self.firing = now
