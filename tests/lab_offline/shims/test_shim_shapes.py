"""Every lab host shim's output, read by the collector's parser, has the shape of the real-format corpus
(tests/fixtures/real/linux/, sources in its README): no key or value type that no real sample has."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import covers, jsonable, samples, shape
from tests.support.shim_host import ShimHost
from xoff.lab.shims import show_gids
from xoff.platforms.linux import collect, counters
from xoff.platforms.linux.gids import SHOW_GIDS, parse_show_gids
from xoff.platforms.linux.nic_qos import parse_mlnx_qos
from xoff.platforms.linux.roce_accl import get_command, parse_roce_accl
from xoff.platforms.linux.topo import parse_topo

# (corpus command, the shim calls that set a state first, the call whose output is read, its parser)
RUNS: list[tuple[str, list[tuple[str, ...]], tuple[str, ...], Callable[[str], Any]]] = [
    ("mlnx_qos_-i_NETDEV", [], ("mlnx_qos", "-i", "eth0"), parse_mlnx_qos),
    (
        "mlnx_qos_-i_NETDEV",
        [
            ("mlnx_qos", "-i", "eth0", "--trust", "dscp"),
            ("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0"),
            ("mlnx_qos", "-i", "eth0", "--tsa", "ets,ets,ets,ets,ets,ets,strict,ets", "--tcbw", "50,0,0,50,0,0,0,0"),
            ("mlnx_qos", "-i", "eth0", "--cable_len", "10"),
        ],
        ("mlnx_qos", "-i", "eth0"),
        parse_mlnx_qos,
    ),
    ("nvidia-smi_topo_-m", [], ("nvidia-smi", "topo", "-m"), parse_topo),
    ("lsmod", [], ("lsmod",), collect._modules),
    ("lspci_-vvv", [], ("lspci", "-vvv"), collect._acs_enabled),
    ("cma_roce_mode_-d_RDMA_-p_1", [], ("cma_roce_mode", "-d", "mlx5_0", "-p", "1"), collect._last_line),
    (
        "cma_roce_tos_-d_RDMA_-p_1",
        [],
        ("cma_roce_tos", "-d", "mlx5_0", "-p", "1"),
        lambda t: int(collect._last_line(t)),
    ),
    (SHOW_GIDS.slug, [], ("show_gids",), parse_show_gids),
    (
        counters.ethtool_stats("NETDEV").slug,
        [("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0")],
        ("ethtool", "-S", "eth0"),
        counters.parse_ethtool_stats,
    ),
    (
        counters.GPU_CLOCKS.slug,
        [],
        ("nvidia-smi", "--query-gpu=index,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active", "--format=csv"),
        counters.parse_gpu_clocks,
    ),
    (
        get_command("RDMA").slug,
        [("mlxreg", "-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--set", "adaptive_routing_forced_en=0x1", "--yes")],
        ("mlxreg", "-d", "mlx5_0", "--reg_name", "ROCE_ACCL", "--get"),
        parse_roce_accl,
    ),
]


def _merge(a: Any, b: Any) -> Any:
    """Two shapes as one; a field null in one sample and filled in another takes the filled shape (the corpus
    shows both: ``covers`` then holds the shim's filled value to it)."""
    if a == "null" or a is None:
        return b
    if b == "null":
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a.get(k), b[k]) if k in b else a[k] for k in sorted(set(a) | set(b))}
    if isinstance(a, list) and isinstance(b, list):
        return [_merge(a[0] if a else None, b[0])] if b else a
    return a if a == b else "|".join(sorted(set(str(a).split("|")) | set(str(b).split("|"))))


def _corpus_shape(command: str) -> Any:
    """The merged shape of the command's expected files, refusals (``{"error": ...}``) left out."""
    merged: Any = None
    for sample in samples("linux", command):
        value = json.loads(sample.with_name(sample.stem + ".expected.json").read_text())
        if not (isinstance(value, dict) and set(value) == {"error"}):
            merged = _merge(merged, shape(value))
    return merged


def _problems(command: str, parsed: Any) -> list[str]:
    return covers(_corpus_shape(command), shape(jsonable(parsed)))


@pytest.mark.parametrize(("command", "setup", "call", "parse"), RUNS, ids=[f"{r[0]}-{len(r[1])}" for r in RUNS])
def test_shim_output_has_the_corpus_shape(
    tmp_path: Path, command: str, setup: list[tuple[str, ...]], call: tuple[str, ...], parse: Callable[[str], Any]
) -> None:
    host = ShimHost(tmp_path)
    for step in setup:
        host.ok(*step)
    parsed = parse(host.ok(*call))
    assert not _problems(command, parsed)


def test_show_gids_table_has_the_corpus_shape() -> None:
    """The table the shim builds for a RoCE port with an IPv4 and a global IPv6 address (outside a namespace
    the shim finds no netdev, so the table is built here from the same functions)."""
    gids = show_gids.port_gids(
        "b8:3f:d2:11:2a:40",
        [
            {"family": "inet", "local": "198.18.0.5", "prefixlen": 31},
            {"family": "inet6", "local": "fd00:198:18::5", "prefixlen": 64, "scope": "global"},
            {"family": "inet6", "local": "fe80::ba3f:d2ff:fe11:2a40", "prefixlen": 64, "scope": "link"},
        ],
    )
    text = "\n".join(
        [show_gids.HEADER, show_gids.RULE, *show_gids.table_lines("mlx5_0", "eth0", gids), "n_gids_found=6"]
    )
    parsed = parse_show_gids(text + "\n")
    assert parsed is not None
    assert [(g.index, g.version, g.ipv4) for g in parsed] == [
        (0, "v1", None),
        (1, "v2", None),
        (2, "v1", "198.18.0.5"),
        (3, "v2", "198.18.0.5"),
        (4, "v1", None),
        (5, "v2", None),
    ]
    assert parsed[0].gid == "fe80:0000:0000:0000:ba3f:d2ff:fe11:2a40"
    assert parsed[4].gid == "fd00:0198:0018:0000:0000:0000:0000:0005"
    assert not _problems(SHOW_GIDS.slug, parsed)
