"""Host fault classes ``xoff watch`` catches (not ``xoff validate``): what only the hardware makes, set behind the
tools that show it (the host shims' state, ``xoff.lab.shims.hostcounters``), and undone the same way.

- ``gpu-throttle``: one GPU's SM clock drops from its maximum to 800 MHz with NVML's HW slowdown and HW thermal
  slowdown reasons active (a failing fan or a hot inlet): the straggler every collective waits for. Undo: the
  clock back at its maximum, no reason active (the slowdown ended).
- ``nic-discards``: the port's ``rx_discards_phy`` rises at a steady rate (the NIC is out of receive buffer: a host
  that cannot drain its rings). Undo: the rise stops; the total stays where it got to, as a real counter does.

Their checks are the watch signals (``watch.gpu_straggler``, ``watch.nic_discards``), judged on rates over a
window, so they are kept out of the validate fault suite (their check is a ``watch.`` signal: ``tests/lab/test_watch_host_lab.py`` runs them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.nic import nic_of
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Step, Steps, Target
from xoff.lab.shims._state import HostRoot
from xoff.lab.shims.ethtool import value_at
from xoff.lab.shims.hostcounters import moving
from xoff.lab.shims.nvml import write_facts

THROTTLED_MHZ = 800
THROTTLE_REASONS = 0x8 | 0x40  # NVML nvmlClocksEventReasonHwSlowdown | nvmlClocksEventReasonHwThermalSlowdown
DISCARDS_PER_S = 5000.0


def _host_state(change: Callable[[dict[str, Any], Lab, Target], None]) -> Step:
    """The hardware behind the host's tools: the shims' state file, under its lock (and NVML's facts after it)."""

    def step(lab: Lab, t: Target) -> None:
        root = HostRoot(lab.device_dir(t.device) / "root")
        with root.state(write=True) as state:
            change(state, lab, t)
            write_facts(root.root, state)

    return step


def _gpu(state: dict[str, Any], t: Target) -> dict[str, Any]:
    index = t.priority or 0  # the GPU index rides in the target's number field
    gpu = next((g for g in state["gpus"] if g["index"] == index), None)
    if gpu is None or "clocks" not in gpu:
        raise SeedError(f"{t.device}: no GPU {index} with NVML clock facts")
    clocks: dict[str, Any] = gpu["clocks"]
    return clocks


def _throttle(on: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    def change(state: dict[str, Any], _lab: Lab, t: Target) -> None:
        clocks = _gpu(state, t)
        if on:
            clocks.update(sm_mhz=min(THROTTLED_MHZ, clocks["max_sm_mhz"]), reasons=THROTTLE_REASONS)
        else:
            clocks.update(sm_mhz=clocks["max_sm_mhz"], reasons=0)

    return change


def _discards(rising: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    def change(state: dict[str, Any], lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        counters = state.get("nic_counters", {}).get(nic.netdev)
        if counters is None:
            raise SeedError(f"{t.device}: {nic.netdev} has no NIC counters in the shims' state")
        now = time.time()
        total = value_at(counters.get("rx_discards_phy", 0), now)
        counters["rx_discards_phy"] = moving(total, DISCARDS_PER_S, now) if rising else total

    return change


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="gpu-throttle",
        title="A GPU throttled (HW slowdown, thermal): the straggler",
        how="the GPU's SM clock at 800 MHz of its 1980 with NVML's HW slowdown and HW thermal slowdown reasons "
        "active (the shims' NVML facts; `nvidia-smi --query-gpu` and NVML show it)",
        check="watch.gpu_straggler",
        concern=Concern.COUNTERS,
        target=Target("gpu1"),  # GPU 0; another GPU: its index in the target's priority (`--priority N`)
        platform="linux",
        steps=Steps(seed=_host_state(_throttle(True)), undo=_host_state(_throttle(False))),
        names=("device",),
    ),
    Fault(
        name="nic-discards",
        title="A host NIC discarding for lack of receive buffer",
        how="the port's `rx_discards_phy` rising at 5000/s (the shims' mlx5 counters; `ethtool -S` shows it)",
        check="watch.nic_discards",
        concern=Concern.COUNTERS,
        target=Target("gpu1", "eth0"),
        platform="linux",
        steps=Steps(seed=_host_state(_discards(True)), undo=_host_state(_discards(False))),
        names=("device", "port"),
    ),
)
