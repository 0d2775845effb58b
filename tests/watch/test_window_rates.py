"""The window (bounded, trimmed to W seconds) and counter rates (resets and values not observed)."""

from __future__ import annotations

import pytest

from xoff.watch.rates import intervals, rate
from xoff.watch.sample import Reading, Sample
from xoff.watch.window import Window, latest

M = "xoff_pfc_rx_pause_frames_total"


@pytest.mark.parametrize(
    ("points", "per_s", "resets"),
    [
        ([(0.0, 0.0), (10.0, 100.0), (20.0, 300.0)], 15.0, 0),
        ([(0.0, 500.0), (10.0, 20.0), (20.0, 120.0)], 10.0, 1),  # cleared: the reset interval gives no rate
        ([(0.0, 0.0), (10.0, None), (20.0, 300.0), (30.0, 400.0)], 10.0, 0),  # a gap shortens the window
        ([(0.0, 7.0), (10.0, 7.0)], 0.0, 0),
    ],
)
def test_rate(points: list[tuple[float, float | None]], per_s: float, resets: int) -> None:
    r = rate(points)
    assert r is not None and r.per_s == pytest.approx(per_s) and r.resets == resets and r.per_s >= 0


@pytest.mark.parametrize(
    "points", [[], [(0.0, 5.0)], [(0.0, None), (10.0, None)], [(0.0, 9.0), (10.0, 1.0)], [(5.0, 1.0), (5.0, 2.0)]]
)
def test_no_rate(points: list[tuple[float, float | None]]) -> None:
    """One point, nothing observed, only a reset, no time between: no rate (never 0)."""
    assert rate(points) is None


def test_intervals_mark_resets_and_gaps() -> None:
    assert intervals([(0.0, 10.0), (10.0, 5.0), (20.0, None), (30.0, 8.0)]) == [
        (0.0, 10.0, None),
        (10.0, 20.0, None),
        (20.0, 30.0, None),
    ]


def _sample(device: str, at: float, value: float | None, error: str | None = None) -> Sample:
    readings = () if error else (Reading.of(M, value, port="Ethernet0", priority=3),)
    return Sample(device, at, readings, error)


def test_window_keeps_the_last_w_seconds() -> None:
    w = Window(20.0)
    for k in range(6):
        w.add([_sample("leaf1", 10.0 * k, 100.0 * k)])
    ((_, _, points),) = list(w.of(M))
    assert [t for t, _ in points] == [30.0, 40.0, 50.0]
    assert w.rounds == 6 and latest(points) == 500.0


def test_window_memory_is_bounded() -> None:
    w = Window(1e9, max_points=4)
    for k in range(100):
        w.add([_sample("leaf1", float(k), float(k))])
    assert len(next(iter(w.series.values()))) == 4


def test_window_remembers_errors_until_read() -> None:
    w = Window(60.0)
    w.add([_sample("leaf1", 0.0, None, error="timeout"), _sample("leaf2", 0.0, 1.0)])
    assert w.errors == {"leaf1": "timeout"} and w.read_ok == {"leaf2"}
    w.add([_sample("leaf1", 10.0, 3.0)])
    assert w.errors == {} and w.read_ok == {"leaf1", "leaf2"}
    assert w.points("leaf1", M, port="Ethernet0", priority=3) == [(10.0, 3.0)]
    assert latest([(0.0, 1.0), (10.0, None)]) == 1.0 and latest([(0.0, None)]) is None


def test_series_left_behind_leave_the_index() -> None:
    w = Window(10.0)
    w.add([_sample("leaf1", 0.0, 1.0)])
    w.add([Sample("leaf2", 30.0, (Reading.of(M, 2.0, port="Ethernet4", priority=3),))])
    assert [dev for dev, _, _ in w.of(M)] == ["leaf2"] and len(w.by_metric[M]) == 1
