"""The Prometheus alert rules: one per watch signal, fresh, and proven by Debian's promtool (check + unit tests).

promtool missing fails these tests (it never skips): ``make system-deps`` installs Debian's ``prometheus``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from xoff.watch.alerts import Windows, alert_name, alerts, render, rules_document
from xoff.watch.signals import SIGNAL_IDS

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "xoff-alerts.yml"
CASES = ROOT / "deploy" / "prometheus" / "xoff-alerts.test.yml"
# the signal ids of issue 18's shared contract, as the watch defines them
SIGNALS = set(SIGNAL_IDS)
assert len(SIGNALS) == 9


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.fail("promtool not found: install Debian package prometheus (make system-deps)")
    return subprocess.run([tool, *args], capture_output=True, text=True, check=False, timeout=60)


def test_the_rule_file_is_fresh() -> None:
    assert RULES.read_text(encoding="utf-8") == render(), (
        "run: python -m xoff.watch.alerts -o deploy/prometheus/xoff-alerts.yml"
    )


def test_one_alert_per_signal_named_after_it() -> None:
    made = alerts()
    assert {a.signal for a in made} == SIGNALS
    assert len(made) == len(SIGNALS)
    assert alert_name("watch.pause_storm") == "XoffPauseStorm"
    assert alert_name("watch.gpu_straggler") == "XoffGpuStraggler"
    doc = rules_document()
    assert [r["labels"]["signal"] for r in doc["groups"][0]["rules"]] == [a.signal for a in made]


def test_promtool_checks_the_rules(tmp_path: Path) -> None:
    short = tmp_path / "short.yml"
    short.write_text(render(windows=Windows(window_s=30, scrape_s=10)), encoding="utf-8")
    result = promtool("check", "rules", str(RULES), str(short))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 9 rules found" in result.stdout


def test_promtool_unit_tests_pass() -> None:
    result = promtool("test", "rules", str(CASES))
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_has_a_firing_case_beside_a_quiet_series() -> None:
    cases: dict[str, Any] = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    firing: dict[str, int] = {}
    for group in cases["tests"]:
        for check in group["alert_rule_test"]:
            fired = {a["exp_labels"]["device"] + str(a["exp_labels"].get("port")) for a in check["exp_alerts"]}
            series = {s["series"] for s in group["input_series"]}
            if fired:
                firing[check["alertname"]] = firing.get(check["alertname"], 0) + 1
                assert len(series) > len(fired), f"{group['name']}: no quiet series beside the firing one"
    assert set(firing) == {alert_name(s) for s in SIGNALS}


def test_the_cases_catch_a_rule_that_never_fires(tmp_path: Path) -> None:
    """The unit tests are not vacuous: with every expression made impossible, every firing case fails."""
    doc = rules_document()
    for rule in doc["groups"][0]["rules"]:
        rule["expr"] = "vector(0) > 1"
    (tmp_path / "xoff-alerts.yml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    shutil.copy(CASES, tmp_path / CASES.name)
    result = promtool("test", "rules", str(tmp_path / CASES.name))
    assert result.returncode != 0
    for signal in SIGNALS:
        assert f"alertname: {alert_name(signal)}" in result.stdout + result.stderr, signal


def test_the_prometheus_page_lists_every_alert_and_meta_metric() -> None:
    from xoff.watch.exporter import META

    page = (ROOT / "docs" / "watch-prometheus.md").read_text(encoding="utf-8")
    for name in [*(a.name for a in alerts()), *META]:
        assert f"| `{name}` |" in page, name


def test_the_generator_takes_threshold_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xoff.watch.alerts import main

    assert main(["-t", "pause_storm_pps=5000", "-o", str(tmp_path / "r.yml")]) == 0
    assert "rate(xoff_pfc_rx_pause_frames_total[1m]) > 5000)" in (tmp_path / "r.yml").read_text(encoding="utf-8")
    assert main(["-t", "pause_storm=1"]) == 2
    assert "no threshold 'pause_storm'" in capsys.readouterr().err


def test_the_generator_takes_the_watchs_window_and_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A watch run with another --window / --interval gets rules over the same window and intervals."""
    from xoff.watch.alerts import main

    assert main(["--window", "120", "--interval", "15", "-o", str(tmp_path / "r.yml")]) == 0
    text = (tmp_path / "r.yml").read_text(encoding="utf-8")
    assert "rate(xoff_queue_dropped_packets_total[2m])" in text
    assert "min_over_time(irate(xoff_pfc_rx_pause_frames_total[2m])[105s:15s])" in text
    assert main(["--window", "10", "--interval", "10"]) == 2
    assert "the window must hold two scrapes" in capsys.readouterr().err
