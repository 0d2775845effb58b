"""docs/watch.md is generated from the signals, thresholds and metric catalogue, and says every one of them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields
from pathlib import Path

from xoff.watch.metrics import METRICS
from xoff.watch.signals import SIGNAL_IDS
from xoff.watch.thresholds import SOURCES, Thresholds


def test_docs_watch_md_is_fresh(root: Path) -> None:
    fresh = subprocess.run(
        [sys.executable, "-m", "xoff.watch.docs"], capture_output=True, text=True, check=True, cwd=root
    ).stdout
    committed = (root / "docs" / "watch.md").read_text(encoding="utf-8")
    assert committed == fresh, "docs/watch.md is stale: run `python -m xoff.watch.docs > docs/watch.md`"
    for name in [*SIGNAL_IDS, *METRICS, *(f.name for f in fields(Thresholds))]:
        assert f"| `{name}` |" in committed
    assert set(SOURCES) == {f.name for f in fields(Thresholds)}
