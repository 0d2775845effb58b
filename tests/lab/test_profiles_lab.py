"""lab-mini under the pfc-only and ecn-only congestion-control profiles, for real: lab up, push, validate against
the running emulators and NIC shims is clean; then one hop of the pfc-only fabric left marking ECN on its lossless
queue (seeded through the switch's own CLI) fails lossless.pfc_only_no_ecn on that hop alone."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.labs import cli_lab, labs_root, xoff_cli
from tests.support.profiles import lab_mini_with
from xoff.lab.faults.reach import Lab

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    with labs_root("xoff-profile-labs-") as path:
        yield path


def _validate(root: Path, intent: Path, lab: str) -> dict[str, Any]:
    r = xoff_cli(root, "validate", str(intent), "--lab", lab, "--format", "json")
    assert r.stdout, r.stderr
    doc: dict[str, Any] = json.loads(r.stdout)
    return doc


@pytest.mark.parametrize("profile", ["pfc-only", "ecn-only"])
def test_profile_is_clean_after_a_push(root: Path, profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    intent = lab_mini_with(root, profile)
    lab = f"pr{os.getpid()}{profile[0]}"
    with cli_lab(root, intent, lab) as up:
        assert up.returncode == 0, up.stdout + up.stderr
        push = xoff_cli(root, "push", str(intent), "--lab", lab)
        assert push.returncode == 0, push.stdout + push.stderr
        doc = _validate(root, intent, lab)
        bad = [(r["check"], r["device"], r["message"]) for r in doc["results"] if r["status"] in ("failure", "error")]
        odd = [
            (r["check"], r["status"], r["device"], r["message"])
            for r in doc["results"]
            if r["status"] not in ("success", "skipped")
        ]
        assert doc["ok"] is True and bad == [], odd
        status = {r["check"]: r["status"] for r in doc["results"]}
        mine = ("lossless.pfc_only_no_ecn",) if profile == "pfc-only" else ("lossless.ecn_only_no_pfc",)
        assert {c: status[c] for c in (*mine, "lossless.nic_dcqcn")} == dict.fromkeys(
            (*mine, "lossless.nic_dcqcn"), "success"
        )
        if profile == "pfc-only":
            _one_hop_still_marking(root, intent, lab, monkeypatch)


def _one_hop_still_marking(root: Path, intent: Path, lab: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """sleaf1 left marking ECN on its lossless traffic class 4 at 100/400 KB, under the PFC trigger (as a
    dcqcn-era NVUE config would): seeded through NVUE, caught on that hop alone."""
    monkeypatch.setenv("XOFF_LAB_DIR", str(root))
    tc = "nv set qos congestion-control default-global traffic-class 4"
    Lab(lab).run(
        "sleaf1", f"{tc} min-threshold 100000 && {tc} max-threshold 400000 && {tc} ecn enable && nv config apply -y"
    )
    doc = _validate(root, intent, lab)
    found = [r for r in doc["results"] if r["check"] == "lossless.pfc_only_no_ecn" and r["status"] == "failure"]
    assert [(r["device"], r["object"], r["actual"]) for r in found] == [
        ("sleaf1", "queue 4", "ECN 100000/400000 bytes")
    ]
