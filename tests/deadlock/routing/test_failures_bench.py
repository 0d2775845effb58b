"""The failure-sweep benchmark still runs (roce-pod and a tiny reference clos); its numbers live in bench/results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "deadlock_failures.py"


def test_deadlock_failures_bench_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    r = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--hosts",
            "32",
            "--naive-sample",
            "3",
            "--workers",
            "1",
            "2",
            "--all-classes",
            "--record",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = out.read_text()
    assert "| roce-pod | bgp | 1 | 16 | 256 |" in report and "| roce-pod | igp | 2 | 16 | 256 |" in report
    assert "| clos3 reference, 32 hosts (1 pods, 256 super-spines) | igp | 2 | 296 | 512 | 8 |" in report
    assert "| roce-pod | bgp | 1 (all classes) | 16 | 256 |" in report
    assert "- machine: " in report and "load average at start" in report and "- measured at: " in report
    assert "forked workers" in report
