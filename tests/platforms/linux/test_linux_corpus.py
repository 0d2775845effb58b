"""Every Linux host parser on every sample of the real-format corpus (tests/fixtures/real/linux/<command>/, sources
in its README.md), compared with the expected file beside each sample. A sample the parser must refuse (output
that hides the fact, such as lspci without root) has its error message as the expected value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import REAL, expected_for, read_sample, samples
from xoff.collect.textfsm import TextParseError
from xoff.platforms.linux import collect, counters, kernel
from xoff.platforms.linux.gids import SHOW_GIDS, parse_show_gids
from xoff.platforms.linux.nic_qos import parse_mlnx_qos
from xoff.platforms.linux.roce_accl import get_command, parse_roce_accl
from xoff.platforms.linux.topo import parse_topo

RAIL_TABLES = {100, 101, 102}
RAIL_PRIORITIES = {1000, 1001, 1002}


def _roce_mode(text: str) -> str | None:
    return collect.ROCE_MODES.get(collect._last_line(text))


def _roce_tos(text: str) -> int:
    return int(collect._last_line(text))


def _routes(text: str) -> dict[str, Any]:
    return {"gateways": kernel.parse_gateways(text), "rail_routes": kernel.parse_routes(text, RAIL_TABLES)}


PARSERS: dict[str, Callable[[str], Any]] = {
    collect.mlnx_qos("NETDEV").slug: parse_mlnx_qos,
    SHOW_GIDS.slug: parse_show_gids,
    collect.TOPO.slug: parse_topo,
    collect.LINKS.slug: collect._links,
    collect.ADDRS.slug: collect._addresses,
    collect.LSMOD.slug: collect._modules,
    collect.LSPCI.slug: collect._acs_enabled,
    collect.NCCL.slug: collect._nccl_env,
    collect.roce_mode("RDMA").slug: _roce_mode,
    collect.roce_tos("RDMA").slug: _roce_tos,
    kernel.ecn("NETDEV").slug: kernel.parse_ecn,
    kernel.IOMMU.slug: kernel.parse_iommu,
    get_command("RDMA").slug: parse_roce_accl,
    kernel.ROUTES.slug: _routes,
    kernel.RULES.slug: lambda text: kernel.parse_rules(text, RAIL_TABLES, RAIL_PRIORITIES),
    counters.ethtool_stats("NETDEV").slug: counters.parse_ethtool_stats,
    counters.hw_counters("RDMA").slug: counters.parse_hw_counters,
    counters.GPU_CLOCKS.slug: counters.parse_gpu_clocks,
}
CASES = [(command, path) for command in sorted(PARSERS) for path in samples("linux", command)]


def _parsed(command: str, text: str) -> Any:
    try:
        return PARSERS[command](text)
    except (ValueError, KeyError, TypeError) as exc:  # what the collector turns into a parse error
        return {"error": str(exc)}


def test_every_collected_command_has_three_samples() -> None:
    thin = {c: len(samples("linux", c)) for c in PARSERS if len(samples("linux", c)) < 3}
    assert not thin, f"commands with fewer than three samples under {REAL / 'linux'}: {thin}"


def test_every_corpus_directory_is_a_collected_command() -> None:
    assert {p.name for p in (REAL / "linux").iterdir() if p.is_dir()} <= set(PARSERS)


@pytest.mark.parametrize(("command", "sample"), CASES, ids=[f"{c[:40]}/{p.stem}" for c, p in CASES])
def test_parser_on_sample(command: str, sample: Path) -> None:
    want, got = expected_for(sample, _parsed(command, read_sample(sample)))
    assert got == want


def test_lspci_and_lsmod_refuse_what_they_cannot_read() -> None:
    """Strict where the output is not what pciutils or kmod print: a changed ACSCtl flag is read, an unknown one
    is a parse error (not 'ACS off'), an lsmod without its header is refused."""
    text = read_sample(REAL / "linux" / "lspci_-vvv" / "pciutils-3.5-acs-off.txt")
    assert collect._acs_enabled(text) == []
    switched_on = text.replace("ACSCtl:\tSrcValid- ", "ACSCtl:\tSrcValid+ ", 1)
    assert collect._acs_enabled(switched_on) == ["5e:08.0"]
    with pytest.raises(TextParseError, match="ACSCtl"):
        collect._acs_enabled(text.replace("ACSCtl:\tSrcValid- TransBlk-", "ACSCtl:\tSrcValid? TransBlk-", 1))
    with pytest.raises(ValueError, match="header"):
        collect._modules("nvidia_peermem 16384 0\n")
