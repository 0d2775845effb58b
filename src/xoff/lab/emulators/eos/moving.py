"""EOS counters that keep counting: ``counters.json`` values as a ``show`` at one instant prints them.

A counter entry in the hook file is either a plain integer (the total EOS holds) or a running counter
``{"total": N, "per_second": R, "since": T}``: at Unix time ``now`` EOS shows ``floor(N + R * (now - T))`` (and N
before T). A gauge is ``{"value": V}``. ``snapshot`` resolves a whole file; the show commands print from it.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any


def _running(entry: dict[str, Any], now: float) -> int:
    since = float(entry["since"])
    return math.floor(float(entry["total"]) + float(entry["per_second"]) * max(now - since, 0.0))


def resolve(node: Any, now: float) -> Any:
    """Every running counter and gauge of ``node`` replaced by its value at ``now``."""
    if isinstance(node, list):
        return [resolve(item, now) for item in node]
    if not isinstance(node, dict):
        return node
    if sorted(node) == ["per_second", "since", "total"]:
        return _running(node, now)
    if list(node) == ["value"]:
        return node["value"]
    return {key: resolve(item, now) for key, item in node.items()}


def snapshot(path: Path, now: float | None = None) -> Any:
    """The hook file read and resolved at ``now`` (the wall clock by default)."""
    return resolve(json.loads(path.read_text(encoding="utf-8")), time.time() if now is None else now)
