"""Cumulus' per-PG buffer occupancy (``nv show interface <swp> qos buffer ingress-priority-group``, NVUE's table)
on every real-format sample (tests/fixtures/real/cumulus/nv_show_interface_PORT_qos_buffer_ingress-priority-group/,
sources in the README), compared with the expected file beside each; refused shapes; and the watch reader's PG
watermark readings."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples, with_unmodelled
from xoff.contracts.observed import BufferWatermarks
from xoff.platforms.cumulus import buffers
from xoff.platforms.cumulus.watch import READER

SLUG = buffers.buffer_command("PORT").slug
SAMPLES = samples("cumulus", SLUG)


_parse = with_unmodelled(buffers.parse_ingress_pg, "watermarks")


def test_three_samples() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_parser_reads_the_sample_as_expected(sample: Path) -> None:
    expected, got = expected_for(sample, _parse(read_sample(sample)))
    assert got == expected


def _sample(case: str) -> str:
    return read_sample(next(p for p in SAMPLES if p.stem == case))


def test_unreadable_output_is_refused() -> None:
    text = _sample("roce-lossless-pg-filling")
    with pytest.raises(buffers.BufferParseError, match="is not a size"):
        buffers.parse_ingress_pg(text.replace("96.50 KB", "96.50 XB"))
    with pytest.raises(buffers.BufferParseError, match="no 'Max Usage' column"):
        buffers.parse_ingress_pg(text.replace("Max       Shared", "Peak      Shared"))
    with pytest.raises(buffers.BufferParseError, match="no header and dash rule"):
        buffers.parse_ingress_pg("0  2  DYNAMIC\n")
    assert buffers.parse_ingress_pg("") == BufferWatermarks()  # nothing printed: nothing read


def test_reader_gives_pg_watermarks() -> None:
    device: Any = SimpleNamespace(name="sleaf1", interfaces={"swp3": SimpleNamespace(kind="ethernet")})
    command = buffers.buffer_command("swp3")
    assert command in READER.commands(device)
    got = READER.read({command.text: _sample("roce-lossless-pg-filling")}, device)
    values = {(r.metric, r.labels): r.value for r in got.readings}
    at = (("pg", "3"), ("port", "swp3"))
    assert values[("xoff_pg_shared_watermark_bytes", at)] == 98816.0  # 96.50 KB
    assert values[("xoff_pg_headroom_watermark_bytes", at)] == 32512.0  # 31.75 KB
    assert got.errors == []
    assert got.unmodelled == {"qos buffer ingress-priority-group: priority group 9": 1}
