"""The lab host's counters: ``ethtool -S`` (pause counters only for PFC priorities, the moving form), the RDMA
``hw_counters`` files it refreshes, and ``nvidia-smi --query-gpu``'s NVML clock fields; read back by the watch
parsers, as ``xoff watch`` reads a real host."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types
from pathlib import Path

import xoff
from tests.support.shim_host import ShimHost, fabric
from xoff.connect.batch import Ran
from xoff.lab.faults import FAULTS, Lab, Target
from xoff.lab.shims import nvml_dir
from xoff.lab.shims._state import HostRoot
from xoff.lab.shims.hostcounters import moving
from xoff.platforms.linux.counters import parse_ethtool_stats, parse_gpu_clocks, parse_hw_counters
from xoff.watch.host_readings import read_host

QUERY = ("--query-gpu=index,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active", "--format=csv")


def _stats(host: ShimHost, netdev: str = "eth0") -> dict[str, int]:
    return parse_ethtool_stats(host.ok("ethtool", "-S", netdev))


def test_pause_counters_only_for_pfc_priorities(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    assert not [n for n in _stats(host) if "pause" in n]  # factory: PFC off
    host.ok("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0")
    pause = {n: v for n, v in _stats(host).items() if "pause" in n}
    assert pause == {
        "rx_prio3_pause": 0,
        "rx_prio3_pause_duration": 0,
        "tx_prio3_pause": 0,
        "tx_prio3_pause_duration": 0,
        "rx_prio3_pause_transition": 0,
    }
    assert _stats(host)["rx_discards_phy"] == 0


def test_traffic_moves_drops_stay_flat_until_a_rate_is_set(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    first = _stats(host)
    deadline = time.monotonic() + 10
    while (now := _stats(host))["rx_packets"] <= first["rx_packets"]:
        assert time.monotonic() < deadline, "rx_packets never moved"
    assert now["rx_discards_phy"] == first["rx_discards_phy"] == 0
    with HostRoot(host.root).state(write=True) as state:
        state["nic_counters"]["eth0"]["rx_discards_phy"] = moving(100, 1000.0, time.time() - 2)
    assert _stats(host)["rx_discards_phy"] >= 2100


def test_hw_counters_files_are_written_as_of_the_read(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    with HostRoot(host.root).state(write=True) as state:
        state["rdma_counters"]["mlx5_0"]["np_cnp_sent"] = 7
    host.ok("ethtool", "-S", "eth0")
    directory = host.file("/sys/class/infiniband/mlx5_0/ports/1/hw_counters")
    text = "".join(f"{p.name}:{p.read_text()}" for p in sorted(directory.iterdir()))
    counters = parse_hw_counters(text)
    assert counters["np_cnp_sent"] == 7
    assert counters["out_of_buffer"] == counters["rp_cnp_handled"] == 0
    assert not host.file("/sys/class/infiniband/mlx5_1/ports/1/hw_counters").exists()  # eth1 not read yet


def test_unknown_netdev_and_other_options_are_refused(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    assert host.run("ethtool", "-S", "eth9").rc == 1
    assert host.run("ethtool", "-k", "eth0").rc == 1


def test_nvidia_smi_clock_fields(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    text = host.ok("nvidia-smi", *QUERY)
    assert text.splitlines()[0] == "index, clocks.current.sm [MHz], clocks.max.sm [MHz], clocks_event_reasons.active"
    assert text.splitlines()[1] == "0, 1980 MHz, 1980 MHz, 0x0000000000000000"
    with HostRoot(host.root).state(write=True) as state:
        state["gpus"][1]["clocks"] = {"sm_mhz": 800, "max_sm_mhz": 1980, "reasons": 0x48}
    rows = parse_gpu_clocks(host.ok("nvidia-smi", *QUERY))
    assert [(g.index, g.sm_mhz, g.max_sm_mhz, g.reasons) for g in rows] == [(0, 1980, 1980, 0), (1, 800, 1980, 0x48)]
    nounits = host.ok("nvidia-smi", QUERY[0], "--format=csv,noheader,nounits")
    assert nounits.splitlines()[1] == "1, 800, 1980, 0x0000000000000048"


def _nvml(host: ShimHost) -> list[tuple[int, int | None, int | None, int | None]]:
    """The GPUs as the real pynvml reads them through the host's libnvidia-ml.so.1 (a process with the host's
    library path and state root, as an SSH session on a lab host has them)."""
    env = {**host.env(), "LD_LIBRARY_PATH": str(nvml_dir(host.bin)), "XOFF_HOST_ROOT": str(host.root)}
    env["PYTHONPATH"] = str(Path(xoff.__file__).resolve().parents[1])
    proc = subprocess.run(
        [sys.executable, "-m", "xoff.watch.nvml"], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    return [(r["index"], r["sm_mhz"], r["max_sm_mhz"], r["reasons"]) for r in rows]


def test_pynvml_reads_the_same_clocks_as_nvidia_smi(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    assert _nvml(host) == [(0, 1980, 1980, 0), (1, 1980, 1980, 0)]
    lab = Lab.__new__(Lab)  # the fault's step needs only the device directory: a stand-in for the running lab
    lab.device_dir = lambda _device: tmp_path  # type: ignore[method-assign]
    fault = FAULTS["gpu-throttle"]
    fault.seed(lab, Target("gpu1", None, 1))
    smi = [(g.index, g.sm_mhz, g.max_sm_mhz, g.reasons) for g in parse_gpu_clocks(host.ok("nvidia-smi", *QUERY))]
    assert _nvml(host) == smi == [(0, 1980, 1980, 0), (1, 800, 1980, 0x48)]
    fault.undo(lab, Target("gpu1", None, 1))
    assert _nvml(host) == [(0, 1980, 1980, 0), (1, 1980, 1980, 0)]


def test_nic_discards_fault_rises_then_stops(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    lab = Lab.__new__(Lab)
    lab.device_dir = lambda _device: tmp_path  # type: ignore[method-assign]
    lab.connection = types.SimpleNamespace(fabric=fabric("lab-mini"))  # type: ignore[assignment]
    fault = FAULTS["nic-discards"]
    fault.seed(lab, fault.target)
    first = _stats(host)["rx_discards_phy"]
    deadline = time.monotonic() + 10
    while _stats(host)["rx_discards_phy"] <= first:
        assert time.monotonic() < deadline, "rx_discards_phy never rose"
    fault.undo(lab, fault.target)
    stopped = _stats(host)["rx_discards_phy"]
    assert stopped > first
    assert _stats(host)["rx_discards_phy"] == stopped
    assert _stats(host, "eth1")["rx_discards_phy"] == 0  # the other port untouched


def test_read_host_runs_one_batch_against_the_shims(tmp_path: Path) -> None:
    """The watch's read of a host as one ``sh`` script (what one SSH exec channel runs), against the shims."""
    host = ShimHost(tmp_path)
    scripts: list[str] = []

    def runner(script: str, timeout: float) -> Ran:
        scripts.append(script)
        env = {**host.env(), "XOFF_HOST_ROOT": str(host.root)}
        proc = subprocess.run(
            ["sh", "-c", script], env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        return Ran(proc.returncode, proc.stdout, proc.stderr)

    host.ok("mlnx_qos", "-i", "eth0", "--pfc", "0,0,0,1,0,0,0,0")
    sample = read_host(runner, host.device, lambda: 42.0)
    assert len(scripts) == 1 and sample.at == 42.0 and sample.error is None
    got = {(r.metric, r.labels): r.value for r in sample.readings}
    assert got[("xoff_nic_pfc_rx_pause_frames_total", (("port", "eth0"), ("priority", "3")))] == 0
    assert got[("xoff_nic_pfc_rx_pause_frames_total", (("port", "eth2"), ("priority", "4")))] is None  # PFC off
    assert got[("xoff_nic_cnp_handled_total", (("port", "eth1"),))] == 0
    assert got[("xoff_gpu_sm_clock_hertz", (("gpu", "1"),))] == 1980e6
    # a tool that fails is a series not read, with the reason; the rest is still read
    (host.bin / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    sample = read_host(runner, host.device, lambda: 43.0)
    got = {(r.metric, r.labels): r.value for r in sample.readings}
    assert got[("xoff_gpu_sm_clock_hertz", (("gpu", "1"),))] is None
    assert got[("xoff_nic_rx_discards_phy_total", (("port", "eth0"),))] == 0
    assert sample.error is None
