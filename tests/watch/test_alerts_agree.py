"""The alert rules and the watch's own signals agree: each hand-made replay of ``tests/fixtures/watch/`` (made so that
exactly ``watch.<signal>`` fires, and ``quiet.jsonl`` nothing) goes through the exporter, round by round, into
``promtool test rules`` as the series Prometheus would have scraped; exactly the signal's alert fires.

promtool is asked to expect no alert at all; the alerts it then reports as unexpected are the ones that fired.
Windows cover the replays' three rounds (10 s apart), ``for: 0s``.
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

from xoff.watch.alerts import Windows, alert_name, alerts, render
from xoff.watch.exporter import Exporter
from xoff.watch.file_source import load_samples
from xoff.watch.sample import Sample

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "tests" / "fixtures" / "watch"
STEP_S = 10
CASES = sorted(p.stem for p in REPLAYS.glob("*.jsonl"))


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


def fired(tmp_path: Path, series: dict[str, list[float | None]], rounds: int) -> set[str]:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool not found: install Debian package prometheus (make system-deps)")
    (tmp_path / "rules.yml").write_text(render(windows=Windows(rate="30s", slow="30s", pending="0s")), encoding="utf-8")
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
    names = set(re.findall(r"alertname: (\w+), time:", out))
    assert (result.returncode == 0) == (not names), out
    return names


@pytest.mark.parametrize("case", CASES)
def test_exactly_the_signals_alert_fires(case: str, tmp_path: Path, lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    replay = REPLAYS / f"{case}.jsonl"
    series = scraped_series(replay, state)
    expected = set() if case == "quiet" else {alert_name(f"watch.{case}")}
    assert fired(tmp_path, series, len(_rounds(load_samples(replay)))) == expected


def test_every_signal_has_its_replay() -> None:
    assert {alert_name(f"watch.{c}") for c in CASES if c != "quiet"} == {a.name for a in alerts()}
