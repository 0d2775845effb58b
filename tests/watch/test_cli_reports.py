"""``xoff watch`` on the command line: modes, exit codes, and the four report formats."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.paths import ROOT
from xoff.cli.watch import app
from xoff.watch.judge import Trace
from xoff.watch.plot import plot_svg
from xoff.watch.signals import SIGNAL_IDS

SAMPLES = ROOT / "tests" / "fixtures" / "watch"
INTENT = str(ROOT / "inventory" / "lab-mini")


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app(), [INTENT, *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize(("sample", "code"), [("quiet", 0), ("pause_storm", 1), ("gpu_straggler", 1)])
def test_exit_status(sample: str, code: int) -> None:
    assert _run("--replay", str(SAMPLES / f"{sample}.jsonl"))[0] == code


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "say where the counters come from"),
        (("--lab", "x", "--live"), "say where the counters come from"),
        (("--replay", "nope.jsonl"), "cannot read"),
        (("--replay", str(SAMPLES / "quiet.jsonl"), "--interval", "0"), "--interval must be a positive"),
        (("--replay", str(SAMPLES / "quiet.jsonl"), "--threshold", "nope=1"), "no threshold 'nope'"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...], says: str) -> None:
    code, out, err = _run(*args)
    assert code == 2 and says in err and out == ""


def test_text_names_the_finding() -> None:
    code, out, _ = _run("--replay", str(SAMPLES / "slow_drain.jsonl"))
    assert code == 1 and "watch.slow_drain" in out and "leaf1" in out and "not read spine1" in out


def test_json_report() -> None:
    code, out, _ = _run("--replay", str(SAMPLES / "ecn_ratio.jsonl"), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["catalog"] == "watch"
    (row,) = [r for r in doc["results"] if r["status"] == "failure"]
    assert (row["check"], row["device"], row["port"], row["actual"]) == (
        "watch.ecn_ratio",
        "leaf1",
        "Ethernet0",
        "30.75%",
    )
    assert doc["watch"]["rounds"] == 3 and doc["watch"]["thresholds"]["ecn_ratio_high"] == 0.1
    (trace,) = doc["watch"]["series"]["watch.ecn_ratio"][0]
    assert trace["threshold"] == 0.1 and len(trace["points"]) == 2
    assert doc["watch"]["not_read"]["spine1"] == "no sample in the window"


def test_junit_one_testcase_per_signal_and_device() -> None:
    code, out, _ = _run("--replay", str(SAMPLES / "nic_discards.jsonl"), "--format", "junit")
    suite = ET.fromstring(out).find("testsuite")
    assert code == 1 and suite is not None
    cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
    assert {sid for sid, _ in cases} == set(SIGNAL_IDS)
    assert cases[("watch.nic_discards", "gpu2")].find("failure") is not None
    assert cases[("watch.nic_discards", "gpu1")].find("failure") is None
    assert cases[("watch.nic_discards", "gpu4")].find("skipped") is not None  # not in the recording
    assert cases[("watch.pause_storm", "leaf1")].find("skipped") is None
    assert ("watch.ecn_ratio", "gpu1") not in cases  # a switch signal is not a host's testcase
    assert cases[("watch.pause_storm", "gpu1")].find("skipped") is not None  # hosts too: no NIC pause recorded
    assert suite.get("failures") == "1" and int(suite.get("tests") or 0) == len(cases)


def test_html_plots_the_series_with_its_threshold(tmp_path: Path) -> None:
    out = tmp_path / "w.html"
    code, _, err = _run("--replay", str(SAMPLES / "pause_storm.jsonl"), "--format", "html", "-o", str(out))
    page = out.read_text()
    assert code == 1 and "wrote" in err
    assert "<title>xoff watch: lab-mini</title>" in page and 'class="plot"' in page
    assert page.count("<polyline") == 1 and 'class="threshold"' in page and "<script" not in page
    # the grid and the picture say which devices were not read, never "no finding" for them
    assert "watch.pause_storm: not judged on leaf2: nothing observed" in page
    assert "watch.ecn_ratio: not about gpu1" in page and "watch.slow_drain: leaf1: no finding" in page
    assert '<g class="node skipped"><title>spine1' in page


def test_plot_escapes_names_and_draws_the_band() -> None:
    svg = plot_svg([Trace("<leaf&1>", "dBm", ((0.0, -1.0), (10.0, -9.0)), 4.0, -5.9)])
    root = ET.fromstring(svg)  # well-formed: the name was escaped
    assert "&lt;leaf&amp;1&gt;" in svg and len(root.findall("line[@class='threshold']")) == 2
    empty = plot_svg([Trace("x", "B", (), None)])
    assert "no interval gave a value" in empty
