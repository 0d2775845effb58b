"""Every real-format sample of ``show runningconfiguration all`` (tests/fixtures/real/sonic/show_runningconfiguration_all/,
sources in tests/fixtures/real/sonic/README.md) read by the SONiC reader, compared with the expected file beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.platforms.sonic.parse_common import ConfigDbParseError
from xoff.platforms.sonic.running import read_running_config

SAMPLES = samples("sonic", "show_runningconfiguration_all")


def test_the_corpus_has_samples() -> None:
    assert len(SAMPLES) >= 4


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_running_config_sample(sample: Path) -> None:
    try:
        running = read_running_config(read_sample(sample))
    except ConfigDbParseError as exc:  # output cut short: the whole command is one parse error
        want, value = expected_for(sample, {"error": str(exc)})
        assert value == want
        return
    reading = running.reading
    got = {
        "switch": reading.switch,
        "unmodelled": reading.unmodelled,
        "unobserved": sorted(reading.unobserved),
        "port_settings": reading.port_settings,
        "errors": running.errors,
        "bgpraw": running.bgpraw,
        "frr": running.frr,
    }
    want, value = expected_for(sample, got)
    assert value == want
