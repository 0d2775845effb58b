"""The `lab` marker (tests/conftest.py): everything under tests/lab/ carries it without saying so, `-m lab` and
`-m "not lab"` select by it, and where the lab cannot run every lab test is skipped with the reason."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import lab_unavailable
from tests.support.paths import ROOT


def _collect(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: everything deselected
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_directory_marks_and_the_marker_selects() -> None:
    lab_dir_file = "tests/lab/test_lab_bench_smoke.py"  # marks its test explicitly, like any file may
    dir_only = "tests/lab/test_push_bench_smoke.py"  # marked by its directory alone
    offline = "tests/lab_offline/test_lab_cleanup.py"  # three of its tests are marked `lab`, three are not
    everything = _collect(lab_dir_file, dir_only, offline)
    selected = _collect("-m", "lab", lab_dir_file, dir_only, offline)
    deselected = _collect("-m", "not lab", lab_dir_file, dir_only, offline)
    assert sorted(selected + deselected) == sorted(everything)
    assert [t for t in selected if t.startswith(dir_only)] and all(not t.startswith("tests/lab/") for t in deselected)
    assert [t for t in selected if t.startswith(offline)] and [t for t in deselected if t.startswith(offline)]


def test_why_the_lab_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XOFF_TEST_NO_LAB", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert lab_unavailable() == "needs root for network namespaces (run as root, e.g. in CI)"
    monkeypatch.setenv("XOFF_TEST_NO_LAB", "1")
    assert lab_unavailable() == "XOFF_TEST_NO_LAB is set"
