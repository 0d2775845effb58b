"""EOS's FEC/BER (``show interfaces phy detail | json``) and optics (``show interfaces transceiver dom thresholds |
json``) parsers on every real-format sample (tests/fixtures/real/eos/<command>/, sources in the README), compared
with the expected file beside each; and the watch reader's readings from them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples, with_unmodelled
from xoff.platforms.eos import optics
from xoff.platforms.eos.watch import READER

PARSERS = {optics.PHY.slug: with_unmodelled(optics.parse_phy), optics.DOM.slug: with_unmodelled(optics.parse_dom)}
CASES = [(slug, path) for slug in PARSERS for path in samples("eos", slug)]


def test_three_samples_per_command() -> None:
    assert {s: len(samples("eos", s)) >= 3 for s in PARSERS} == dict.fromkeys(PARSERS, True)


@pytest.mark.parametrize(
    ("slug", "sample"),
    CASES,
    ids=[f"{s}/{i}" for (s, _), i in zip(CASES, sample_ids([p for _, p in CASES]), strict=True)],
)
def test_parser_reads_the_sample_as_expected(slug: str, sample: Path) -> None:
    expected, got = expected_for(sample, PARSERS[slug](read_sample(sample)))
    assert got == expected


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (optics.parse_phy, "not json", "not JSON"),
        (optics.parse_phy, '{"interfacePhyStatuses": {"Ethernet1/1": {"phyStatuses": {}}}}', "expected a list"),
        (
            optics.parse_phy,
            '{"interfacePhyStatuses": {"Ethernet1/1": {"phyStatuses": [{"fec": '
            '{"correctedCodewords": {"value": -1}}}]}}}',
            "expected a count",
        ),
        (optics.parse_dom, '{"ports": {}}', "no 'interfaces'"),
        (
            optics.parse_dom,
            '{"interfaces": {"Et1": {"parameters": {"rxPower": {"channels": {"1": "low"}}}}}}',
            "expected a number",
        ),
    ],
)
def test_unreadable_output_is_refused(parse: Callable[[str], Any], text: str, message: str) -> None:
    with pytest.raises(optics.OpticsParseError, match=message):
        parse(text)


def _sample(slug: str, case: str) -> str:
    return read_sample(next(p for p in samples("eos", slug) if p.stem == case))


def test_reader_gives_fec_ber_and_optics_readings_and_counts_the_unmodelled() -> None:
    device: Any = SimpleNamespace(name="spine2", interfaces={})
    outputs = {
        optics.PHY.text: _sample(optics.PHY.slug, "fec-without-pre-fec-ber"),
        optics.DOM.text: _sample(optics.DOM.slug, "dr4-rx-tx-temperature"),
    }
    assert {c.text for c in READER.commands(device)} >= set(outputs)
    got = READER.read(outputs, device)
    values = {(r.metric, r.labels): r.value for r in got.readings}
    assert values[("xoff_fec_uncorrectable_codewords_total", (("port", "Ethernet6/1"),))] == 2.0
    assert values[("xoff_pre_fec_ber", (("port", "Ethernet5/1"),))] is None  # not printed: not observed
    assert values[("xoff_optic_rx_power_dbm", (("lane", "3"), ("port", "Ethernet4/1/1")))] == -0.52
    assert values[("xoff_optic_temperature_celsius", (("port", "Ethernet4/1/1"),))] == 47.33984375
    assert got.unmodelled == {f"{optics.DOM.text}: txPower": 1}
    assert got.errors == []
