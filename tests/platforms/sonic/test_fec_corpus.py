"""``show interfaces counters fec-stats`` on every real-format sample (tests/fixtures/real/sonic/
show_interfaces_counters_fec-stats/, sources in the README), compared with the expected file beside each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples, with_unmodelled
from xoff.platforms.sonic import fec

SAMPLES = samples("sonic", fec.FEC_STATS.slug)
parse = with_unmodelled(fec.parse_fec_stats)


def test_three_samples_at_least() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_parser_on_corpus(sample: Path) -> None:
    want, got = expected_for(sample, parse(read_sample(sample)))
    assert got == want


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no table here\n", "no table"),
        ("    IFACE    STATE\n---------  -------\nEthernet0        U\n", "lacks"),
        (
            "    IFACE    STATE    FEC_CORR    FEC_UNCORR\n---------  -------  ----------  ------------\n"
            "Ethernet0        U        many             0\n",
            "not a count",
        ),
    ],
)
def test_unreadable_output_is_refused(text: str, message: str) -> None:
    with pytest.raises(fec.FecParseError, match=message):
        fec.parse_fec_stats(text)
