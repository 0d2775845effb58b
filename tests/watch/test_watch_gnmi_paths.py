"""The gNMI path -> metric mapping on every real-format sample (tests/fixtures/real/{sonic,cumulus}/README.md).

SONiC samples are GetResponses in the protobuf text layout SONiC's telemetry document prints; Cumulus samples are
gnmic's event output of a STREAM subscription, as NVIDIA's gNMI page prints it. Each is turned back into the
protobuf messages a server sends, decoded by pygnmi's ``telemetryParser`` (what the source reads through) and
mapped; the result is compared with the expected file beside the sample.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import text_format
from pygnmi.client import telemetryParser
from pygnmi.create_gnmi_path import gnmi_path_generator
from pygnmi.spec.v080 import gnmi_pb2

from tests.support.corpus import expected_for, sample_ids, samples
from xoff.watch.gnmi_paths import cumulus_readings, sonic_readings
from xoff.watch.metrics import METRICS
from xoff.watch.sample import Reading

SONIC = samples("sonic", "gnmi_get_COUNTERS_DB")
CUMULUS = samples("cumulus", "gnmi_subscribe_qos")


def _decoded(notes: list[Any]) -> list[dict[str, Any]]:
    return [telemetryParser(gnmi_pb2.SubscribeResponse(update=n))["update"] for n in notes]


def _sonic(sample: Path) -> list[dict[str, Any]]:
    response = text_format.Parse(sample.read_text(encoding="utf-8"), gnmi_pb2.GetResponse())
    return _decoded(list(response.notification))


def _typed(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return gnmi_pb2.TypedValue(string_val=str(value))
    return gnmi_pb2.TypedValue(uint_val=value) if isinstance(value, int) else gnmi_pb2.TypedValue(double_val=value)


def _cumulus(sample: Path) -> list[dict[str, Any]]:
    text, events, at = sample.read_text(encoding="utf-8"), [], 0
    decoder = json.JSONDecoder()
    while text[at:].strip():
        event, end = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        events.append(event)
        at = end
    notes = [
        gnmi_pb2.Notification(
            timestamp=e["timestamp"],
            prefix=gnmi_path_generator(e["prefix"]),
            update=[
                gnmi_pb2.Update(path=gnmi_path_generator(u["Path"]), val=_typed(u["values"][u["Path"]]))
                for u in e["updates"]
            ],
        )
        for e in events
    ]
    return _decoded(notes)


def _result(readings: list[Reading], unmodelled: dict[str, int]) -> dict[str, Any]:
    assert {r.metric for r in readings} <= set(METRICS)
    rows = sorted(([r.metric, dict(r.labels), r.value] for r in readings), key=json.dumps)
    return {"readings": rows, "unmodelled": unmodelled}


@pytest.mark.parametrize("sample", SONIC, ids=sample_ids(SONIC))
def test_sonic_counters_db_samples(sample: Path) -> None:
    expected, got = expected_for(sample, _result(*sonic_readings(_sonic(sample))))
    assert got == expected


@pytest.mark.parametrize("sample", CUMULUS, ids=sample_ids(CUMULUS))
def test_cumulus_openconfig_samples(sample: Path) -> None:
    expected, got = expected_for(sample, _result(*cumulus_readings(_cumulus(sample))))
    assert got == expected


def test_each_corpus_has_three_samples() -> None:
    assert len(SONIC) >= 3 and len(CUMULUS) >= 3


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", 0.0), ("17", 17.0), ("N/A", None), ("", None), (True, None), (None, None)],
)
def test_a_value_that_is_not_a_number_is_not_observed(value: Any, expected: float | None) -> None:
    update = {"path": "COUNTERS/Ethernet0", "val": {"SAI_PORT_STAT_PFC_3_RX_PKTS": value}}
    readings, _ = sonic_readings([{"update": [update]}])
    assert [r.value for r in readings] == [expected]
