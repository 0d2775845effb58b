"""Disruptions of the lab itself, for tests: take a cable end down (the real veth), stop a daemon by PID.

Not the named fault classes (``xoff.lab.faults``: an operator's mistake, seeded through the device's own
CLI and caught by a check), nor the emulators' session faults (``faults.json``, ``SessionFaults`` in
``emulators/base.py``: refuse the Nth command, drop the session, answer slowly). ``lab up`` heals a
stopped daemon (it starts what is not alive), ``set_port(..., up=True)`` a downed port.
"""

from __future__ import annotations

from xoff.lab import netns, processes
from xoff.lab.state import LabState


def set_port(state: LabState, device: str, port: str, *, up: bool) -> None:
    """``ip link set <port> up|down`` in the device's namespace; ``port`` is the intent's name.
    A veth end going down takes the carrier of the other end with it, as a pulled cable would."""
    ifname = {p: i for i, p in state.ifname_to_port(device).items()}.get(port)
    if ifname is None:
        raise KeyError(f"{device}: no cabled port {port!r} in lab {state.name}")
    netns.ip(["link", "set", ifname, "up" if up else "down"], netns=state.devices[device].netns)


def stop_process(state: LabState, key: str) -> None:
    """End one of the lab's processes (``leaf1/bgpd``, ``sm01/opensm``...) by its PID."""
    record = state.processes.get(key)
    if record is None:
        raise KeyError(f"no process {key!r} in lab {state.name} (processes: {', '.join(state.processes)})")
    left = processes.stop([record])
    if left:
        raise RuntimeError(f"{key}: PID {record.pid} did not end")
