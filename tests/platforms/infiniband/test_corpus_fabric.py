"""The real-format corpus of the fabric-wide and per-port infiniband-diags commands the InfiniBand collector
runs on the subnet manager host (``platforms/infiniband/collect.py``): every sample under
``tests/fixtures/real/infiniband/<command>/`` parsed and compared with the expected file beside it. The
format of each sample and its source: tests/fixtures/real/infiniband/README.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.contracts.collect import Command
from xoff.platforms.infiniband import parse

PARSERS: dict[str, Callable[[str], Any]] = {
    Command("ibnetdiscover").slug: parse.ibnetdiscover,
    Command("dump_fts").slug: parse.dump_fts,
    Command("iblinkinfo").slug: parse.iblinkinfo,
    Command("smpquery sl2vl LID PORT").slug: parse.smpquery_sl2vl,
    Command("smpquery vlarb LID PORT").slug: parse.smpquery_vlarb,
    Command("smpquery pkeys LID PORT").slug: parse.smpquery_pkeys,
    Command("saquery --smkey KEY PKeyTableRecord LID/PORT").slug: parse.saquery_pkey_records,
    Command("opensm log").slug: parse.opensm_log,  # OpenSM's log file (opensm -f), captured as opensm.log
}
CASES = [(slug, path) for slug in PARSERS for path in samples("infiniband", slug)]


@pytest.mark.parametrize("slug", sorted(PARSERS))
def test_every_command_has_three_samples(slug: str) -> None:
    assert len(samples("infiniband", slug)) >= 3, slug


@pytest.mark.parametrize(
    ("slug", "sample"),
    CASES,
    ids=[f"{s}/{i}" for (s, _), i in zip(CASES, sample_ids([p for _, p in CASES]), strict=True)],
)
def test_parser_on_sample(slug: str, sample: Path) -> None:
    want, got = expected_for(sample, PARSERS[slug](read_sample(sample)))
    assert got == want
