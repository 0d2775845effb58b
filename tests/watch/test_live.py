"""Continuous mode: the signals judge every round; a finding prints one line when it starts and one when it clears."""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff import api
from xoff.cli.watch import WatchFormat, _show, app, change_line
from xoff.exitcodes import ExitCode
from xoff.watch.file_source import FileSource, sample_to_json
from xoff.watch.live import Change
from xoff.watch.report import WatchReport
from xoff.watch.sample import Reading, Sample

INTENT = ROOT / "inventory" / "lab-mini"
RX_PAUSE = "xoff_pfc_rx_pause_frames_total"
WD_DETECTED = "xoff_pfc_watchdog_storms_detected_total"
STORM_PPS = 5000.0  # pause frames/s while the fault runs: above pause_storm_pps (1000)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1764680000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


class Storm:
    """leaf1 Ethernet0 priority 3: its rx pause counter moves at STORM_PPS in the rounds ``storm`` names (the
    interval that ends at round k is round k's), still otherwise; Ctrl-C after ``rounds`` rounds."""

    name = "fake"

    def __init__(self, clock: FakeClock, storm: range, rounds: int, watchdog: bool = False) -> None:
        self.clock, self.storm, self.rounds, self.watchdog = clock, storm, rounds, watchdog
        self.done, self.total, self.storms = 0, 100.0, 0.0
        self.samples: list[Sample] = []

    def read(self, devices: Sequence[str]) -> list[Sample]:
        if self.done >= self.rounds:
            raise KeyboardInterrupt
        self.done += 1
        if self.done in self.storm:
            self.total += STORM_PPS * 10.0
            self.storms += 1
        readings = [Reading.of(RX_PAUSE, self.total, port="Ethernet0", priority=3)]
        if self.watchdog:  # the PFC watchdog detecting the same storm on the priority's queue
            readings.append(Reading.of(WD_DETECTED, self.storms, port="Ethernet0", queue=3))
        out = [Sample("leaf1", self.clock.now, tuple(readings))] if "leaf1" in devices else []
        self.samples.extend(out)
        return out


OPTIONS = api.WatchOptions(interval_s=10.0, window_s=20.0, limit=("leaf1",))


def _watch(source: Storm, clock: FakeClock, seen: list[Change]) -> WatchReport:
    return api.watch(INTENT, OPTIONS, counters=source, pace=(clock.sleep, clock), changes=seen.append)


@pytest.mark.parametrize("watchdog", [False, True], ids=["pause", "pause-and-watchdog"])
def test_a_fault_from_round_3_to_6_prints_one_start_and_one_clear(watchdog: bool) -> None:
    """With the watchdog too, the signal finds the storm twice on the port and priority: still one start, one clear."""
    clock, seen = FakeClock(), list[Change]()
    report = _watch(Storm(clock, range(3, 7), rounds=10, watchdog=watchdog), clock, seen)
    assert [(c.event, c.signal, c.finding.device, c.finding.port, c.finding.priority, c.round) for c in seen] == [
        ("start", "watch.pause_storm", "leaf1", "Ethernet0", 3, 3),
        ("clear", "watch.pause_storm", "leaf1", "Ethernet0", 3, 8),  # the 20 s window holds no storm from round 8
    ]
    assert {c.finding.object for c in seen} == {"Ethernet0 priority 3 rx pause"}
    assert report.interrupted and report.fired == 1 and report.findings == 0  # cleared before Ctrl-C: still exit 1
    assert report.exit_code() is ExitCode.FINDINGS


def test_a_quiet_fabric_prints_nothing_and_exits_0() -> None:
    clock, seen = FakeClock(), list[Change]()
    report = _watch(Storm(clock, range(0), rounds=6), clock, seen)
    assert seen == [] and report.exit_code() is ExitCode.OK


