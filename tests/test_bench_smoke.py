"""The scale benchmark still runs (tiny size, one run); its numbers live in bench/results/."""

from __future__ import annotations

import subprocess
import sys
from ipaddress import ip_address, ip_network
from itertools import combinations
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from tests.support.paths import ROOT, load_module

BENCH = ROOT / "bench" / "plan_scale.py"


def test_plan_scale_runs_small(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    r = subprocess.run(
        [sys.executable, str(BENCH), "--hosts", "64", "--runs", "1", "--phases", "plan", "--record", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    report = out.read_text()
    assert "64 hosts, 512 GPUs" in report and "| plan:" in report


def _plan_scale() -> ModuleType:
    return load_module("bench_plan_scale", BENCH)


@pytest.mark.parametrize(
    ("gpus", "radix", "switches", "links"), [(10_000, 64, 1664, 30_480), (100_000, 128, 7296, 304_800)]
)
def test_reference_fabric_sizes_and_pools(gpus: int, radix: int, switches: int, links: int, tmp_path: Path) -> None:
    """The generator's shape and address pools at 10k and 100k GPUs (the intent itself loads in the bench)."""
    ps = _plan_scale()
    lay = ps.generate(gpus // 8, tmp_path)
    assert (lay["radix"], lay["leaves"] + lay["spines"] + lay["super_spines"], lay["links"]) == (radix, switches, links)
    pools = ps.pools(lay)
    nets = {k: ip_network(v) for k, v in pools.items() if k != "bmc_first"}
    assert not any(a.overlaps(b) for a, b in combinations(nets.values(), 2))
    assert nets["p2p"].num_addresses >= 2 * links and nets["loopbacks"].num_addresses >= switches
    devices, bmc = switches + gpus // 8, ip_address(pools["bmc_first"])
    assert bmc in nets["mgmt"] and int(nets["mgmt"].network_address) + devices + 1 < int(bmc)
    assert int(bmc) + gpus // 8 < int(nets["mgmt"].broadcast_address)
    fabric = yaml.safe_load((tmp_path / "fabric.yaml").read_text())
    assert fabric["networks"]["compute"]["p2p_prefix"] == pools["p2p"]
    assert len(list((tmp_path / "su").glob("*.yaml"))) == lay["sus"]
