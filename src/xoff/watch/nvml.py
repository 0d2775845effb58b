"""GPU clocks read in-process through NVML (``pynvml``, NVIDIA's nvidia-ml-py): for ``xoff watch`` running on the
GPU host itself (a node agent), and the reference the ``nvidia-smi --query-gpu`` path is held to.

The same facts as ``xoff.platforms.linux.counters.parse_gpu_clocks`` reads from nvidia-smi's CSV: the SM clock
(``nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM)``), its maximum (``nvmlDeviceGetMaxClockInfo``) and the active
clock-event reasons (``nvmlDeviceGetCurrentClocksEventReasons``). A call the GPU answers with
``NVML_ERROR_NOT_SUPPORTED`` is a value not observed (None).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pynvml  # type: ignore[import-untyped]

from xoff.watch.gpu import GpuClocks


def _or_none(call: Callable[..., Any], *args: Any) -> int | None:
    try:
        return int(call(*args))
    except pynvml.NVMLError_NotSupported:
        return None


def read_gpu_clocks() -> list[GpuClocks]:
    """Every GPU of this host. Raises ``pynvml.NVMLError`` when NVML cannot start (no driver, no library)."""
    pynvml.nvmlInit()
    try:
        out = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            out.append(
                GpuClocks(
                    index=i,
                    sm_mhz=_or_none(pynvml.nvmlDeviceGetClockInfo, h, pynvml.NVML_CLOCK_SM),
                    max_sm_mhz=_or_none(pynvml.nvmlDeviceGetMaxClockInfo, h, pynvml.NVML_CLOCK_SM),
                    reasons=_or_none(pynvml.nvmlDeviceGetCurrentClocksEventReasons, h),
                )
            )
        return out
    finally:
        pynvml.nvmlShutdown()


if __name__ == "__main__":  # `python -m xoff.watch.nvml`: this host's GPU clocks as JSON lines
    for g in read_gpu_clocks():
        sys.stdout.write(json.dumps(g.__dict__) + "\n")
