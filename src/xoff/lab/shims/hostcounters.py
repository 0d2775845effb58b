"""The counters a lab host's NICs and GPUs show, seeded with the host (``seed.py``) and changed by the lab's faults.

- ``nic_counters[<netdev>]``: the mlx5 ethtool counters of each RoCE port (``ethtool.py`` prints them). Traffic
  counters move at a steady rate from the moment the host is seeded (a busy port); drops, discards, pause frames
  and their durations stay at 0 until a fault sets a rate.
- ``rdma_counters[<rdma>]``: the RDMA device's ``hw_counters`` (out_of_buffer, CNPs sent and handled, ECN-marked
  RoCE packets), all 0.
- ``gpus[i]["clocks"]``: the GPU's NVML clock facts: SM clock and its maximum in MHz and the active clock-event
  reasons mask (NVML's ``nvmlClocksEventReason*`` bits); a seeded GPU runs at its maximum with no reason active.
  ``nvidia-smi --query-gpu`` prints them and the lab's ``libnvidia-ml.so.1`` (``nvml.py``) answers NVML calls
  from them.

A value is a fixed total or ``{"total": N, "per_second": R, "since": T}``: shown as ``floor(N + R * (now - T))``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xoff.desired.models import HostSettings
    from xoff.lab.shims._state import State

MAX_SM_MHZ = {"H100": 1980, "H800": 1980}  # NVIDIA H100/H800 SXM5: max boost SM clock (nvidia-smi clocks.max.sm)
PACKETS_PER_S = 1000.0
BYTES_PER_PACKET = 4096.0
MOVING = ("rx_packets", "tx_packets", "rx_packets_phy", "tx_packets_phy")


def moving(total: float, per_second: float, since: float) -> dict[str, float]:
    return {"total": total, "per_second": per_second, "since": since}


def seed_counters(state: State, host: HostSettings, gpu_model: str, now: float | None = None) -> None:
    """The NIC counters of every RoCE NIC, the RDMA counters of its device, the GPUs' clocks."""
    since = time.time() if now is None else now
    for nic in host.nics.values():
        if nic.roce_mode is None:
            continue
        counters: dict[str, Any] = {name: moving(0, PACKETS_PER_S, since) for name in MOVING}
        for name in ("rx_bytes", "tx_bytes", "rx_bytes_phy", "tx_bytes_phy"):
            counters[name] = moving(0, PACKETS_PER_S * BYTES_PER_PACKET, since)
        state.setdefault("nic_counters", {})[nic.netdev] = counters
        if nic.rdma is not None:
            state.setdefault("rdma_counters", {})[nic.rdma] = {}
    top = MAX_SM_MHZ.get(gpu_model, 1980)
    for gpu in state["gpus"]:
        gpu["clocks"] = {"sm_mhz": top, "max_sm_mhz": top, "reasons": 0}
