"""Validation results as flat rows: one per finding, and one per check without findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from xoff.validate.model import CheckResult
from xoff.validate.run import Validation


@dataclass(frozen=True)
class Row:
    check: str
    title: str
    severity: str
    status: str
    device: str | None
    port: str | None
    priority: int | None
    object: str | None
    message: str
    expected: str | None
    actual: str | None
    hint: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def rows_of(result: CheckResult) -> list[Row]:
    base = (result.id, result.title, result.severity.value, result.status.value)
    if not result.findings:
        message = result.message or ("passed" if result.status.value == "success" else result.status.value)
        return [Row(*base, None, None, None, None, message, None, None, None)]
    return [
        Row(*base, f.device, f.port, f.priority, f.object, str(f), f.expected, f.actual, result.hint_for(f))
        for f in result.findings
    ]


def rows(validation: Validation) -> list[Row]:
    return [row for r in validation.results for row in rows_of(r)]


def header(validation: Validation) -> str:
    counts = validation.summary()
    parts = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return f"{validation.fabric}: catalog {validation.catalog}, {validation.source}: {parts}"
