"""``xoff collect --limit``: the devices read are the ones push's ``--limit`` syntax chooses (names, globs, roles,
groups); the others are not contacted. Shown through ``--from-captures`` (nothing to reach: an empty directory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import INVENTORY, ROOT
from xoff import api

LAB_MINI = INVENTORY / "lab-mini"


def test_api_collect_reads_only_the_limited_devices(tmp_path: Path) -> None:
    options = api.CollectOptions(from_captures=tmp_path, limit=("leaf*", "role_spine"))
    result = api.collect(LAB_MINI, options)
    assert result.targets == 4
    assert sorted(result.snapshot.captures_absent) == ["leaf1", "leaf2", "spine1", "spine2"]


def test_cli_collect_limit_and_a_bad_term(tmp_path: Path) -> None:
    def collect(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "xoff", "collect", str(LAB_MINI), "-o", str(tmp_path / "s.json"), *args]
        return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)

    done = collect("--from-captures", str(tmp_path), "--limit", "gpu[12],spine1")
    assert done.returncode == 4, done.stderr  # no capture of any of them: nothing read is not a complete collect
    assert done.stdout.startswith("collected 0/3 devices in ")
    assert sorted(line.split(":")[0] for line in done.stdout.splitlines()[1:]) == ["gpu1", "gpu2", "spine1"]
    bad = collect("--from-captures", str(tmp_path), "--limit", "gpu9")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("--limit:1:1: gpu9: matches no device (allowed: a device name or glob")
