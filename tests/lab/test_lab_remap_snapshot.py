"""The README's order on an intent that needs --remap finds no drift (issue 14: it found drift on every device).

``xoff lab up INTENT --remap`` -> ``xoff push INTENT --lab NAME`` -> ``xoff collect INTENT --lab NAME -o
snap.json`` -> ``xoff validate INTENT --snapshot snap.json``, each as a user runs it (the CLI, in a process
of its own), on tests/fixtures/intents/remap-ten: a site's own 10.x plan, outside 198.18.0.0/15, so every
block moves. The snapshot carries the lab's address map; validate maps the intent by it, finds no drift,
names the map, and judges every check as live validation of the same lab does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.labs import labs_root, torn_down
from tests.support.paths import ROOT

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "remap-ten"
LAB = f"r{os.getpid() % 100000}-remap"
SETTLE_S = 60.0  # BGP and LLDP come up after the underlay


def _xoff(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xoff", *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    # short: FRR's socket paths must fit in sun_path; XOFF_LAB_DIR set in this process too, for the teardown
    with labs_root("xl", parent="/tmp"), torn_down(LAB):
        yield os.environ | {"PYTHONPATH": str(ROOT / "src")}  # this checkout's xoff


def _findings(report: dict[str, Any], check: str) -> list[dict[str, Any]]:
    return [r for r in report["results"] if r["check"] == check and r["status"] == "failure"]


def test_readme_order_on_a_remapped_lab_finds_no_drift(env: dict[str, str], tmp_path: Path) -> None:
    refused = _xoff(env, "lab", "up", str(INTENT), "--name", LAB)
    assert refused.returncode == 2 and "--remap" in refused.stderr, refused.stderr  # 10.x needs --remap
    assert len(refused.stderr.strip().splitlines()) == 1

    up = _xoff(env, "lab", "up", str(INTENT), "--remap", "--name", LAB)
    assert up.returncode == 0, up.stderr
    assert "10.78.0.0/24 -> 198.1" in up.stdout and "10.77.0.0/24 -> 198.1" in up.stdout
    status = _xoff(env, "lab", "status", "--name", LAB, "--wait", "60")
    assert status.returncode == 0, status.stdout + status.stderr

    push = _xoff(env, "push", str(INTENT), "--lab", LAB)
    assert push.returncode == 0, push.stdout[-2000:] + push.stderr[-2000:]

    snap = tmp_path / "snap.json"
    deadline = time.monotonic() + SETTLE_S
    while True:  # collect until BGP is Established everywhere (it settles after the push)
        collect = _xoff(env, "collect", str(INTENT), "--lab", LAB, "-o", str(snap))
        data = json.loads(snap.read_text(encoding="utf-8")) if snap.exists() else {}
        sessions = [s["state"] for v in data.get("bgp_sessions", {}).values() for s in v]
        if (collect.returncode == 0 and sessions and set(sessions) == {"Established"}) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert collect.returncode == 0, collect.stdout + collect.stderr
    assert {a for a, b in data["address_map"] if a != b} == {"10.77.0.0/24", "10.78.0.0/24", "10.78.255.0/24"}

    offline = _xoff(env, "validate", str(INTENT), "--snapshot", str(snap), "--format", "json")
    report = json.loads(offline.stdout)
    assert _findings(report, "drift.state") == [], offline.stdout[-3000:]
    assert sorted(report["address_map"]) == sorted(f"{a} -> {b}" for a, b in data["address_map"] if a != b)
    text = _xoff(env, "validate", str(INTENT), "--snapshot", str(snap))
    assert "addresses compared under the lab's --remap" in text.stdout

    live = _xoff(env, "validate", str(INTENT), "--lab", LAB, "--format", "json")
    live_report = json.loads(live.stdout)
    assert _findings(live_report, "drift.state") == []
    assert live_report["address_map"] == report["address_map"]
    # the snapshot is judged as the live lab is: the same status for every check, the same exit
    assert {r["check"]: r["status"] for r in report["results"]} == {
        r["check"]: r["status"] for r in live_report["results"]
    }
    assert offline.returncode == live.returncode
