"""Every SONiC counter and watermark parser on every real-format sample of its command
(tests/fixtures/real/sonic/<command>/, sources in that directory's README.md), compared with the expected file
beside each sample."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.contracts.collect import Command
from xoff.platforms.sonic import counters

PARSERS: dict[Command, Callable[[str], Any]] = {
    counters.PFC_COUNTERS: counters.parse_pfc,
    counters.QUEUE_COUNTERS: counters.parse_queues,
    counters.PFCWD_STATS: counters.parse_watchdog,
    counters.PG_HEADROOM: lambda text: counters.parse_pg_watermarks(text, counters.PG_HEADROOM.text),
    counters.PG_SHARED: lambda text: counters.parse_pg_watermarks(text, counters.PG_SHARED.text),
    counters.POOL_WATERMARK: lambda text: counters.parse_pool_watermarks(text, counters.POOL_WATERMARK.text),
    counters.HEADROOM_POOL_WATERMARK: lambda text: counters.parse_pool_watermarks(
        text, counters.HEADROOM_POOL_WATERMARK.text
    ),
}
CASES = [(command, sample) for command in counters.COMMANDS for sample in samples("sonic", command.slug)]


def test_every_collected_counter_command_has_three_samples() -> None:
    assert set(PARSERS) == set(counters.COMMANDS)
    for command in counters.COMMANDS:
        assert len(samples("sonic", command.slug)) >= 3, command.slug


@pytest.mark.parametrize(
    ("command", "sample"),
    CASES,
    ids=[f"{c.slug}/{i}" for (c, _), i in zip(CASES, sample_ids([s for _, s in CASES]), strict=True)],
)
def test_parser_on_corpus(command: Command, sample: Path) -> None:
    want, got = expected_for(sample, PARSERS[command](read_sample(sample)))
    assert got == want


def test_na_is_not_observed_never_zero() -> None:
    (sample,) = [s for s in samples("sonic", counters.PFC_COUNTERS.slug) if s.stem == "multi-asic-backplane-na"]
    pfc = counters.parse_pfc(read_sample(sample))
    assert pfc["Ethernet-BP256"].rx_pause == {} and pfc["Ethernet0"].rx_pause[3] == 7021
    (sample,) = [s for s in samples("sonic", counters.QUEUE_COUNTERS.slug) if s.stem.startswith("202411")]
    queues = counters.parse_queues(read_sample(sample))
    assert sorted(queues["Ethernet0"]) == list(range(10))  # UC0-9; MC10-19 and the N/A ALL20-29 are not unicast


def test_a_newer_release_s_extra_queue_columns_are_unmodelled() -> None:
    text = (
        "For namespace :\n"
        "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes    Trim/pkts\n"
        "---------  -----  --------------  ---------------  -----------  ------------  -----------\n"
        "Ethernet0    UC0               5               10            0             0          N/A\n"
    )
    unmodelled: dict[str, int] = {}
    queues = counters.parse_queues(text, unmodelled)
    assert queues["Ethernet0"][0].packets == 5
    assert unmodelled == {"show queue counters: Trim/pkts": 1}


def test_one_unreadable_command_is_one_error_and_the_others_are_read() -> None:
    (pfc,) = [s for s in samples("sonic", counters.PFC_COUNTERS.slug) if s.stem == "single-asic"]
    outputs = {
        counters.PFC_COUNTERS.text: read_sample(pfc),
        counters.PG_HEADROOM.text: "Ingress headroom per PG:\nsurprise\n",
    }
    errors: list[Any] = []
    ports, pools = counters.read_counters(outputs, "leaf1", errors, {})
    assert [e.command for e in errors] == [counters.PG_HEADROOM.text]
    assert ports["Ethernet0"].pfc.rx_pause[3] == 48213 and ports["Ethernet0"].watermarks is None
    assert pools is None  # no pool watermark command ran: not observed
