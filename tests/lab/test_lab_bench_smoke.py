"""bench/lab_updown.py still runs (lab-mini and a 4-switch generated fabric, one run each)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "lab_updown.py"


@pytest.mark.lab
def test_lab_updown_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    argv = [sys.executable, str(BENCH), "--runs", "1", "--spines", "2", "--leaves", "2", "--hosts-per-leaf", "1"]
    run = subprocess.run([*argv, "--record", str(out)], capture_output=True, text=True, check=False, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = out.read_text(encoding="utf-8")
    # processes: 29 daemons + the switches' gNMI server + the hosts' shim server
    assert "| lab-mini | 9 (5 sw, 4 hosts) | 16 | 31 |" in report
    assert "| 4-switch | 6 (4 sw, 2 hosts) | 6 | 23 |" in report
