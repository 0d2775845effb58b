"""One host's counters for ``xoff watch``: the commands (one SSH batch) and their outputs as ``Reading``s.

Per RoCE NIC: ``ethtool -S <netdev>`` (PFC pause frames sent/received and pause duration per priority,
``rx_discards_phy``) and the RDMA device's ``hw_counters`` (``out_of_buffer``, CNPs sent and handled, ECN-marked
RoCE packets). Per host with GPUs: the GPUs' SM clock, its maximum and the active clock-event reasons, read from
NVML through ``nvidia-smi --query-gpu`` (whose columns are NVML's values; see ``xoff.platforms.linux.counters``).
Why ``nvidia-smi`` and not a ``python3 -c`` running pynvml on the host: nvidia-smi ships with every driver,
while a host's Python may lack nvidia-ml-py; both read the same NVML calls. The reason bits are NVML's
constants as ``pynvml`` exports them (nvml.h, "nvmlClocksEventReasons"); ``xoff.watch.nvml`` reads the same
facts in-process through pynvml where xoff runs on the GPU host itself.

``host_commands(device)`` lists the commands; ``host_readings(outputs, device)`` turns the outputs (command
text -> output; a command missing from it was not read) into readings named by ``METRICS``. A series the host
should have but did not show (a lossless priority's pause counter missing, an N/A clock, a command not read) is
a reading with value None: not observed, never 0. Counters the outputs carry that xoff does not model are
counted in ``unmodelled`` by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import pynvml  # type: ignore[import-untyped]

from xoff.connect.batch import ScriptRunner, run_batch
from xoff.contracts.collect import Command
from xoff.desired.models import Device, HostNic
from xoff.platforms.linux.counters import (
    GPU_CLOCKS,
    ethtool_stats,
    hw_counters,
    parse_ethtool_stats,
    parse_gpu_clocks,
    parse_hw_counters,
)
from xoff.watch.sample import Reading, Sample

T = TypeVar("T")
MHZ = 1_000_000
US = 1e-6

# NVML's clock-event reasons (nvml.h nvmlClocksEventReason*), label value -> bit
REASONS: dict[str, int] = {
    "gpu_idle": pynvml.nvmlClocksEventReasonGpuIdle,
    "applications_clocks_setting": pynvml.nvmlClocksEventReasonApplicationsClocksSetting,
    "sw_power_cap": pynvml.nvmlClocksEventReasonSwPowerCap,
    "hw_slowdown": pynvml.nvmlClocksEventReasonHwSlowdown,
    "sync_boost": pynvml.nvmlClocksEventReasonSyncBoost,
    "sw_thermal_slowdown": pynvml.nvmlClocksEventReasonSwThermalSlowdown,
    "hw_thermal_slowdown": pynvml.nvmlClocksEventReasonHwThermalSlowdown,
    "hw_power_brake_slowdown": pynvml.nvmlClocksEventReasonHwPowerBrakeSlowdown,
    "display_clock_setting": pynvml.nvmlClocksEventReasonDisplayClockSetting,
}

# mlx5 ethtool counter (per priority p) -> metric, scale
PRIO_COUNTERS = {
    "rx_prio{p}_pause": ("xoff_nic_pfc_rx_pause_frames_total", 1.0),
    "tx_prio{p}_pause": ("xoff_nic_pfc_tx_pause_frames_total", 1.0),
    "rx_prio{p}_pause_duration": ("xoff_nic_pfc_rx_pause_duration_seconds_total", US),  # microseconds
}
PORT_COUNTERS = {"rx_discards_phy": "xoff_nic_rx_discards_phy_total"}
HW_COUNTERS = {
    "out_of_buffer": "xoff_nic_out_of_buffer_total",
    "np_cnp_sent": "xoff_nic_cnp_sent_total",
    "rp_cnp_handled": "xoff_nic_cnp_handled_total",
    "np_ecn_marked_roce_packets": "xoff_nic_ecn_marked_roce_packets_total",
}


@dataclass
class HostRead:
    """What one host's outputs gave: readings, what xoff does not model, and what could not be read."""

    readings: list[Reading] = field(default_factory=list)
    unmodelled: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def sample(self, device: str, at: float, source: str = "ssh") -> Sample:
        """The Sample of this read; an error only when nothing at all was read."""
        observed = any(r.value is not None for r in self.readings)
        error = "; ".join(self.errors) if self.errors and not observed else None
        return Sample(device, at, tuple(self.readings), error, source, dict(self.unmodelled))


def roce_nics(device: Device) -> list[HostNic]:
    """The host's RoCE NICs (the ones with mlx5 Ethernet counters), in the intent's order."""
    return [n for n in device.host.nics.values() if n.roce_mode is not None] if device.host is not None else []


