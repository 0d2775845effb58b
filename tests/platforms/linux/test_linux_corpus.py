"""Every Linux host parser on every sample of the real-format corpus (tests/fixtures/real/linux/<command>/, sources
in its README.md), compared with the expected file beside each sample."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.platforms.linux.gids import parse_show_gids
from xoff.platforms.linux.nic_qos import parse_mlnx_qos
from xoff.platforms.linux.topo import parse_topo

PARSERS: dict[str, Callable[[str], Any]] = {
    "mlnx_qos_-i_NETDEV": parse_mlnx_qos,
    "show_gids": parse_show_gids,
    "nvidia-smi_topo_-m": parse_topo,
}
CASES = [(command, path) for command in sorted(PARSERS) for path in samples("linux", command)]


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_every_command_has_three_samples(command: str) -> None:
    assert len(samples("linux", command)) >= 3, f"tests/fixtures/real/linux/{command}: fewer than three samples"


@pytest.mark.parametrize(
    ("command", "sample"),
    CASES,
    ids=[f"{c}/{i}" for c, i in zip([c for c, _ in CASES], sample_ids([p for _, p in CASES]), strict=True)],
)
def test_parser_on_sample(command: str, sample: Path) -> None:
    want, got = expected_for(sample, PARSERS[command](read_sample(sample)))
    assert got == want
