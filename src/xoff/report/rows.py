"""Validation results as flat rows: one per finding, and one per check without findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from xoff.validate.model import CheckResult, Finding
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


def remap_line(validation: Validation) -> str:
    """The address map the comparison was made under (a lab's --remap), for the report's head."""
    return "addresses compared under the lab's --remap (the intent's mapped the same way): " + ", ".join(
        validation.address_map
    )


FEW = 10  # names shown per device where a report lists the first few


def unmodelled(validation: Validation) -> dict[str, dict[str, int]]:
    """Device -> what it showed that xoff does not model (name -> how many times), kept in the snapshot."""
    snap = validation.snapshot
    return {d: dict(sorted(n.items())) for d, n in sorted(snap.unmodelled.items())} if snap is not None else {}


def unmodelled_lines(validation: Validation, few: int = FEW) -> list[str]:
    """One line per device: ``leaf1: 12 unmodelled name(s): FEATURE (14), PORT.fec (32), ... 2 more``."""
    lines = []
    for device, names in unmodelled(validation).items():
        shown = ", ".join(f"{name} ({count})" for name, count in list(names.items())[:few])
        more = f", ... {len(names) - few} more" if len(names) > few else ""
        lines.append(f"{device}: {len(names)} unmodelled name(s): {shown}{more}")
    return lines


def remedy(result: CheckResult, finding: Finding) -> str:
    """What to do about one finding: the check's (or the finding's) hint, the value wanted and the value found, and
    the end to fix (the device and port the finding is on)."""
    parts = [result.hint_for(finding) or f"see {result.id} in docs/checks.md"]
    if finding.expected is not None or finding.actual is not None:
        parts.append(
            f"want {finding.expected if finding.expected is not None else 'nothing'}, found "
            f"{finding.actual if finding.actual is not None else 'nothing'}"
        )
    where = finding.device + (f" {finding.port}" if finding.port else "")
    where += f" priority {finding.priority}" if finding.priority is not None else ""
    parts.append(f"fix at {where}")
    return "; ".join(parts)
