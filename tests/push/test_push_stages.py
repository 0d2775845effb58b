"""The rollout's stages are visible: the canaries named as they start, the rest shown waiting on them,
each batch's start and end, and how every stage ended in the JSON summary and the text table."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from xoff.connect.targets import Target
from xoff.push.display import JsonLines, RichDisplay
from xoff.push.model import DeviceResult, Outcome, PushSummary, StageEvent, StageKind
from xoff.push.rollout import batches, roll_out


def _targets(n: int) -> list[Target]:
    return [Target(f"leaf{i}", "eos", "switch", "leaf", None, f"198.18.0.{i + 1}") for i in range(n)]


def _runner(bad: set[str]):  # type: ignore[no-untyped-def]
    def run(batch: list[Target], number: int) -> list[DeviceResult]:
        return [
            DeviceResult(t.name, t.platform, Outcome.ROLLED_BACK if t.name in bad else Outcome.CHANGED, batch=number)
            for t in batch
        ]

    return run


def _said(events: list[StageEvent]) -> list[tuple[str, str, tuple[str, ...], str]]:
    return [(e.name, e.status, e.devices, e.message) for e in events]


@pytest.mark.parametrize(
    ("bad", "told", "ended"),
    [
        (
            set(),
            [
                ("canary", "start", ("leaf0",), "the other 4 devices wait on it"),
                ("canary", "verified", ("leaf0",), ""),
                ("batch 2", "start", ("leaf1", "leaf2"), "2 devices in later batches"),
                ("batch 2", "done", ("leaf1", "leaf2"), ""),
                ("batch 3", "start", ("leaf3", "leaf4"), "the last batch"),
                ("batch 3", "done", ("leaf3", "leaf4"), ""),
            ],
            ["verified", "done", "done"],
        ),
        (
            {"leaf0"},
            [
                ("canary", "start", ("leaf0",), "the other 4 devices wait on it"),
                ("canary", "failed", ("leaf0",), "the rest stops"),
                ("batch 2", "skipped", ("leaf1", "leaf2"), "not attempted: the canary batch did not verify"),
                ("batch 3", "skipped", ("leaf3", "leaf4"), "not attempted: the canary batch did not verify"),
            ],
            ["failed", "skipped", "skipped"],
        ),
    ],
)
def test_stages_are_told_as_they_start_and_end(
    bad: set[str], told: list[tuple[str, str, tuple[str, ...], str]], ended: list[str]
) -> None:
    heard: list[StageEvent] = []
    _, stages = roll_out(
        batches(_targets(5), 1, 2), _runner(bad), canary=True, max_failures=None, on_stage=heard.append
    )
    assert _said(heard) == told
    assert [s.status for s in stages] == ended
    assert stages[0].kind is StageKind.CANARY and {s.kind for s in stages[1:]} == {StageKind.BATCH}


def test_one_batch_has_no_stages_to_tell() -> None:
    heard: list[StageEvent] = []
    results, stages = roll_out(
        batches(_targets(3), 0, 0), _runner(set()), canary=False, max_failures=None, on_stage=heard.append
    )
    assert (len(results), stages, heard) == (3, [], [])


def test_json_lines_and_summary_carry_the_stages() -> None:
    out = io.StringIO()
    lines = JsonLines(out)
    results, stages = roll_out(
        batches(_targets(3), 1, 0), _runner(set()), canary=True, max_failures=None, on_stage=lines
    )
    lines.summary(PushSummary(results, 1.0, "nornir", stages))
    records = [json.loads(ln) for ln in out.getvalue().splitlines()]
    assert [(r["event"], r.get("status")) for r in records[:2]] == [("stage", "start"), ("stage", "verified")]
    assert records[0] == {
        "event": "stage",
        "number": 1,
        "kind": "canary",
        "devices": ["leaf0"],
        "status": "start",
        "message": "the other 2 devices wait on it",
    }
    assert records[-1]["stages"] == [
        {"number": 1, "kind": "canary", "devices": ["leaf0"], "status": "verified", "message": ""},
        {"number": 2, "kind": "batch", "devices": ["leaf1", "leaf2"], "status": "done", "message": ""},
    ]


def test_text_output_names_the_canaries_and_each_devices_stage() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=False, color_system=None)
    display = RichDisplay(console, 3, show_diff=False)
    results, stages = roll_out(
        batches(_targets(3), 1, 0), _runner({"leaf0"}), canary=True, max_failures=None, on_stage=display
    )
    display.close()
    display.summary(PushSummary(results, 2.0, "nornir", stages))
    text = buffer.getvalue()
    assert "canary (leaf0): start, the other 2 devices wait on it" in text
    assert "canary (leaf0): failed, the rest stops" in text
    assert "batch 2 (leaf1, leaf2): skipped, not attempted: the canary batch did not verify" in text
    rows = {ln.split("│")[2].strip(): ln.split("│")[1].strip() for ln in text.splitlines() if ln.count("│") > 3}
    assert {d: rows[d] for d in ("leaf0", "leaf1", "leaf2")} == {
        "leaf0": "canary",
        "leaf1": "batch 2",
        "leaf2": "batch 2",
    }
