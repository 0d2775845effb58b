"""The alert rules and the watch's own signals agree: each hand-made replay of ``tests/fixtures/watch/`` (made so that
exactly ``watch.<signal>`` fires, and ``quiet.jsonl`` nothing) and of ``tests/fixtures/watch/differences/`` (each
where an earlier rule and the signal disagreed) goes through the exporter, round by round, into ``promtool test
rules`` as the series Prometheus would have scraped; the alerts that fire, on which device and port, are exactly the
findings of the watch's own signals over the same replay.

promtool is asked to expect no alert at all; the alerts it then reports as unexpected are the ones that fired.
The rules' window covers the replays' three rounds (10 s apart), as the watch's 60 s window does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from xoff import api
from xoff.watch.alerts import Windows, alert_name, alerts, render
from xoff.watch.exporter import Exporter
from xoff.watch.file_source import load_samples
from xoff.watch.sample import Sample

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "tests" / "fixtures" / "watch"
DIFFERENCES = REPLAYS / "differences"
STEP_S = 10
CASES = sorted(p.stem for p in REPLAYS.glob("*.jsonl"))
REPLAY_FILES = [*(REPLAYS / f"{c}.jsonl" for c in CASES), *sorted(DIFFERENCES.glob("*.jsonl"))]
Fired = set[tuple[str, str, str | None]]  # alert name, device, port


def _rounds(samples: list[Sample]) -> list[list[Sample]]:
    by_round: dict[int, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_round[int(sample.at // STEP_S)].append(sample)
    return [by_round[k] for k in sorted(by_round)]


def _series_text(name: str, labels: dict[str, str]) -> str:
    body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()) if v != "")  # an empty label is no label
    return f"{name}{{{body}}}"


def scraped_series(replay: Path, state: Any) -> dict[str, list[float | None]]:
    """What a 10 s scrape of the exporter would have stored, round by round (None: no such series then)."""
    exporter = Exporter.for_state(state)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(exporter)
    rounds = _rounds(load_samples(replay))
    series: dict[str, list[float | None]] = {}
    for i, samples in enumerate(rounds):
        exporter.on_round(samples)
        for family in text_string_to_metric_families(generate_latest(registry).decode()):
            for s in family.samples:
                series.setdefault(_series_text(s.name, s.labels), [None] * len(rounds))[i] = s.value
    return series


def _values(points: list[float | None]) -> str:
    return " ".join("_" if v is None else repr(float(v)) for v in points)


def fired(tmp_path: Path, series: dict[str, list[float | None]], rounds: int) -> Fired:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool not found: install Debian package prometheus (make system-deps)")
    (tmp_path / "rules.yml").write_text(render(windows=Windows(window_s=30, scrape_s=STEP_S)), encoding="utf-8")
    eval_time = f"{(rounds - 1) * STEP_S}s"
    case = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": f"{STEP_S}s",
        "tests": [
            {
                "interval": f"{STEP_S}s",
                "input_series": [{"series": k, "values": _values(v)} for k, v in sorted(series.items())],
                "alert_rule_test": [{"eval_time": eval_time, "alertname": a.name, "exp_alerts": []} for a in alerts()],
            }
        ],
    }
    (tmp_path / "case.yml").write_text(yaml.safe_dump(case, width=1000), encoding="utf-8")
    result = subprocess.run(
        [tool, "test", "rules", str(tmp_path / "case.yml")], capture_output=True, text=True, check=False, timeout=60
    )
    out = result.stdout + result.stderr
    got: Fired = set()
    for labels in re.findall(r"Labels:\{([^}]*)\}", out):
        pairs = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        got.add((pairs["alertname"], pairs["device"], pairs.get("port")))
    assert (result.returncode == 0) == (not got), out
    return got


def judged(replay: Path) -> Fired:
    """What the watch's own signals find over the replay (its 60 s window holds the three rounds)."""
    report = api.watch(ROOT / "inventory" / "lab-mini", api.WatchOptions(replay=replay, interval_s=STEP_S, window_s=60))
    return {(alert_name(r.id), f.device, f.port) for r in report.results for f in r.findings}


@pytest.mark.parametrize("replay", REPLAY_FILES, ids=lambda p: str(p.relative_to(REPLAYS)))
def test_the_alerts_fire_on_what_the_signals_find(replay: Path, tmp_path: Path, lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    series = scraped_series(replay, state)
    expected = judged(replay)
    if replay.parent == REPLAYS:  # one replay per signal: exactly that signal finds something (none on quiet)
        assert {a for a, _, _ in expected} == (
            set() if replay.stem == "quiet" else {alert_name(f"watch.{replay.stem}")}
        )
    assert fired(tmp_path, series, len(_rounds(load_samples(replay)))) == expected


def test_every_signal_has_its_replay() -> None:
    assert {alert_name(f"watch.{c}") for c in CASES if c != "quiet"} == {a.name for a in alerts()}


def test_every_difference_is_described() -> None:
    readme = (DIFFERENCES / "README.md").read_text(encoding="utf-8")
    for replay in DIFFERENCES.glob("*.jsonl"):
        assert f"`{replay.name}`" in readme, replay.name
