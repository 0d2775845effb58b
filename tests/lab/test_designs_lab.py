"""The five reference fabrics (examples/designs/) in the lab at their smallest shape-keeping size, for real:
``xoff lab up DESIGN --scale min --remap``, ``xoff push`` of the reduced intent, ``xoff validate --lab`` against the
running emulators and NIC shims with no failure and no error (every skip says why), then ``xoff lab down``.

The five run side by side (one thread each, from one module fixture): each is a few switches pushed over SSH, and the
machine waits on the devices more than it computes."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.labs import labs_root, xoff_cli
from tests.support.paths import ROOT
from xoff.lab import netns

pytestmark = pytest.mark.lab

DESIGNS = sorted((ROOT / "examples" / "designs").glob("*.yaml"))
MAX_SWITCHES, MAX_HOSTS = 10, 4  # 3-tier, 2 pods x 2 planes: 4 leaves + 4 spines + 2 super-spines
# the check that judges each design's congestion-control profile on the running switches: judged, and clean
PROFILE_CHECK = {"meta-pfc-only": "lossless.pfc_only_no_ecn"}  # the others run dcqcn


@dataclass
class Run:
    design: str
    lab: str
    steps: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    validation: dict[str, Any] | None = None
    seconds: float = 0.0
    namespaces_left: list[str] = field(default_factory=list)


def _pipeline(root: Path, design: Path, k: int) -> Run:
    run = Run(design.stem, f"ds{os.getpid()}{k}")
    t0 = time.monotonic()
    reduced = root / run.lab / "scaled" / design.name
    try:
        run.steps["up"] = xoff_cli(root, "lab", "up", str(design), "--name", run.lab, "--remap", "--scale", "min", "-q")
        if run.steps["up"].returncode == 0:
            run.steps["push"] = xoff_cli(root, "push", str(reduced), "--lab", run.lab)
            if run.steps["push"].returncode == 0:
                run.steps["validate"] = xoff_cli(root, "validate", str(reduced), "--lab", run.lab, "--format", "json")
                if run.steps["validate"].stdout:
                    run.validation = json.loads(run.steps["validate"].stdout)
    finally:
        run.steps["down"] = xoff_cli(root, "lab", "down", "--name", run.lab, "-q")
        run.namespaces_left = netns.names(f"xl-{run.lab}-")
        run.seconds = time.monotonic() - t0
    return run


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Run]]:
    with labs_root("xoff-design-labs-") as root:
        with ThreadPoolExecutor(len(DESIGNS)) as pool:
            done = list(pool.map(lambda kd: _pipeline(root, kd[1], kd[0]), enumerate(DESIGNS)))
        yield {r.design: r for r in done}


def _said(run: Run, step: str) -> str:
    done = run.steps.get(step)
    return f"{step}: not run" if done is None else f"{step} exit {done.returncode}:\n{done.stdout[-3000:]}{done.stderr}"


@pytest.mark.parametrize("design", [p.stem for p in DESIGNS])
def test_design_comes_up_clean_after_a_push(runs: dict[str, Run], design: str) -> None:
    run = runs[design]
    up = run.steps["up"]
    assert up.returncode == 0, _said(run, "up")
    sizes = next(line for line in up.stdout.splitlines() if line.startswith("--scale min:"))
    switches, hosts = (int(part.split(" -> ")[1].split()[0]) for part in sizes.split(": ", 1)[1].split(", "))
    assert switches <= MAX_SWITCHES and 2 <= hosts <= MAX_HOSTS, sizes
    assert run.steps["push"].returncode == 0, _said(run, "push")
    doc = run.validation
    assert doc is not None, _said(run, "validate")
    bad = [(r["check"], r["device"], r["message"]) for r in doc["results"] if r["status"] in ("failure", "error")]
    assert bad == [] and doc["ok"] is True
    assert sum(r["status"] == "success" for r in doc["results"]) >= 15  # judged, not merely skipped
    status = {r["check"]: r["status"] for r in doc["results"]}
    assert status[PROFILE_CHECK.get(design, "lossless.ecn_on_lossless_queues")] == "success"
    unexplained = [r["check"] for r in doc["results"] if r["status"] == "skipped" and not r["message"].strip()]
    assert unexplained == []
    assert run.steps["down"].returncode == 0 and run.namespaces_left == [], _said(run, "down")
