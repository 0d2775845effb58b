"""FRR's parsers on every real-format sample of the commands the SONiC and Cumulus collectors run through vtysh
(tests/fixtures/real/frr/<command>/, sources in its README.md), compared with the expected file beside each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, samples
from xoff.contracts.collect import Command
from xoff.contracts.fib import as_routes
from xoff.platforms.frr.fib import parse_route_json
from xoff.platforms.frr.observe import asn, parse_bgp_summary

PARSERS: dict[Command, Callable[[str], Any]] = {
    Command("vtysh -c 'show bgp summary json'"): parse_bgp_summary,
    Command("vtysh -c 'show ip route json'"): lambda text: as_routes(parse_route_json(text)),
}
CASES = [(c, s) for c in PARSERS for s in samples("frr", c.slug)]


def test_three_samples_or_more_per_command() -> None:
    for command in PARSERS:
        assert len(samples("frr", command.slug)) >= 3, command.slug


@pytest.mark.parametrize(("command", "sample"), CASES, ids=[f"{c.slug}/{s.stem}" for c, s in CASES])
def test_parser_on_corpus(command: Command, sample: Path) -> None:
    want, got = expected_for(sample, PARSERS[command](read_sample(sample)))
    assert got == want


@pytest.mark.parametrize(("printed", "number"), [(65010, 65010), ("1.10", 65546), ("65010", 65010), ("0.1", 1)])
def test_as_notation(printed: int | str, number: int) -> None:
    assert asn(printed) == number
