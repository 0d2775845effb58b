"""Every EOS parser on every sample of the real-format corpus (``tests/fixtures/real/eos/<command>/``),
compared with the expected file beside each sample; the formats' sources are in that directory's README."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.contracts.collect import Command
from xoff.contracts.fib import as_routes
from xoff.platforms.eos import counters, fib
from xoff.platforms.eos.collect import BGP, LLDP, RUNNING, Collector, parse_bgp, parse_lldp
from xoff.platforms.eos.parse import parse_running_config

PARSERS: dict[str, Callable[[str], Any]] = {
    RUNNING.slug: parse_running_config,
    LLDP.slug: parse_lldp,
    BGP.slug: parse_bgp,
    Command(fib.COMMAND).slug: lambda text: as_routes(fib.parse_route_json(text)),
    counters.PFC.slug: counters.parse_pfc,
    counters.QUEUES.slug: counters.parse_queues,
    counters.WATCHDOG.slug: counters.parse_watchdog,
    counters.ECN.slug: counters.parse_ecn,
}
CASES = [(slug, path) for slug in PARSERS for path in samples("eos", slug)]


def test_every_collected_command_has_a_parser_and_three_samples(lab_mini_state: Any) -> None:
    commands = Collector().commands(lab_mini_state[1].devices["spine2"])
    assert {c.slug for c in commands} == set(PARSERS)
    assert {slug: len(samples("eos", slug)) >= 3 for slug in PARSERS} == dict.fromkeys(PARSERS, True)


@pytest.mark.parametrize(
    ("slug", "sample"),
    CASES,
    ids=[f"{s}/{i}" for (s, _), i in zip(CASES, sample_ids([p for _, p in CASES]), strict=True)],
)
def test_parser_reads_the_sample_as_expected(slug: str, sample: Path) -> None:
    expected, got = expected_for(sample, PARSERS[slug](read_sample(sample)))
    assert got == expected
