"""lldpd's ``lldpctl -f json`` parser on every real-format sample (tests/fixtures/real/lldpd/lldpctl_-f_json/,
sources in its README.md): one neighbour (objects) and several (a list of one-key objects) change the shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.contracts.collect import Command
from xoff.platforms.lldpd.parse import parse_neighbors

LLDPCTL = Command("lldpctl -f json")
SAMPLES = samples("lldpd", LLDPCTL.slug)


def test_three_samples_or_more() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_parser_on_corpus(sample: Path) -> None:
    want, got = expected_for(sample, parse_neighbors(read_sample(sample)))
    assert got == want
