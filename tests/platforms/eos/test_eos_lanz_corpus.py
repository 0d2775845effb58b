"""EOS's LANZ queue lengths (``show queue-monitor length | json``) on every real-format sample
(tests/fixtures/real/eos/show_queue-monitor_length_json/, sources in the README), compared with the expected file
beside each; refused shapes; and the watch reader's queue-length readings (only where the unit is bytes)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.platforms.eos import lanz
from xoff.platforms.eos.watch import READER

SLUG = lanz.QUEUE_MONITOR.slug
SAMPLES = samples("eos", SLUG)


def _parse(text: str) -> dict[str, Any]:
    unmodelled: dict[str, int] = {}
    lengths = lanz.parse_queue_monitor(text, unmodelled)
    return {"lengths": {f"{p} tc{tc}": v for (p, tc), v in lengths.items()}, "unmodelled": unmodelled}


def test_three_samples() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_parser_reads_the_sample_as_expected(sample: Path) -> None:
    expected, got = expected_for(sample, _parse(read_sample(sample)))
    assert got == expected


ENTRY = '{"interface": "Ethernet1/1", "trafficClass": 3, "entryType": "P", "entryTime": 1.5, "queueLength": 10}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ('{"lanzEnabled": true, "entryList": []}', "no 'platformName'"),
        ('{"lanzEnabled": true, "platformName": "Sand", "entryList": {}}', "expected a list"),
        (
            '{"lanzEnabled": true, "platformName": "Sand", "entryList": [' + ENTRY.replace("10}", "-1}") + "]}",
            "queueLength: expected a count",
        ),
        (
            '{"lanzEnabled": true, "platformName": "Sand", "entryList": [' + ENTRY.replace('"P"', '"X"') + "]}",
            "entryType",
        ),
        (
            '{"lanzEnabled": true, "platformName": "Sand", "entryList": [' + ENTRY.replace(": 3,", ": 9,") + "]}",
            "not a traffic class",
        ),
    ],
)
def test_unreadable_output_is_refused(text: str, message: str) -> None:
    with pytest.raises(lanz.QueueMonitorParseError, match=message):
        lanz.parse_queue_monitor(text)


def test_newest_report_per_queue_and_lanz_off_reads_nothing() -> None:
    older = ENTRY.replace("1.5", "1.0").replace("10}", "99}")
    text = '{"lanzEnabled": true, "platformName": "Sand", "entryList": [' + f"{older}, {ENTRY}" + "]}"
    assert lanz.parse_queue_monitor(text) == {("Ethernet1/1", 3): 10}
    assert lanz.parse_queue_monitor(text.replace("true", "false")) == {}


def _sample(case: str) -> str:
    return read_sample(next(p for p in SAMPLES if p.stem == case))


def test_reader_gives_queue_lengths_in_bytes_and_nothing_in_segments() -> None:
    device: Any = SimpleNamespace(name="spine2", interfaces={})
    assert lanz.QUEUE_MONITOR in READER.commands(device)
    got = READER.read({lanz.QUEUE_MONITOR.text: _sample("sand-polling-two-ports")}, device)
    values = {(r.metric, r.labels): r.value for r in got.readings}
    assert values == {
        ("xoff_queue_length_bytes", (("port", "Ethernet1/1"), ("queue", "3"))): 131072.0,
        ("xoff_queue_length_bytes", (("port", "Ethernet2/1"), ("queue", "1"))): 23552.0,
    }
    assert got.errors == []
    got = READER.read({lanz.QUEUE_MONITOR.text: _sample("strata-segments-not-read")}, device)
    assert got.readings == [] and got.errors == []
    assert got.unmodelled == {f"{lanz.QUEUE_MONITOR.text}: queueLength on platform 'Strata'": 2}
