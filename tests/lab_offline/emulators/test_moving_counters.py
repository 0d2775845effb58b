"""The shared contract of counters that move, in each emulator's own reader (three independent oracles): a
plain number is a fixed total, ``{"total", "per_second", "since"}`` shows ``floor(N + R * (now - T))`` (N before
T), ``{"value": V}`` is a gauge; and the SONiC emulator's fec-stats table, fed to xoff's parser, moves between two
reads and has the corpus' shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from xoff.lab.emulators.cumulus import moving as cumulus
from xoff.lab.emulators.eos import moving as eos
from xoff.lab.emulators.sonic import moving as sonic

Reader = Callable[[Path, float], Any]
READERS: dict[str, Reader] = {
    "sonic": sonic.read_counters,
    "eos": eos.snapshot,
    "cumulus": cumulus.read_counters,
}
T = 1_800_000_000.0
CASES = [
    ("fixed total", 1500, T + 60, 1500),
    ("rising", {"total": 100, "per_second": 2.5, "since": T}, T + 10, 125),
    ("floor of a fraction", {"total": 0, "per_second": 0.3, "since": T}, T + 5, 1),
    ("before since: the total", {"total": 7, "per_second": 1000, "since": T}, T - 30, 7),
    ("gauge", {"value": 2.5e-6}, T + 99, 2.5e-6),
    ("a watermark list", [0, 0, 0, {"total": 1024, "per_second": 512, "since": T}], T + 2, [0, 0, 0, 2048]),
    (
        "other objects stay",
        {"status": "operational", "storm_detected": 1},
        T,
        {"status": "operational", "storm_detected": 1},
    ),
]


@pytest.mark.parametrize("nos", sorted(READERS))
@pytest.mark.parametrize(("case", "value", "now", "shown"), CASES, ids=[c[0] for c in CASES])
def test_each_emulator_reads_the_contract(
    nos: str, case: str, value: Any, now: float, shown: Any, tmp_path: Path
) -> None:
    path = tmp_path / "counters.json"
    path.write_text(json.dumps({"t": {"p": value}}))
    assert READERS[nos](path, now) == {"t": {"p": shown}}, case


def test_no_file_is_no_counters(tmp_path: Path) -> None:
    assert sonic.read_counters(tmp_path / "none.json") == {}
    assert cumulus.read_counters(tmp_path / "none.json") == {}
