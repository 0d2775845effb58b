"""``validate --baseline SNAP``: report only the findings that are new since an accepted baseline.

The baseline's findings are those of the baseline snapshot validated against the same intent, catalog and selection.
A finding is keyed by its check id, device and subject (its object, port and priority: never its message text, which
carries values that move). A current finding whose key the baseline has is accepted: not reported, counted as still
present; a baseline finding whose key is gone is resolved, and listed. A check whose failures are all accepted reports
success saying how many accepted findings it still has; the exit status judges only the new ones. A check that could not
run (error) is reported as it is: that is never accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xoff.audit.outcome import BaselineOutcome, Resolved
from xoff.validate.model import Finding, Status

if TYPE_CHECKING:
    from xoff.validate.run import Validation

Key = tuple[str, str, str]  # check id, device, subject


def subject(f: Finding) -> str:
    """What a finding is about, without what it says about it."""
    parts = [f.object]
    if f.port is not None and f.port not in f.object:
        parts.append(f"port {f.port}")
    if f.priority is not None:
        parts.append(f"priority {f.priority}")
    return " ".join(parts)


def key(check: str, f: Finding) -> Key:
    return check, f.device, subject(f)


def findings_by_key(validation: Validation) -> dict[Key, tuple[str, Finding]]:
    return {key(r.id, f): (r.id, f) for r in validation.results if r.status is Status.FAILURE for f in r.findings}


def apply_baseline(current: Validation, baseline: Validation, path: str) -> BaselineOutcome:
    """Cut ``current``'s failures down to the findings ``baseline`` does not have; set and return the outcome."""
    accepted = findings_by_key(baseline)
    snap = baseline.snapshot
    outcome = BaselineOutcome(
        snapshot=path,
        collected_at=snap.collected_at if snap is not None else "",
        intent_sha256=snap.intent_sha256 if snap is not None else None,
        accepted=len(accepted),
    )
    seen: set[Key] = set()
    ran = {r.id for r in current.results if r.status in (Status.SUCCESS, Status.FAILURE)}
    observed = set(current.snapshot.observed.devices) if current.snapshot is not None else None
    for result in current.results:
        if result.status is not Status.FAILURE:
            continue
        keys = [key(result.id, f) for f in result.findings]
        seen.update(keys)
        new = [f for f, k in zip(result.findings, keys, strict=True) if k not in accepted]
        kept = len(result.findings) - len(new)
        outcome.still_present += kept
        outcome.new += len(new)
        result.findings = new
        if kept and not new:
            result.status = Status.SUCCESS
        if kept:
            note = f"{kept} accepted finding{'s' if kept != 1 else ''} of the baseline still present (not reported)"
            result.message = f"{result.message}; {note}" if result.message else note
    gone = [(c, f) for k, (c, f) in sorted(accepted.items()) if k not in seen]
    # gone from the report is resolved only where it was judged now: its check ran and its device was read
    judged = [(c, f) for c, f in gone if c in ran and (observed is None or f.device in observed)]
    outcome.resolved = [Resolved(c, f.device, subject(f), str(f)) for c, f in judged]
    outcome.not_judged = len(gone) - len(judged)
    current.baseline = outcome
    return outcome