def host_commands(device: Device) -> list[Command]:
    """The commands of one read of ``device`` (a host), in the order one SSH batch runs them."""
    out: list[Command] = []
    for nic in roce_nics(device):
        out.append(ethtool_stats(nic.netdev))
        if nic.rdma is not None:
            out.append(hw_counters(nic.rdma))
    if device.host is not None and device.host.gpus:
        out.append(GPU_CLOCKS)
    return out


def host_readings(outputs: Mapping[str, str], device: Device) -> HostRead:
    """The readings of one read of ``device`` from its commands' outputs (see the module doc)."""
    read = HostRead()
    for nic in roce_nics(device):
        _nic(read, outputs, nic)
    if device.host is not None and device.host.gpus:
        _gpus(read, outputs, device.host.gpus)
    return read


def read_host(run_script: ScriptRunner, device: Device, at: Callable[[], float], timeout: float = 30.0) -> Sample:
    """One read of ``device`` in one batch (``xoff.connect.batch``: one SSH exec channel on a real host): its
    Sample, taken at ``at()`` when the batch returned. A command that exited non-zero or never finished is not
    read (its series None, the reason in the errors)."""
    commands = host_commands(device)
    results, _ = run_batch(run_script, [c.text for c in commands], timeout)
    outputs: dict[str, str] = {}
    failed: list[str] = []
    for command, ran in zip(commands, results, strict=True):
        if ran is None:
            failed.append(f"{command.text}: did not finish")
        elif ran.status != 0:
            last = (ran.stderr.strip() or ran.stdout.strip()).splitlines()[-1:] or [""]
            failed.append(f"{command.text}: exited {ran.status}: {last[0][:200]}")
        else:
            outputs[command.text] = ran.stdout
    read = host_readings(outputs, device)
    read.errors = failed + [e for e in read.errors if not e.endswith(": not read")]
    return read.sample(device.name, at())


def _parsed(read: HostRead, outputs: Mapping[str, str], command: Command, parse: Callable[[str], T]) -> T | None:
    text = outputs.get(command.text)
    if text is None:
        read.errors.append(f"{command.text}: not read")
        return None
    try:
        return parse(text)
    except ValueError as e:
        read.errors.append(f"{command.text}: {e}")
        return None


def _nic(read: HostRead, outputs: Mapping[str, str], nic: HostNic) -> None:
    port = nic.netdev
    stats = _parsed(read, outputs, ethtool_stats(port), parse_ethtool_stats)
    modelled: set[str] = set()
    lossless = {p for p, on in enumerate(nic.pfc) if on}
    for p in range(8):
        for pattern, (metric, scale) in PRIO_COUNTERS.items():
            name = pattern.format(p=p)
            modelled.add(name)
            value = None if stats is None else stats.get(name)
            if value is not None or p in lossless:
                read.readings.append(
                    Reading.of(metric, None if value is None else value * scale, port=port, priority=p)
                )
    for name, metric in PORT_COUNTERS.items():
        modelled.add(name)
        read.readings.append(Reading.of(metric, None if stats is None else stats.get(name), port=port))
    _unmodelled(read, stats, modelled)
    if nic.rdma is None:
        return
    hw = _parsed(read, outputs, hw_counters(nic.rdma), parse_hw_counters)
    for name, metric in HW_COUNTERS.items():
        read.readings.append(Reading.of(metric, None if hw is None else hw.get(name), port=port))
    _unmodelled(read, hw, set(HW_COUNTERS))


def _unmodelled(read: HostRead, values: Mapping[str, int] | None, modelled: set[str]) -> None:
    for name in values or {}:
        if name not in modelled:
            read.unmodelled[name] = read.unmodelled.get(name, 0) + 1


def _gpus(read: HostRead, outputs: Mapping[str, str], count: int) -> None:
    rows = {g.index: g for g in _parsed(read, outputs, GPU_CLOCKS, parse_gpu_clocks) or []}
    for index in sorted(set(range(count)) | set(rows)):
        g = rows.get(index)
        sm = None if g is None or g.sm_mhz is None else g.sm_mhz * MHZ
        top = None if g is None or g.max_sm_mhz is None else g.max_sm_mhz * MHZ
        read.readings.append(Reading.of("xoff_gpu_sm_clock_hertz", sm, gpu=index))
        read.readings.append(Reading.of("xoff_gpu_max_sm_clock_hertz", top, gpu=index))
        mask = None if g is None else g.reasons
        for reason, bit in REASONS.items():
            active = None if mask is None else float(bool(mask & bit))
            read.readings.append(Reading.of("xoff_gpu_clock_event_active", active, gpu=index, reason=reason))
        if mask is not None and mask & ~sum(REASONS.values()):
            read.unmodelled["clock_event_reason_bits"] = read.unmodelled.get("clock_event_reason_bits", 0) + 1
