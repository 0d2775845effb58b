"""bench/host_push.py still runs: one run of this checkout's tree, an 8-NIC host pushed from factory in
three SSH exec round trips (read, change, verify), then again with nothing to change in one."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "host_push.py"


# marked `lab` by its directory (tests/conftest.py)
def test_host_push_bench_runs_once() -> None:
    argv = [sys.executable, str(BENCH), "--tree", f"this={ROOT / 'src'}", "--runs", "1"]
    run = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| this \| (first|again) \|.*$", run.stdout, re.M)}
    assert set(rows) == {"first", "again"}, run.stdout
    first = [c.strip() for c in rows["first"].split("|")]
    again = [c.strip() for c in rows["again"].split("|")]
    # columns: tree, push, changes, device s, connect, read, apply, verify, round trips, ...
    assert int(first[3]) > 50 and first[9] == "3", rows["first"]
    assert (again[3], again[7], again[9]) == ("0", "-", "1"), rows["again"]
