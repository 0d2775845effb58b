"""A counter as a read at an instant shows it: the ``counters.json`` value forms.

An integer is a fixed total; ``{"total": N, "per_second": R, "since": T}`` a counter that rises (a read at
``now`` shows ``floor(N + R * (now - T))``, never less than N); ``{"value": V}`` a gauge; ``null`` a value the
switch does not have (not served).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

RATE = frozenset({"total", "per_second", "since"})
GAUGE = frozenset({"value"})


def now_value(value: Any, now: float) -> Any:
    """``value`` resolved at ``now``; containers resolved throughout."""
    if isinstance(value, dict):
        keys = frozenset(value)
        if keys == RATE:
            elapsed = max(0.0, now - float(value["since"]))
            return math.floor(float(value["total"]) + float(value["per_second"]) * elapsed)
        if keys == GAUGE:
            return value["value"]
        return {k: now_value(v, now) for k, v in value.items()}
    if isinstance(value, list):
        return [now_value(v, now) for v in value]
    return value


def load(path: Path, now: float) -> dict[str, Any]:
    """The JSON file at ``path`` resolved at ``now``; {} when there is none."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    resolved = now_value(data, now) if isinstance(data, dict) else {}
    return resolved if isinstance(resolved, dict) else {}
