"""``xoff watch`` end to end (issue 18), through the CLI as a user runs it, against a running lab-mini: with the
``pause-storm`` fault seeded on the SONiC leaf, ``xoff watch INTENT --lab NAME --once --format json`` reports
``watch.pause_storm`` on that device, port and priority and no other finding; after the undo, no finding at all;
the slow drains seeded on the EOS and Cumulus switches are reported as ``watch.slow_drain`` on theirs. Over gNMI
(SONiC's and Cumulus' gNMI servers, SSH for the rest in the same rounds) and over SSH, one lab bring-up.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff.lab.faults import FAULTS, Lab

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"wc{os.getpid() % 100000}"
STORM = FAULTS["pause-storm"]


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    with running_lab(INTENT, LAB, prefix="xwc-"):
        yield Lab(LAB)


def _watch(source: str, window_s: int = 6, interval_s: int = 1) -> tuple[int, dict[str, Any]]:
    """One window (rounds ``interval_s`` apart over ``window_s``) of every device, read over ``source``, as JSON. The
    window is wider than a round takes on a loaded machine, so it holds two reads of every device (a rate) however
    slow the SSH rounds."""
    timing = ["--interval", str(interval_s), "--window", str(window_s)]
    args = [str(INTENT), "--lab", LAB, "--once", "--source", source, *timing, "-f", "json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "xoff", "watch", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _findings(doc: dict[str, Any]) -> set[tuple[str, str, str | None, int | None]]:
    return {(r["check"], r["device"], r["port"], r["priority"]) for r in doc["results"] if r["status"] == "failure"}


@pytest.mark.parametrize("source", ["gnmi", "ssh"])
def test_watch_reports_the_seeded_storm_and_nothing_else(lab: Lab, source: str) -> None:
    t = STORM.target
    STORM.seed(lab, t)
    try:
        code, doc = _watch(source)
    finally:
        STORM.undo(lab, t)
    assert doc["watch"]["not_read"] == {} and doc["watch"]["source"] == source
    assert _findings(doc) == {("watch.pause_storm", t.device, t.port, t.priority)}
    assert code == 1
    code, doc = _watch(source)
    assert (code, _findings(doc)) == (0, set())


DRAINS = (FAULTS["slow-drain-eos"], FAULTS["slow-drain-cumulus"])


@pytest.mark.parametrize("source", ["gnmi", "ssh"])
def test_watch_reports_slow_drains_on_eos_and_cumulus(lab: Lab, source: str) -> None:
    """EOS's LANZ queue (over SSH either way) and Cumulus' PG peak use (NVUE's table over SSH, the PG's
    max-occupancy leaf over gNMI) growing under pause that never stops: watch.slow_drain on both targets, nothing
    else (800 pause frames/s is no storm)."""
    for f in DRAINS:
        f.seed(lab, f.target)
    try:
        # a wider window than the storm's: the drain is judged on growth through it, and a loaded machine's slow SSH
        # rounds (EOS's LANZ read among them) must still leave several reads of each switch inside it
        code, doc = _watch(source, window_s=14, interval_s=2)
    finally:
        for f in DRAINS:
            f.undo(lab, f.target)
    assert doc["watch"]["not_read"] == {}
    want = {("watch.slow_drain", f.target.device, f.target.port, f.target.priority) for f in DRAINS}
    drained = [(r["device"], r["status"], r["message"]) for r in doc["results"] if r["check"] == "watch.slow_drain"]
    assert _findings(doc) == want, drained
    assert code == 1


class Lines:
    """A running ``xoff watch``'s stdout, line by line, read on a thread so the test can wait with a deadline."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[str] = queue.Queue()
        assert proc.stdout is not None
        out = proc.stdout
        threading.Thread(target=lambda: [self.queue.put(line) for line in out], daemon=True).start()

    def next(self, within_s: float = 30.0) -> str:
        return self.queue.get(timeout=within_s)


def test_continuous_watch_prints_the_storms_start_and_clear(lab: Lab) -> None:
    """Without --once, over gNMI: the seeded storm prints one start line, its undo one clear line; Ctrl-C ends the
    run with the report as the last line and exit 1 (a finding fired during the run)."""
    t = STORM.target
    args = [str(INTENT), "--lab", LAB, "--source", "gnmi", "--limit", t.device, "--interval", "1", "--window", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "xoff", "watch", *args, "-q", "-f", "json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = Lines(proc)
        STORM.seed(lab, t)
        try:
            start = json.loads(lines.next())
        finally:
            STORM.undo(lab, t)
        clear = json.loads(lines.next())
        proc.send_signal(signal.SIGINT)
        report = json.loads(lines.next())
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    for event, doc in (("start", start), ("clear", clear)):
        assert (doc["event"], doc["signal"], doc["device"], doc["port"], doc["priority"]) == (
            event,
            "watch.pause_storm",
            t.device,
            t.port,
            t.priority,
        )
    assert report["watch"]["fired"] == 1 and report["watch"]["interrupted"] is True
    assert code == 1
