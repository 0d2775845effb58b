"""What every report says about itself: the intent it judged (a stable hash), xoff's version, the mode, when,
and the snapshot. One place, so JSON, JUnit, Markdown, text and HTML say the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from xoff import __version__
from xoff.intent.fingerprint import document_sha256

if TYPE_CHECKING:
    from xoff.intent.resolved import Intent
    from xoff.validate.run import Validation


def intent_hash(intent: Intent) -> str:
    """``xoff.intent.fingerprint.document_sha256``: the hash snapshots carry too, so the two can be compared."""
    return document_sha256(intent)


@dataclass(frozen=True)
class ReportMeta:
    fabric: str
    intent_hash: str | None  # None: the report was built from a desired state without its intent
    xoff_version: str
    mode: str  # offline | snapshot | live | lab
    generated_at: str  # ISO 8601, UTC
    snapshot: str | None  # the snapshot file judged, or written by this run (--save-snapshot); None: not on disk
    collected_at: str | None  # when the judged state was read
    # the snapshot's own record of the intent it was collected under and of the xoff that read it (None: not
    # recorded, a snapshot older than those fields; both None too when no snapshot was judged)
    snapshot_intent_hash: str | None = None
    snapshot_xoff_version: str | None = None

    @property
    def collected_under(self) -> str | None:
        """What the snapshot says it was collected under, and whether that is the intent judged; None: no snapshot."""
        if self.collected_at is None:
            return None
        version = self.snapshot_xoff_version or "not recorded"
        if self.snapshot_intent_hash is None:
            return f"intent not recorded, xoff {version}"
        same = "the intent judged" if self.snapshot_intent_hash == self.intent_hash else "ANOTHER intent"
        return f"intent {self.snapshot_intent_hash} ({same}), xoff {version}"

    def line(self) -> str:
        """One line for text and Markdown headers."""
        judged = f", snapshot {self.snapshot}" if self.snapshot else ""
        when = f", collected {self.collected_at}" if self.collected_at else ""
        under = f" under {self.collected_under}" if self.collected_under else ""
        return (
            f"intent {self.intent_hash or 'hash not known'}, xoff {self.xoff_version}, mode {self.mode}{judged}"
            f"{when}{under}, report {self.generated_at}"
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
        snapshot_intent_hash=snap.intent_sha256 if snap is not None else None,
        snapshot_xoff_version=snap.xoff_version if snap is not None else None,
    )