def test_a_fault_still_running_at_ctrl_c_prints_its_start_only() -> None:
    clock, seen = FakeClock(), list[Change]()
    report = _watch(Storm(clock, range(4, 99), rounds=8), clock, seen)
    assert [(c.event, c.round) for c in seen] == [("start", 4)]
    assert report.findings == 1 and report.exit_code() is ExitCode.FINDINGS


def _recorded(tmp_path: Path) -> Path:
    """The storm of rounds 3 to 6 as ``--record`` writes it, for the replay source."""
    clock = FakeClock()
    storm = Storm(clock, range(3, 7), rounds=10)
    for _ in range(10):
        storm.read(["leaf1"])
        clock.sleep(10.0)
    path = tmp_path / "storm.jsonl"
    path.write_text("".join(json.dumps(sample_to_json(s)) + "\n" for s in storm.samples), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", [WatchFormat.text, WatchFormat.json])
def test_the_replayed_storm_prints_one_start_and_one_clear_line(
    tmp_path: Path, fmt: WatchFormat, capsys: pytest.CaptureFixture[str]
) -> None:
    report = api.watch(INTENT, OPTIONS, counters=FileSource.open(_recorded(tmp_path)), changes=change_line(fmt))
    lines = capsys.readouterr().out.splitlines()
    if fmt is WatchFormat.json:
        docs = [json.loads(line) for line in lines]
        assert [(d["event"], d["signal"], d["device"], d["port"], d["priority"], d["round"]) for d in docs] == [
            ("start", "watch.pause_storm", "leaf1", "Ethernet0", 3, 3),
            ("clear", "watch.pause_storm", "leaf1", "Ethernet0", 3, 8),
        ]
        assert (
            docs[0]["actual"] == "2500 frames/s"
        )  # the 20 s window: one storm interval of two and docs[0]["at"] == 1764680020.0
    else:
        assert len(lines) == 2
        assert " round 3 START watch.pause_storm leaf1: Ethernet0 priority 3 rx pause - PFC pause storm" in lines[0]
        assert "Actual: 2500 frames/s" in lines[0]
        assert lines[1].endswith(" round 8 CLEAR watch.pause_storm leaf1: Ethernet0 priority 3 rx pause")
    assert report.fired == 1 and report.exit_code() is ExitCode.FINDINGS


def test_after_a_json_lines_stream_the_report_is_one_more_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = api.watch(
        INTENT, OPTIONS, counters=FileSource.open(_recorded(tmp_path)), changes=change_line(WatchFormat.json)
    )
    _show(report, WatchFormat.json, None, verbose=False, lines=True)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    final = json.loads(lines[2])
    assert final["catalog"] == "watch" and final["ok"] is False and final["watch"]["fired"] == 1


class LabStorm(Storm):
    """The storm as ``--lab`` would read it: the clock moves 10 s a read, nothing waits (``paced`` False)."""

    paced = False

    def read(self, devices: Sequence[str]) -> list[Sample]:
        out = super().read(devices)
        self.clock.sleep(10.0)
        return out


def test_the_cli_streams_json_lines_and_ctrl_c_exits_with_the_runs_status(monkeypatch: pytest.MonkeyPatch) -> None:
    api_watch = importlib.import_module("xoff.api.watch")  # the module (xoff.api.watch is also the function)
    storm = LabStorm(FakeClock(), range(3, 7), rounds=10)
    monkeypatch.setattr(api_watch, "_device_source", lambda desired, _options: (desired, storm))
    args = [str(INTENT), "--lab", "mini", "--interval", "10", "--window", "20", "--limit", "leaf1", "-q", "-f", "json"]
    r = CliRunner().invoke(app(), args)
    lines = r.stdout.splitlines()
    assert [json.loads(line).get("event") for line in lines] == ["start", "clear", None]
    assert json.loads(lines[2])["watch"]["interrupted"] is True
    assert r.exit_code == ExitCode.FINDINGS  # Ctrl-C ends continuous mode: the run's status, not 130
