"""bench/push_scale.py still runs: 18 emulated EOS switches (two switch SSH server processes), one
device pushed alone, then all of them with Nornir and again with nothing to change."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "push_scale.py"


# marked `lab` by its directory (tests/conftest.py)
def test_push_bench_runs_small() -> None:
    argv = [sys.executable, str(BENCH), "--switches", "18", "--workers", "18", "--singles", "1", "--no-ansible"]
    run = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "lab: 2 switch SSH server processes" in run.stderr
    # from factory (the emulator boots as EOS ships: clean-config, bare ports, Management1, no ip
    # routing): every rendered line but hostname and Management1's address, and "- no ip routing"
    assert re.search(r"^single sw01: engine [\d.]+ s \(device [\d.]+ s\), 78 changes$", run.stderr, re.M), run.stderr
    assert "per-device diff sizes 78-78 changes" in run.stdout
    assert re.search(r"^\| Nornir, 18 devices, 18 workers \| [\d.]+ \| [\d.]+ \|$", run.stdout, re.M), run.stdout
