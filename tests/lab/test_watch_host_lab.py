"""A lab host's watch readings, read over SSH the way ``xoff watch`` reads a real host (the commands of
``host_commands``, parsed by ``host_readings``): flat where nothing is wrong, moving once a fault is seeded,
flat again after its undo; and the real pynvml on the host, through the lab's ``libnvidia-ml.so.1``, sees the
same GPU clocks as ``nvidia-smi``.

The smallest lab with a GPU host on a RoCE rail (tests/fixtures/intents/watch-host: one SONiC leaf, one host),
brought up once for the module and not pushed: the host's factory state has what the faults change. Waits are on
conditions: "flat" means unchanged while the port's traffic counter (moving at 1000 packets/s) advanced by at
least a second's worth.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import xoff
from tests.support.labs import running_lab
from tests.support.paths import ROOT
from tests.support.waiting import SETTLE_S
from xoff.connect.batch import Ran
from xoff.lab.faults import FAULTS, Lab, seed, undo
from xoff.lab.faults.record import WATCH
from xoff.platforms.linux.counters import ethtool_stats, parse_ethtool_stats
from xoff.watch.host_readings import HostRead, host_commands, host_readings, read_host

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "watch-host"
LAB = f"wh{os.getpid()}"
HOST = "gpu1"


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    with running_lab(INTENT, LAB, prefix="xoff-watch-host-labs-"):
        yield Lab(LAB)


def read(lab: Lab) -> tuple[HostRead, int]:
    """One read of the host (each command over SSH) and the port's rx_packets, the clock "flat" is judged by."""
    device = lab.connection.fabric.devices[HOST]
    outputs = {c.text: lab.run(HOST, c.text) for c in host_commands(device)}
    packets = parse_ethtool_stats(outputs[ethtool_stats("eth0").text])["rx_packets"]
    return host_readings(outputs, device), packets


def value(r: HostRead, metric: str, **labels: str) -> float | None:
    found = [x.value for x in r.readings if x.metric == metric and dict(x.labels) == labels]
    assert len(found) == 1, (metric, labels, found)
    return found[0]


def discards(r: HostRead) -> float | None:
    return value(r, "xoff_nic_rx_discards_phy_total", port="eth0")


def sm_clock(r: HostRead) -> float | None:
    return value(r, "xoff_gpu_sm_clock_hertz", gpu="0")


def flat_for_a_second(lab: Lab, first: HostRead, packets: int) -> HostRead:
    """Reads until the port moved a second's worth of traffic; the last read."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        now, moved = read(lab)
        if moved >= packets + 1000:
            return now
        assert time.monotonic() < deadline, "the port's traffic counter did not move"


def until(lab: Lab, what: str, ok: object) -> HostRead:
    deadline = time.monotonic() + SETTLE_S
    while True:
        r, _ = read(lab)
        if ok(r):  # type: ignore[operator]
            return r
        assert time.monotonic() < deadline, f"never: {what}"


def nvml(lab: Lab) -> list[dict[str, int | None]]:
    """The GPUs as the real pynvml sees them on the host (its library path has the lab's libnvidia-ml.so.1)."""
    src = shlex.quote(str(Path(xoff.__file__).resolve().parents[1]))
    out = lab.run(HOST, f"PYTHONPATH={src} {shlex.quote(sys.executable)} -m xoff.watch.nvml")
    return [json.loads(line) for line in out.splitlines()]


def test_quiet_host_stays_flat(lab: Lab) -> None:
    first, packets = read(lab)
    assert first.errors == [] and first.sample(HOST, time.time()).error is None
    later = flat_for_a_second(lab, first, packets)
    assert discards(first) == discards(later) == 0
    assert sm_clock(first) == sm_clock(later) == 1980e6
    assert value(later, "xoff_gpu_clock_event_active", gpu="0", reason="hw_slowdown") == 0.0
    assert value(later, "xoff_nic_out_of_buffer_total", port="eth0") == 0
    # PFC is off on a factory NIC: the driver prints no pause counters, so the lossless priority's are not observed
    assert value(later, "xoff_nic_pfc_rx_pause_frames_total", port="eth0", priority="3") is None


def test_nic_discards_move_when_seeded_and_stop_after_undo(lab: Lab) -> None:
    before, _ = read(lab)
    seed(lab, "nic-discards")
    try:
        risen = until(lab, "rx_discards_phy rises", lambda r: (discards(r) or 0) > (discards(before) or 0))
        assert sm_clock(risen) == 1980e6  # the GPU untouched
    finally:
        undo(lab, "nic-discards")
    stopped, packets = read(lab)
    assert discards(flat_for_a_second(lab, stopped, packets)) == discards(stopped)


def test_one_batch_read_is_a_sample(lab: Lab) -> None:
    """``read_host``: every command in one SSH exec channel (``xoff.connect.batch``), as the SSH source reads."""

    def runner(script: str, _timeout: float) -> Ran:
        return Ran(0, lab.run(HOST, script), "")

    sample = read_host(runner, lab.connection.fabric.devices[HOST], time.time)
    assert sample.error is None and sample.device == HOST
    got = {(r.metric, dict(r.labels).get("port")): r.value for r in sample.readings if "gpu" not in r.metric}
    assert got[("xoff_nic_rx_discards_phy_total", "eth0")] is not None
    assert got[("xoff_nic_cnp_sent_total", "eth0")] == 0
    assert "rx_packets" in sample.unmodelled


def test_gpu_throttle_is_seen_by_nvidia_smi_and_pynvml_alike(lab: Lab) -> None:
    assert [(g["index"], g["sm_mhz"], g["reasons"]) for g in nvml(lab)] == [(0, 1980, 0)]
    seed(lab, "gpu-throttle")
    try:
        slow = until(lab, "the SM clock drops", lambda r: sm_clock(r) == 800e6)
        assert value(slow, "xoff_gpu_max_sm_clock_hertz", gpu="0") == 1980e6
        assert value(slow, "xoff_gpu_clock_event_active", gpu="0", reason="hw_slowdown") == 1.0
        assert value(slow, "xoff_gpu_clock_event_active", gpu="0", reason="hw_thermal_slowdown") == 1.0
        assert value(slow, "xoff_gpu_clock_event_active", gpu="0", reason="sw_power_cap") == 0.0
        assert [(g["index"], g["sm_mhz"], g["max_sm_mhz"], g["reasons"]) for g in nvml(lab)] == [(0, 800, 1980, 0x48)]
    finally:
        undo(lab, "gpu-throttle")
    back = until(lab, "the SM clock is back", lambda r: sm_clock(r) == 1980e6)
    assert value(back, "xoff_gpu_clock_event_active", gpu="0", reason="hw_slowdown") == 0.0


def test_every_host_watch_fault_is_tested_here() -> None:
    """The hosts' watch faults in the catalogue are the ones this module seeds: a new one is tested, not forgotten."""
    hosts = {f.name for f in FAULTS.values() if f.check.startswith(WATCH) and f.platform == "linux"}
    assert hosts == {"gpu-throttle", "nic-discards"}
