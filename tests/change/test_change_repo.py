"""``xoff change`` on a test repository (tests/change/repo.py): each pull-request branch against main, as a
reviewer runs it (``main...BRANCH``), through the command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from tests.change.repo import BRANCHES, git, make_repo
from xoff.cli import app


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("change-repo"))


def run(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["change", *args, "--repo", str(repo), "--intent", "intent"])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def reports(repo: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    out = {}
    for branch in BRANCHES:
        code, stdout, stderr = run(repo, f"main...{branch}", "--format", "json")
        assert code in (0, 1), stderr
        out[branch] = (code, json.loads(stdout))
    return out


def test_dscp_26_off_the_lossless_class_is_a_new_risk(reports: dict[str, tuple[int, dict[str, Any]]]) -> None:
    code, doc = reports["dscp"]
    assert code == 1
    causes = [r["cause"] for r in doc["risks"] if r["kind"] == "lossless_dscp"]
    assert len(causes) == 1 and "DSCP 26 moved off the lossless class roce" in causes[0]
    assert "class bulk, priority 0, lossy" in causes[0]
    leaf1 = next(d for d in doc["devices"] if d["name"] == "leaf1")
    dscp26 = next(c for c in leaf1["changes"] if c["path"] == "qos.dscp_to_tc.26")
    assert (dscp26["group"], dscp26["before"], dscp26["after"]) == ("qos maps", 3, 0)
    assert '-            "26": "3",' in leaf1["config_diff"] and '+            "26": "0",' in leaf1["config_diff"]
    gpu1 = next(d for d in doc["devices"] if d["name"] == "gpu1")
    assert {"host.nccl_env.NCCL_IB_TC", "host.nics.eth0.roce_tos"} <= {c["path"] for c in gpu1["changes"]}
    assert not doc["summary"]["new_deadlock_risk"]


def test_short_cable_with_a_short_headroom_row_is_a_new_failing_finding(
    reports: dict[str, tuple[int, dict[str, Any]]],
) -> None:
    code, doc = reports["cable"]
    assert code == 1
    added = [f for f in doc["findings"]["added"] if f["check"] == "lossless.headroom"]
    assert {(f["device"], f["subject"]) for f in added} >= {("leaf1", "Ethernet32 PG 3"), ("spine1", "Ethernet0 PG 3")}
    assert any(
        r["kind"] == "finding" and "size of pg_lossless_400000_3m_profile below xon + xoff" in r["cause"]
        for r in doc["risks"]
    )
    leaf1_ports = {m["subject"]: m for m in doc["headroom"] if m["device"] == "leaf1"}
    assert leaf1_ports["Ethernet32"]["before"] > leaf1_ports["Ethernet32"]["after"] == 40960
    margin = leaf1_ports["Ethernet32 PG 3 margin: size - (xon + xoff)"]
    assert (margin["before"], margin["after"]) == (0, 40960 - 18432 - 40960)  # the row's size is short by its xon
    cable = next(
        c
        for d in doc["devices"]
        if d["name"] == "leaf1"
        for c in d["changes"]
        if c["path"] == "interfaces.Ethernet32.cable_m"
    )
    assert (cable["group"], cable["before"], cable["after"]) == ("buffers/headroom", 40, 3)


def test_static_route_bounce_is_a_new_deadlock_risk(reports: dict[str, tuple[int, dict[str, Any]]]) -> None:
    code, doc = reports["static"]
    assert code == 1
    compute = next(d for d in doc["deadlock"] if d["network"] == "compute")
    assert compute["before"]["baseline"] is False and compute["after"]["baseline"] is True
    risk = next(r for r in doc["risks"] if r["kind"] == "deadlock")
    assert "network compute: new PFC deadlock risk" in risk["cause"] and "with every link up" in risk["cause"]
    assert any(f["check"] == "deadlock.cbd" for f in doc["findings"]["added"])
    routes = [c for d in doc["devices"] if d["name"] == "leaf1" for c in d["changes"]]
    assert {c["group"] for c in routes} == {"bgp"} and any("198.18.0.9/32" in c["path"] for c in routes)


def test_a_new_rack_is_no_risk_and_lists_the_devices_and_a_canary(
    reports: dict[str, tuple[int, dict[str, Any]]],
) -> None:
    code, doc = reports["rack"]
    assert code == 0 and doc["risks"] == []
    added = [d["name"] for d in doc["devices"] if d["status"] == "added"]
    assert added == ["leaf3", "gpu5", "gpu6"]
    changed = sorted(d["name"] for d in doc["devices"] if d["status"] == "changed")
    assert changed == ["spine1", "spine2"]  # only the spines' new ports and BGP neighbours: nothing renumbered
    stages = doc["rollout"]
    assert stages[0] == {"stage": "canary", "domain": "su2", "devices": ["gpu5", "gpu6", "leaf3"]}  # the new rack
    assert doc["rollout_by"] == "su"
    assert sorted(n for st in stages for n in st["devices"]) == sorted([*added, *changed])
    radius = {b["switch"]: (b["hosts"], b["gpus"]) for b in doc["blast_radius"]}
    assert radius == {"leaf3": (2, 4), "spine1": (6, 12), "spine2": (6, 12)}
    assert (doc["summary"]["hosts_behind"], doc["summary"]["gpus_behind"]) == (6, 12)  # each host once


def test_text_and_junit(repo: Path) -> None:
    code, text, _ = run(repo, "main...rack")
    assert code == 0 and "no new risk" in text.splitlines()[0]
    assert (
        "rollout (xoff push --canary-by su):" in text
        and "canary [su2]: gpu5, gpu6, leaf3" in text
        and "devices added: leaf3, gpu5, gpu6" in text
    )
    code, xml, _ = run(repo, "main...static", "--format", "junit")
    assert code == 1
    suite = ET.fromstring(xml)
    failed = {c.get("name"): c.find("failure") for c in suite.iter("testcase")}
    assert suite.get("tests") == "3" and suite.get("failures") == "2"
    assert failed["no new PFC deadlock risk (baseline and single link failures)"] is not None
    assert failed["no lossless DSCP moved off its lossless class"] is None


@pytest.mark.parametrize("branch", ["static", "rack"])
def test_markdown_renders_with_a_summary_table_and_details_per_device(repo: Path, branch: str) -> None:
    code, md, _ = run(repo, f"main...{branch}", "--format", "markdown")
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.startswith("<h2>xoff change: ")
    first_table = html.index("<table>")
    assert first_table < html.index("<details>")  # the summary first
    assert "<td>devices changed / added / removed</td>" in html
    doc = json.loads(run(repo, f"main...{branch}", "--format", "json")[1])
    assert html.count("<details>") == html.count("</details>") == len(doc["devices"])
    for dev in doc["devices"]:
        assert f"<summary><b>{dev['name']}</b>" in html
    assert ('<code class="language-diff">' in html) and (code == (1 if branch == "static" else 0))
    if branch == "rack":
        assert "<p><strong>Devices added:</strong> leaf3, gpu5, gpu6</p>" in html


def test_markdown_is_cut_to_fit_a_comment_with_a_note(repo: Path) -> None:
    from xoff.api.change import ChangeOptions, change
    from xoff.change.markdown import to_markdown

    report = change(ChangeOptions(base="main", head="dscp", repo=repo, intent="intent", failures=0))
    md = to_markdown(report, limit=6000)
    assert len(md) <= 6000
    shown = md.count("<details>")
    assert 0 < shown < len(report.devices)
    assert f"{len(report.devices) - shown} more device(s) not shown" in md


def test_config_diffs_limit_renders_the_first_devices_only(repo: Path) -> None:
    code, stdout, _ = run(repo, "main", "dscp", "--format", "json", "--failures", "0", "--config-diffs", "2")
    doc = json.loads(stdout)
    diffs = [bool(d["config_diff"]) for d in doc["devices"]]
    assert code == 1 and diffs[:2] == [True, True] and not any(diffs[2:])
    assert doc["config_diffs_left_out"] == len(diffs) - 2 > 0
    assert all(d["changes"] for d in doc["devices"])  # the semantic changes stay


def test_range_from_inside_the_repository_reads_the_intent_at_the_current_directory(repo: Path) -> None:
    """As CI runs it: one range, the intent found from the current directory, the work tree untouched."""
    before = git(repo, "status", "--porcelain")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    done = subprocess.run(
        [sys.executable, "-m", "xoff", "change", "origin/main...origin/static", "--failures", "0"],
        cwd=repo / "intent",
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "merge-base(origin/main, origin/static)@" in done.stdout.splitlines()[0]
    assert git(repo, "status", "--porcelain") == before and git(repo, "branch", "--show-current") == "main"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-rev", "main"], "BASE: 'no-such-rev' is neither an intent path nor a git revision"),
        (["main"], "HEAD: missing (give BASE HEAD, or one range BASE...HEAD)"),
        (["main", "dscp", "--failures", "3"], "--failures: 3 is not supported (allowed: 0, 1)"),
        (
            ["main", "dscp", "--config-diffs", "some"],
            "--config-diffs: 'some' is not a count (allowed: 0, 1, ..., or all)",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(repo: Path, args: list[str], message: str) -> None:
    code, stdout, stderr = run(repo, *args)
    assert code == 2 and stdout == ""
    assert stderr.strip().splitlines() == [stderr.strip()] and message in stderr


def test_intent_missing_at_a_revision_or_broken_is_exit_2(repo: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["change", "main", "dscp", "--repo", str(repo), "--intent", "nope"])
    assert result.exit_code == 2 and "--intent: 'nope' is not in" in result.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "fabric.yaml").write_text("fabric: {name: x}\nbogus: 1\n", encoding="utf-8")
    code = CliRunner().invoke(app, ["change", str(repo / "intent"), str(broken)])
    assert code.exit_code == 2 and "bogus" in code.stderr


def test_a_revision_whose_intent_does_not_load_names_the_revision_and_file(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "broken", "main")
    try:
        fabric = repo / "intent" / "fabric.yaml"
        fabric.write_text(fabric.read_text(encoding="utf-8") + "bogus: 1\n", encoding="utf-8")
        git(repo, "commit", "-qam", "broken")
    finally:
        git(repo, "checkout", "-q", "main")
    code, stdout, stderr = run(repo, "main", "broken")
    assert code == 2 and stdout == ""
    assert re.fullmatch(r"broken@[0-9a-f]{12}:intent/fabric\.yaml:\d+:1: bogus: unknown key \(allowed: .*\)\n", stderr)


def test_no_change_says_nothing_to_push_and_exits_0(repo: Path) -> None:
    result = CliRunner().invoke(app, ["change", "main", "main", "--repo", str(repo), "--intent", "intent"])
    assert result.exit_code == 0, result.output
    assert "no new risk" in result.output.splitlines()[0]
    assert "nothing to push: no device's desired state changes" in result.output
    assert "rollout (" not in result.output
