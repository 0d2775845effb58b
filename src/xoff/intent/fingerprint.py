"""The intent's fingerprint: one sha256 for what an intent says, the same whatever its file layout.

``intent_sha256(path)`` loads the intent strictly and hashes its document as loaded (defaults, roles and
generators as written, keys sorted, canonical JSON): the same intent gives the same hash whatever its file split,
key order, comments or directory; any change of a value changes it. Snapshots carry it (``Snapshot.intent_sha256``,
set by every collect) and reports show it, so a snapshot and a report can be matched to the intent they were
made under.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xoff.intent.resolved import Intent


def document_sha256(intent: Intent) -> str:
    """``sha256:<hex>`` of a loaded intent's document as canonical JSON."""
    data = intent.document.model_dump(mode="json")
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def intent_sha256(path: Path | str) -> str:
    """Load the intent file or directory at ``path`` strictly and fingerprint it (``IntentError`` if it does not load)."""
    from xoff.intent import load_intent  # noqa: PLC0415 - loading is the caller's cost only when asked

    return document_sha256(load_intent(Path(path)))
