"""The scale benchmark still runs (tiny size, one run); its numbers live in bench/results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "plan_scale.py"


def test_plan_scale_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    r = subprocess.run(
        [sys.executable, str(BENCH), "--hosts", "64", "--runs", "1", "--phases", "plan", "--record", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = out.read_text()
    assert "64 hosts, 512 GPUs" in report and "| plan:" in report
