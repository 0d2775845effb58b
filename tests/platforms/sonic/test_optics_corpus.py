"""``show interfaces transceiver eeprom --dom`` on every real-format sample (tests/fixtures/real/sonic/
show_interfaces_transceiver_eeprom_--dom/, sources in the README), compared with the expected file beside each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples, with_unmodelled
from xoff.platforms.sonic import optics

SAMPLES = samples("sonic", optics.TRANSCEIVER_DOM.slug)
parse = with_unmodelled(optics.parse_transceiver_dom)


def test_three_samples_at_least() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_parser_on_corpus(sample: Path) -> None:
    want, got = expected_for(sample, parse(read_sample(sample)))
    assert got == want


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("        Vendor Name: X\n", "outside a detected port"),
        (
            "Ethernet0: SFP EEPROM detected\n        ChannelMonitorValues:\n                RX1Power: lowdBm\n",
            "not a value",
        ),
    ],
)
def test_unreadable_output_is_refused(text: str, message: str) -> None:
    with pytest.raises(optics.OpticParseError, match=message):
        optics.parse_transceiver_dom(text)


def test_na_and_unknown_are_not_observed() -> None:
    text = (
        "Ethernet0: SFP EEPROM detected\n        ChannelMonitorValues:\n                RX1Power: N/A\n"
        "                RX2Power: Unknown\n        ModuleMonitorValues:\n                Temperature: N/A\n"
    )
    assert optics.parse_transceiver_dom(text)["Ethernet0"].rx_power_dbm == {1: None, 2: None}
