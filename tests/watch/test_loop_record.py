"""The loop (pacing, --once rounds, Ctrl-C), the recorder and the replay of what it wrote."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.errors import InputError
from xoff.validate.model import Status
from xoff.watch.file_source import FileSource, Recorder, load_samples
from xoff.watch.run import Loop, rounds_for
from xoff.watch.sample import Reading, Sample
from xoff.watch.window import Window

INTENT = ROOT / "inventory" / "lab-mini"
M = "xoff_queue_dropped_packets_total"


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(round(s, 6))
        self.now += s


class Dropping:
    """A source whose leaf1 drops 10 packets/s on lossless queue 3 and whose leaf2 cannot be read."""

    name = "fake"

    def __init__(self, clock: FakeClock, read_s: float = 0.5, stop_after: int | None = None) -> None:
        self.clock, self.read_s, self.stop_after, self.reads = clock, read_s, stop_after, 0

    def read(self, devices: Sequence[str]) -> list[Sample]:
        self.reads += 1
        if self.stop_after is not None and self.reads > self.stop_after:
            raise KeyboardInterrupt
        self.clock.now += self.read_s
        at = self.clock.now
        out = [Sample("leaf2", at, error="connect timeout")] if "leaf2" in devices else []
        if "leaf1" in devices:
            out.append(Sample("leaf1", at, (Reading.of(M, 10.0 * at, port="Ethernet0", queue=3),)))
        return out


@pytest.mark.parametrize(("window", "interval", "rounds"), [(60, 10, 7), (5, 10, 2), (10, 10, 2), (25, 10, 4)])
def test_once_reads_one_window_and_at_least_two_rounds(window: float, interval: float, rounds: int) -> None:
    assert rounds_for(window, interval) == rounds


def test_rounds_are_paced_on_the_schedule() -> None:
    clock = FakeClock()
    seen: list[int] = []
    loop = Loop(
        Dropping(clock),
        ["leaf1"],
        10.0,
        Window(60.0),
        [lambda _samples, w: seen.append(w.rounds)],
        3,
        clock.sleep,
        clock,
    )
    loop.run()
    assert seen == [1, 2, 3]
    assert clock.slept == [9.5, 9.5]  # a 0.5 s read shortens the wait: rounds start at 100, 110, 120


def test_api_with_a_source_records_and_the_replay_says_the_same(tmp_path: Path) -> None:
    clock = FakeClock()
    record = tmp_path / "rec.jsonl"
    options = api.WatchOptions(interval_s=1.0, window_s=3.0, once=True, record=record, limit=("leaf1", "leaf2"))
    live = api.watch(INTENT, options, counters=Dropping(clock), pace=(clock.sleep, clock))
    assert live.window.rounds == 4 and live.not_read == {"leaf2": "connect timeout"}
    drop = next(r for r in live.results if r.id == "watch.lossless_drop")
    assert drop.status is Status.FAILURE and drop.findings[0].actual.startswith("10.0 packets/s")
    assert len(load_samples(record)) == 8
    replayed = api.watch(
        INTENT, api.WatchOptions(replay=record, interval_s=1.0, window_s=3.0, limit=("leaf1", "leaf2"))
    )
    assert [(r.id, r.status, r.findings) for r in replayed.results] == [
        (r.id, r.status, r.findings) for r in live.results
    ]


def test_ctrl_c_keeps_the_window_and_says_interrupted() -> None:
    clock = FakeClock()
    options = api.WatchOptions(interval_s=0.01, window_s=60.0, limit=("leaf1",))
    report = api.watch(INTENT, options, counters=Dropping(clock, read_s=0.0, stop_after=3), pace=(clock.sleep, clock))
    assert report.interrupted and report.window.rounds == 3 and clock.slept == [0.01, 0.01, 0.01]


def test_recorder_lines_round_trip() -> None:
    stream = io.StringIO()
    s = Sample("leaf1", 1.5, (Reading.of(M, None, port="Ethernet0", queue=3),), unmodelled={"PORT.fec": 2})
    Recorder(stream)([s], Window(1.0))
    (line,) = stream.getvalue().splitlines()
    assert json.loads(line)["readings"][0] == {
        "metric": M,
        "labels": {"port": "Ethernet0", "queue": "3"},
        "value": None,
    }
    assert FileSource([s]).read(["leaf1", "gpu1"]) == [s]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("{not json", "not a sample"),
        ('{"device": "leaf1"}', "missing 'at'"),
        (
            '{"device": "leaf1", "at": 1, "readings": [{"metric": "xoff_nope", "value": 1}]}',
            "unknown metric 'xoff_nope'",
        ),
        ('{"device": "leaf1", "at": 1, "readings": [{"metric": "' + M + '", "value": "12"}]}', "not a number"),
    ],
)
def test_a_bad_recording_is_bad_input_with_its_line(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"device": "gpu1", "at": 1}\n' + line + "\n")
    with pytest.raises(InputError) as err:
        load_samples(path)
    (problem,) = err.value.sorted()
    assert str(problem).startswith(f"{path}:2:1") and says in str(problem)
