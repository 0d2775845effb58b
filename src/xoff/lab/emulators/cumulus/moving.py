"""Moving counters for the Cumulus emulator: what NVUE shows for ``counters.json`` at the moment of the show.

Each value of the hook file may be a number (a total that no longer changes), ``{"total": N, "per_second": R,
"since": T}`` (a counter growing R a second from N at Unix time T: shown as ``floor(N + R * max(0, now - T))``) or
``{"value": V}`` (a gauge: a watermark, a temperature). ``read_counters`` is what the show commands print from,
and what the lab's gNMI server reads for Cumulus.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

_GROWING = {"total", "per_second", "since"}


def value_at(item: Any, now: float) -> Any:
    if isinstance(item, dict) and set(item) == _GROWING:
        grown = item["per_second"] * max(0.0, now - item["since"])
        return math.floor(item["total"] + grown)
    if isinstance(item, dict) and set(item) == {"value"}:
        return item["value"]
    if isinstance(item, dict):
        return {name: value_at(inner, now) for name, inner in item.items()}
    if isinstance(item, list):
        return [value_at(inner, now) for inner in item]
    return item


def read_counters(path: Path, now: float | None = None) -> dict[str, Any]:
    """``counters.json`` at ``path`` as NVUE shows it at ``now`` (wall clock when not given); {} with no file."""
    if not path.is_file():
        return {}
    shown: dict[str, Any] = value_at(json.loads(path.read_text(encoding="utf-8")), now or time.time())
    return shown
