"""Counters that move: the SONiC emulator's reading of ``counters.json`` at a given instant.

A value in the file is a fixed total (an integer, as COUNTERS_DB holds it after the traffic stopped), a counter
that rises ``{"total": N, "per_second": R, "since": T}`` (T in Unix seconds: the switch shows
``floor(N + R * (now - T))``, never less than N), or a gauge ``{"value": V}`` (a watermark, a BER, an optic's
power). ``read_counters`` gives the file with every such value resolved to what a read at ``now`` shows; the show
commands print from it, and the lab's gNMI server reuses it (the same COUNTERS_DB, another way in).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

RATE = frozenset({"total", "per_second", "since"})
GAUGE = frozenset({"value"})


def at(value: Any, now: float) -> Any:
    """``value`` as a read at ``now`` shows it: rising counters and gauges resolved, everything else as is."""
    if isinstance(value, dict):
        keys = frozenset(value)
        if keys == RATE:
            elapsed = max(0.0, now - float(value["since"]))
            return math.floor(float(value["total"]) + float(value["per_second"]) * elapsed)
        if keys == GAUGE:
            return value["value"]
        return {k: at(v, now) for k, v in value.items()}
    if isinstance(value, list):
        return [at(v, now) for v in value]
    return value


def read_counters(path: Path, now: float | None = None) -> dict[str, Any]:
    """The counters file at ``path`` as a read at ``now`` (default: the wall clock) shows it; {} without a file."""
    if not path.exists():
        return {}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return dict(at(data, time.time() if now is None else now))
