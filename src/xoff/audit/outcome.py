"""What ``validate --baseline`` found (``audit/baseline.py`` computes it): its own module, so that
``validate.run``'s ``Validation`` can carry it without importing the code that compares validations."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Resolved:
    """An accepted finding of the baseline that is gone."""

    check: str
    device: str
    subject: str
    finding: str  # as the baseline said it

    def line(self) -> str:
        return f"{self.check}: {self.finding}"


@dataclass
class BaselineOutcome:
    snapshot: str  # the baseline snapshot file
    collected_at: str
    intent_sha256: str | None  # the intent the baseline was collected under (None: not recorded)
    accepted: int  # findings of the baseline
    still_present: int = 0  # current findings the baseline accepted (not reported)
    new: int = 0  # current findings the baseline does not have (reported)
    resolved: list[Resolved] = field(default_factory=list)
    not_judged: int = 0  # accepted findings not reported now because their check or device was not judged

    def lines(self, intent_hash: str | None) -> list[str]:
        """What every report says about the baseline, first line the summary."""
        under = ""
        if self.intent_sha256 is None:
            under = " (its intent not recorded)"
        elif intent_hash is not None and self.intent_sha256 != intent_hash:
            under = f" (collected under another intent, {self.intent_sha256})"
        out = [
            f"baseline {self.snapshot}, collected {self.collected_at}{under}: {self.accepted} accepted findings, "
            f"{self.still_present} still present (not reported), {len(self.resolved)} resolved, {self.new} new"
        ]
        if self.not_judged:
            out.append(
                f"{self.not_judged} accepted finding{'s' if self.not_judged != 1 else ''} not judged now"
                " (check not run or device not read): neither resolved nor still present"
            )
        out += [f"resolved: {r.line()}" for r in self.resolved]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "resolved": [asdict(r) for r in self.resolved]}
