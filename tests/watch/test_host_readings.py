"""A host's outputs (real-format corpus samples) as watch readings: names from METRICS, units converted, and
what the host did not show is None (not observed), never 0."""

from __future__ import annotations

from functools import cache

import pytest

from tests.support.corpus import REAL, read_sample
from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import Device
from xoff.intent import load_intent
from xoff.platforms.linux.counters import GPU_CLOCKS, ethtool_stats, hw_counters
from xoff.watch.host_readings import host_commands, host_readings
from xoff.watch.metrics import METRICS
from xoff.watch.sample import Reading

LINUX = REAL / "linux"


@cache
def gpu1() -> Device:
    return build_fabric_state(load_intent(ROOT / "inventory" / "lab-mini")).devices["gpu1"]


def _sample(command: str, case: str) -> str:
    return read_sample(LINUX / command / f"{case}.txt")


@cache
def outputs() -> dict[str, str]:
    """gpu1: eth0 a RoCE port with PFC 3 counting, eth1 PFC off (no per-priority pause lines), eth2 not read;
    mlx5_0 a full RoCE set, mlx5_1 an InfiniBand-like set without CNP counters; the GPUs, one throttled."""
    return {
        ethtool_stats("eth0").text: _sample(ethtool_stats("NETDEV").slug, "cx7-roce-pfc-prio3"),
        ethtool_stats("eth1").text: _sample(ethtool_stats("NETDEV").slug, "kernel5.15-cx6dx-global-pause"),
        hw_counters("mlx5_0").text: _sample(hw_counters("RDMA").slug, "kernel5.15-cx6-roce"),
        hw_counters("mlx5_1").text: _sample(hw_counters("RDMA").slug, "ib-port-no-congestion-counters"),
        GPU_CLOCKS.text: _sample(GPU_CLOCKS.slug, "driver550-h100-one-hw-thermal"),
    }


def _value(readings: list[Reading], metric: str, **labels: str | int) -> float | None:
    want = Reading.of(metric, None, **labels).labels
    found = [r.value for r in readings if r.metric == metric and r.labels == want]
    assert len(found) == 1, (metric, labels, found)
    return found[0]


CASES = [
    # metric, labels, value
    ("xoff_nic_pfc_rx_pause_frames_total", {"port": "eth0", "priority": 3}, 301772),
    ("xoff_nic_pfc_tx_pause_frames_total", {"port": "eth0", "priority": 3}, 48120),
    ("xoff_nic_pfc_rx_pause_duration_seconds_total", {"port": "eth0", "priority": 3}, 1.840211),
    ("xoff_nic_rx_discards_phy_total", {"port": "eth0"}, 0),
    ("xoff_nic_rx_discards_phy_total", {"port": "eth1"}, 382311),
    ("xoff_nic_pfc_rx_pause_frames_total", {"port": "eth1", "priority": 3}, None),  # PFC off there: no such line
    ("xoff_nic_rx_discards_phy_total", {"port": "eth2"}, None),  # not read
    ("xoff_nic_pfc_rx_pause_frames_total", {"port": "eth2", "priority": 4}, None),
    ("xoff_nic_cnp_sent_total", {"port": "eth0"}, 40221),
    ("xoff_nic_cnp_handled_total", {"port": "eth0"}, 38871),
    ("xoff_nic_ecn_marked_roce_packets_total", {"port": "eth0"}, 40990),
    ("xoff_nic_out_of_buffer_total", {"port": "eth1"}, 17),
    ("xoff_nic_cnp_sent_total", {"port": "eth1"}, None),  # no congestion counters on that port
    ("xoff_gpu_sm_clock_hertz", {"gpu": 5}, 795e6),
    ("xoff_gpu_max_sm_clock_hertz", {"gpu": 5}, 1980e6),
    ("xoff_gpu_clock_event_active", {"gpu": 5, "reason": "hw_slowdown"}, 1.0),
    ("xoff_gpu_clock_event_active", {"gpu": 5, "reason": "hw_thermal_slowdown"}, 1.0),
    ("xoff_gpu_clock_event_active", {"gpu": 5, "reason": "sw_power_cap"}, 0.0),
    ("xoff_gpu_clock_event_active", {"gpu": 0, "reason": "hw_slowdown"}, 0.0),
    ("xoff_gpu_sm_clock_hertz", {"gpu": 0}, 1980e6),
]


@pytest.mark.parametrize(
    ("metric", "labels", "value"), CASES, ids=[f"{m}-{'-'.join(map(str, lb.values()))}" for m, lb, _ in CASES]
)
def test_reading(metric: str, labels: dict[str, str | int], value: float | None) -> None:
    got = _value(host_readings(outputs(), gpu1()).readings, metric, **labels)
    assert got == (pytest.approx(value) if value is not None else None)


def test_every_reading_is_a_host_metric_with_its_labels() -> None:
    for r in host_readings(outputs(), gpu1()).readings:
        m = METRICS[r.metric]
        assert m.on == "host"
        assert {k for k, _ in r.labels} == set(m.labels), r


def test_what_is_not_modelled_is_counted_and_what_was_not_read_is_said() -> None:
    read = host_readings(outputs(), gpu1())
    assert read.unmodelled["rx_out_of_buffer"] == 2  # eth0 and eth1 print it; xoff reads out_of_buffer instead
    assert read.unmodelled["rx_write_requests"] == 2
    assert "rx_prio3_pause" not in read.unmodelled
    assert any(e.startswith("ethtool -S eth2: not read") for e in read.errors)
    sample = read.sample("gpu1", 1.0)
    assert sample.error is None  # something was read: the host is not "down"
    assert sample.unmodelled == read.unmodelled


def test_nothing_read_is_an_error_sample_not_a_quiet_host() -> None:
    read = host_readings({}, gpu1())
    assert all(r.value is None for r in read.readings)
    assert read.sample("gpu1", 1.0).error is not None


def test_commands_one_batch_per_host() -> None:
    texts = [c.text for c in host_commands(gpu1())]
    assert texts[:2] == ["ethtool -S eth0", hw_counters("mlx5_0").text]
    assert texts[-1] == GPU_CLOCKS.text
    assert len(texts) == 3 * 2 + 1


def test_garbage_is_a_parse_error_not_zero() -> None:
    read = host_readings({**outputs(), ethtool_stats("eth0").text: "ethtool: bad command line argument(s)\n"}, gpu1())
    assert _value(read.readings, "xoff_nic_rx_discards_phy_total", port="eth0") is None
    assert any("ethtool -S eth0" in e for e in read.errors)
