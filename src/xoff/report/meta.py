"""What every report says about itself: the intent it judged (a stable hash), xoff's version, the mode, when,
and the snapshot. One place, so JSON, JUnit, Markdown, text and HTML say the same thing."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from xoff import __version__

if TYPE_CHECKING:
    from xoff.intent.resolved import Intent
    from xoff.validate.run import Validation


def intent_hash(intent: Intent) -> str:
    """sha256 of the loaded intent document as canonical JSON (keys sorted): the same intent gives the same hash
    whatever its file layout, key order, comments or directory; any change of a value changes it."""
    data = intent.document.model_dump(mode="json")
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ReportMeta:
    fabric: str
    intent_hash: str | None  # None: the report was built from a desired state without its intent
    xoff_version: str
    mode: str  # offline | snapshot | live | lab
    generated_at: str  # ISO 8601, UTC
    snapshot: str | None  # the snapshot file judged, or written by this run (--save-snapshot); None: not on disk
    collected_at: str | None  # when the judged state was read

    def line(self) -> str:
        """One line for text and Markdown headers."""
        judged = f", snapshot {self.snapshot}" if self.snapshot else ""
        when = f", collected {self.collected_at}" if self.collected_at else ""
        return (
            f"intent {self.intent_hash or 'hash not known'}, xoff {self.xoff_version}, mode {self.mode}{judged}{when}, "
            f"report {self.generated_at}"
        )


def report_meta(validation: Validation, now: datetime | None = None) -> ReportMeta:
    snap = validation.snapshot
    return ReportMeta(
        fabric=validation.fabric,
        intent_hash=validation.intent_hash,
        xoff_version=__version__,
        mode=validation.mode,
        generated_at=(now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        snapshot=validation.origin,
        collected_at=snap.collected_at if snap is not None else None,
    )
