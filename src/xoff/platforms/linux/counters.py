"""A Linux GPU host's counters: what ``xoff watch`` reads from a host's NICs and GPUs, and the parsers.

- ``ethtool -S <netdev>``: the mlx5 driver's statistics, ``NIC statistics:`` then one ``<name>: <value>``
  per line, indented. The names xoff reads are the mlx5 physical-port counters of NVIDIA's "Understanding mlx5
  ethtool Counters" and the kernel's ``Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst``:
  ``rx_prio<p>_pause`` / ``tx_prio<p>_pause`` (PFC pause frames per priority, only while PFC is on for ``p``),
  ``rx_prio<p>_pause_duration`` (microseconds the port was paused on ``p``) and ``rx_discards_phy`` (packets
  dropped for lack of receive buffer on the physical port).
- ``/sys/class/infiniband/<rdma>/ports/1/hw_counters/*``: the RDMA device's hardware counters, one number per
  file (read with ``grep -H . *``, so ``<name>:<value>`` per line): ``out_of_buffer`` (a receive queue had no
  WQE), ``np_cnp_sent`` (CNPs the notification point sent), ``rp_cnp_handled`` (CNPs the reaction point
  handled), ``np_ecn_marked_roce_packets`` (CE-marked RoCE packets received): NVIDIA's "mlx5 port and hardware
  counters" and the kernel's ``Documentation/ABI/stable/sysfs-class-infiniband``.
- ``nvidia-smi --query-gpu=index,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active --format=csv``: one
  CSV row per GPU, each column NVML's value (``clocks.sm`` = ``nvmlDeviceGetClockInfo(NVML_CLOCK_SM)``,
  ``clocks.max.sm`` = ``nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM)``, the reasons =
  ``nvmlDeviceGetCurrentClocksEventReasons``, a bitmask of NVML's ``nvmlClocksEventReason*`` constants).
  ``clocks_throttle_reasons.active`` is the name every driver accepts (535 and later print the header as
  ``clocks_event_reasons.active``); ``[N/A]`` / ``[Not Supported]`` cells are not observed.

Every parser keeps what it does not model (the other counters) by name, and never makes up a value: a counter
the output lacks is absent, an N/A cell is None.
"""

from __future__ import annotations

import re

from xoff.contracts.collect import Command
from xoff.watch.gpu import GpuClocks

HOST_ROOT = "${XOFF_HOST_ROOT:-}"
GPU_CLOCKS = Command("nvidia-smi --query-gpu=index,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active --format=csv")
_STAT = re.compile(r"^\s+([^:\s][^:]*?):\s+(-?\d+)\s*$")
_HW = re.compile(r"^(?:.*/)?([A-Za-z0-9_]+):(-?\d+)\s*$")
_NOT_OBSERVED = {"[n/a]", "n/a", "[not supported]", "[unknown error]", "[insufficient permissions]", ""}


def ethtool_stats(netdev: str) -> Command:
    return Command(f"ethtool -S {netdev}")


def hw_counters(rdma: str, port: int = 1) -> Command:
    return Command(f'cd "{HOST_ROOT}/sys/class/infiniband/{rdma}/ports/{port}/hw_counters" && grep -H . *')


def parse_ethtool_stats(text: str) -> dict[str, int]:
    """``ethtool -S``: counter name -> value. ValueError when the output is not ethtool's statistics."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or lines[0].strip() != "NIC statistics:":
        raise ValueError("not ethtool -S output (no 'NIC statistics:' line)")
    out: dict[str, int] = {}
    for line in lines[1:]:
        m = _STAT.match(line)
        if m is None:
            raise ValueError(f"not an ethtool statistic: {line.strip()[:80]!r}")
        out[m.group(1)] = int(m.group(2))
    return out


def parse_hw_counters(text: str) -> dict[str, int]:
    """``grep -H . *`` in a hw_counters directory: counter name -> value."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _HW.match(line.strip())
        if m is None:
            raise ValueError(f"not a hw_counters line: {line.strip()[:80]!r}")
        out[m.group(1)] = int(m.group(2))
    if not out:
        raise ValueError("no hw_counters read")
    return out


_COLUMNS = {
    "index": "index",
    "clocks.sm": "sm",
    "clocks.current.sm": "sm",
    "clocks.max.sm": "max",
    "clocks.max_sm": "max",
    "clocks_throttle_reasons.active": "reasons",
    "clocks_event_reasons.active": "reasons",
}


def _cell(text: str) -> str | None:
    value = text.strip()
    return None if value.lower() in _NOT_OBSERVED else value


def _mhz(text: str) -> int | None:
    value = _cell(text)
    if value is None:
        return None
    return int(value.removesuffix("MHz").strip())


def _mask(text: str) -> int | None:
    value = _cell(text)
    return None if value is None else int(value, 16)


def parse_gpu_clocks(text: str) -> list[GpuClocks]:
    """``nvidia-smi --query-gpu=... --format=csv`` (with its header): one record per GPU."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ValueError("no nvidia-smi output")
    header = [h.strip().split(" [", 1)[0] for h in lines[0].split(",")]
    where = {_COLUMNS[h]: i for i, h in enumerate(header) if h in _COLUMNS}
    if "index" not in where:
        raise ValueError(f"not nvidia-smi --query-gpu CSV with a header: {lines[0][:80]!r}")
    out = []
    for line in lines[1:]:
        cells = line.split(",")
        if len(cells) != len(header):
            raise ValueError(f"{len(cells)} cells where the header has {len(header)}: {line[:80]!r}")

        def get(key: str, cells: list[str] = cells) -> str:
            return cells[where[key]] if key in where else ""

        out.append(GpuClocks(int(get("index")), _mhz(get("sm")), _mhz(get("max")), _mask(get("reasons"))))
    return out
