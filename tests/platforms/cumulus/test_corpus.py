"""Every Cumulus (NVUE) parser on every sample of the real-format corpus (tests/fixtures/real/cumulus/,
sources in its README.md): what the parser makes of each sample equals the expected file beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples, with_unmodelled
from xoff.platforms.cumulus import counters, optics, transceivers
from xoff.platforms.cumulus.collect import CONFIG, INTERFACES
from xoff.platforms.cumulus.config_read import read_config, read_interfaces

PARSERS: dict[str, Callable[[str], Any]] = {
    CONFIG.slug: read_config,
    INTERFACES.slug: read_interfaces,
    counters.qos_command("PORT").slug: counters.parse_qos,
    counters.watchdog_command("PORT").slug: counters.parse_watchdog,
    optics.phy_command("PORT").slug: with_unmodelled(optics.parse_phy_detail, "port"),
    transceivers.TRANSCEIVERS.slug: with_unmodelled(transceivers.parse_transceivers, "port"),
}
CASES = [(command, sample) for command in PARSERS for sample in samples("cumulus", command)]


@pytest.mark.parametrize("command", list(PARSERS))
def test_every_command_has_three_samples_or_more(command: str) -> None:
    assert len(samples("cumulus", command)) >= 3, command


@pytest.mark.parametrize(("command", "sample"), CASES, ids=[f"{c}/{i}" for c, i in zip(
    [c for c, _ in CASES], sample_ids([s for _, s in CASES]), strict=True)])  # fmt: skip
def test_parser_reads_the_sample_as_expected(command: str, sample: Path) -> None:
    expected, got = expected_for(sample, PARSERS[command](read_sample(sample)))
    assert got == expected
