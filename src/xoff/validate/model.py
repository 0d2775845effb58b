"""Check results: five statuses (ANTA's), findings with a fixed shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Status(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"  # the check itself could not run: never read as "fine"
    SKIPPED = "skipped"  # does not apply to this fabric, or its input is absent
    UNSET = "unset"  # not run


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """``<device>: <object> - <problem> - Expected: <x> Actual: <y>``.

    ``port`` and ``priority`` name where the fault is when they apply (the object may be a queue or
    the watchdog); ``hint`` says how to fix it (the check's default hint when None).
    """

    device: str
    object: str
    problem: str
    expected: str | None = None
    actual: str | None = None
    port: str | None = None
    priority: int | None = None
    hint: str | None = None

    def __str__(self) -> str:
        text = f"{self.device}: {self.object} - {self.problem}"
        if self.expected is not None or self.actual is not None:
            text += f" - Expected: {self.expected} Actual: {self.actual}"
        return text


@dataclass
class CheckResult:
    id: str
    title: str
    severity: Severity
    status: Status = Status.UNSET
    findings: list[Finding] = field(default_factory=list)
    message: str | None = None  # why it errored or was skipped; else what the check judged (its ``note``)
    hint: str | None = None  # the check's remediation, for findings that carry none

    @property
    def blocking(self) -> bool:
        """Failures of error severity, and checks that could not run, fail a gate; warnings do not."""
        return self.status is Status.ERROR or (self.status is Status.FAILURE and self.severity is Severity.ERROR)

    def hint_for(self, finding: Finding) -> str | None:
        return finding.hint or self.hint
