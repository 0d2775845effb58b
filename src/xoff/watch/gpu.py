"""One GPU's clock facts as NVML gives them, whichever way they were read (``nvidia-smi --query-gpu``'s CSV,
``xoff.platforms.linux.counters.parse_gpu_clocks``; or pynvml in-process, ``xoff.watch.nvml``). Light on purpose:
``python -m xoff.watch.nvml`` on a host imports only this, the dataclass machinery and pynvml.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuClocks:
    """One GPU's row: clocks in MHz and the active clock-event reasons bitmask; None where not observed."""

    index: int
    sm_mhz: int | None
    max_sm_mhz: int | None
    reasons: int | None
