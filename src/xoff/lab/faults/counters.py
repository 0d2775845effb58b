"""Counter fault classes: what only the ASIC raises (a PFC pause storm the watchdog caught, drops on a
lossless queue), set in the counter state the SONiC, EOS and Cumulus emulators print from
(``state/counters.json``, each in its NOS's terms). Undone by putting the file back as it was. The steps
first, then the fault records that name them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Steps, Target, port_of, priority_of

_SN = "sonic"
Change = Callable[[Lab, Target, dict[str, Any]], None]  # sets the fault's counters in the file's data


def _counter_fault(change: Change) -> Steps:
    """Seed: the device's counters.json changed by ``change`` (the file as it was kept beside it, or
    ``null`` when there was none); undo: the kept file put back (or the file removed)."""

    def seed(lab: Lab, t: Target) -> None:
        path = _counters_file(lab, t)
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        change(lab, t, data)
        backup = path.with_name("counters.json.xoff-fault")
        if not backup.exists():
            backup.write_text(path.read_text(encoding="utf-8") if path.exists() else "null\n", encoding="utf-8")
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def undo(lab: Lab, t: Target) -> None:
        path = _counters_file(lab, t)
        backup = path.with_name("counters.json.xoff-fault")
        if backup.exists():
            before = json.loads(backup.read_text(encoding="utf-8"))
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(json.dumps(before, indent=1) + "\n", encoding="utf-8")
            backup.unlink()

    return Steps(seed=seed, undo=undo)


def _counters_file(lab: Lab, t: Target) -> Path:
    return Path(lab.device_dir(t.device)) / "state" / "counters.json"


def _queue(lab: Lab, t: Target, priority: int) -> str:
    """The egress queue the intent maps the lossless priority to."""
    qos = lab.connection.fabric.devices[t.device].qos
    return str(qos.pfc_priority_to_queue.get(priority, priority) if qos is not None else priority)


def _pg(lab: Lab, t: Target, priority: int) -> str:
    """The ingress priority group the intent maps the lossless priority to."""
    qos = lab.connection.fabric.devices[t.device].qos
    return str(qos.pfc_priority_to_priority_group.get(priority, priority) if qos is not None else priority)


def sonic_counters(kind: str) -> Steps:
    """The SONiC emulator's counters on the target's port and queue UC<priority>: ``storm``, a storm the
    watchdog detected and restored (``show pfcwd stats``); ``drops``, drops on the queue (``show queue
    counters``)."""

    def change(_lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, queue = port_of(t), f"UC{priority_of(t)}"
        if kind == "storm":  # the watchdog detected a storm on the queue and restored it
            data.setdefault("pfcwd", {})[f"{port}:{priority_of(t)}"] = {
                "status": "operational",
                "storm_detected": 1,
                "storm_restored": 1,
                "tx_dropped": 1200,
                "rx_dropped": 0,
            }
        else:
            data.setdefault("queue", {}).setdefault(port, {})[queue] = {
                "packets": 1000000,
                "bytes": 4096000000,
                "drop_packets": 1500,
                "drop_bytes": 6144000,
            }

    return _counter_fault(change)


def eos_counters(kind: str) -> Steps:
    """The EOS emulator's counters (in EOS's terms: see ``xoff.lab.emulators.eos.show_counters``) on the
    target's port and lossless queue: ``storm``, pause frames received and a storm the watchdog detected
    and restored; ``drops``, packets dropped on the queue; ``no-ecn``, pause frames sent on the priority
    while the queue's ECN-marked count stays 0 (``show qos interfaces ecn counters queue``)."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t)
        queue = _queue(lab, t, priority)
        if kind == "no-ecn":  # the switch paused its upstream on the priority; ECN never marked
            data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rxFrames": 0, "txFrames": 250000}
            data.setdefault("ecn", {}).setdefault(port, {})[queue] = {"ecnMarked": 0}
        elif kind == "storm":
            data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rxFrames": 1200000, "txFrames": 0}
            data.setdefault("watchdog", {}).setdefault(port, {})[queue] = {"stuckCount": 1, "recoveryCount": 1}
        else:
            data.setdefault("queues", {}).setdefault(port, {})[queue] = {
                "enqueuedPackets": 1000000,
                "enqueuedBytes": 4096000000,
                "droppedPackets": 1500,
                "droppedBytes": 6144000,
            }

    return _counter_fault(change)


def cumulus_counters(kind: str) -> Steps:
    """The Cumulus emulator's counters (in NVUE's terms: see ``xoff.lab.emulators.cumulus.show_counters``)
    on the target's port and lossless priority's queue: ``storm``, pause frames received and a deadlock
    the PFC watchdog detected and restored; ``drops``, unicast buffer discards on the queue."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        port, priority = port_of(t), priority_of(t, 4)
        queue = _queue(lab, t, priority)
        if kind == "storm":
            data.setdefault("pfc", {}).setdefault(port, {})[str(priority)] = {"rx-pause-frames": 1200000}
            data.setdefault("watchdog", {}).setdefault(port, {})[queue] = {"deadlock-count": 1, "status": "OK"}
        else:
            data.setdefault("queues", {}).setdefault(port, {})[queue] = {
                "tx-frames": 1000000,
                "tx-bytes": 4096000000,
                "tx-uc-buffer-discards": 1500,
            }

    return _counter_fault(change)


def _planned_headroom(lab: Lab, t: Target) -> int:
    """The headroom the intent plans for the target's port and lossless PG (its buffer profile's xoff)."""
    buffers = lab.connection.fabric.devices[t.device].buffers
    port, pg = port_of(t), priority_of(t)
    for key, profile in (buffers.port_priority_groups.get(port, {}) if buffers is not None else {}).items():
        first, _, last = key.partition("-")
        if buffers is not None and int(first) <= pg <= int(last or first):
            return buffers.profiles[profile].xoff
    raise SeedError(f"{t.device} {port}: no lossless PG{pg} planned")


def _planned_pool(lab: Lab, t: Target, pool: str) -> int:
    buffers = lab.connection.fabric.devices[t.device].buffers
    sizes = {p.name: p.size for p in buffers.pools} if buffers is not None else {}
    if not sizes.get(pool):
        raise SeedError(f"{t.device}: no planned size for {pool}")
    return int(sizes[pool] or 0)


def sonic_watermarks(kind: str) -> Steps:
    """The SONiC emulator's watermarks (COUNTERS_DB's, as ``show priority-group watermark headroom`` and ``show
    buffer_pool watermark`` print them): ``headroom``, the target port's lossless PG used all the headroom the
    intent plans for it (a longer cable, a peer slow to honour PAUSE); ``pool``, the ingress lossless pool
    filled to its planned size."""

    def change(lab: Lab, t: Target, data: dict[str, Any]) -> None:
        if kind == "headroom":
            marks = data.setdefault("pg_headroom_watermark", {}).setdefault(port_of(t), [0] * 8)
            marks[priority_of(t)] = _planned_headroom(lab, t)
        else:
            pool = "ingress_lossless_pool"
            data.setdefault("buffer_pool_watermark", {})[pool] = _planned_pool(lab, t, pool)

    return _counter_fault(change)


# --- the fault records (catalogue.py orders them) -----------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="pfc-storm",
        title="PFC pause storm",
        how="the watchdog's storm counters in the SONiC emulator (`show pfcwd stats`)",
        check="counters.pfc_storms",
        concern=Concern.COUNTERS,
        target=Target("spine1", "Ethernet8", 3),
        platform=_SN,
        steps=sonic_counters("storm"),
    ),
    Fault(
        name="lossless-drops",
        title="Drops on a lossless queue",
        how="queue drop counters in the SONiC emulator (`show queue counters`)",
        check="counters.lossless_drops",
        concern=Concern.COUNTERS,
        target=Target("leaf1", "Ethernet24", 3),
        platform=_SN,
        steps=sonic_counters("drops"),
    ),
    Fault(
        name="pfc-storm-eos",
        title="PFC pause storm (EOS)",
        how="the watchdog's storm counters in the EOS emulator (`show priority-flow-control counters watchdog`)",
        check="counters.pfc_storms",
        concern=Concern.COUNTERS,
        target=Target("spine2", "Ethernet1/1", 3),
        platform="eos",
        steps=eos_counters("storm"),
    ),
    Fault(
        name="lossless-drops-eos",
        title="Drops on a lossless queue (EOS)",
        how="queue drop counters in the EOS emulator (`show interfaces counters queue detail`)",
        check="counters.lossless_drops",
        concern=Concern.COUNTERS,
        target=Target("spine2", "Ethernet2/1", 3),
        platform="eos",
        steps=eos_counters("drops"),
    ),
    Fault(
        name="pfc-storm-cumulus",
        title="PFC pause storm (Cumulus)",
        how="the PFC watchdog's deadlock count in the Cumulus emulator (`nv show interface <swp> qos pfc-watchdog`)",
        check="counters.pfc_storms",
        concern=Concern.COUNTERS,
        target=Target("sleaf1", "swp1", 4),
        platform="cumulus",
        steps=cumulus_counters("storm"),
    ),
    Fault(
        name="lossless-drops-cumulus",
        title="Drops on a lossless queue (Cumulus)",
        how="egress queue discards in the Cumulus emulator (`nv show interface <swp> counters qos`)",
        check="counters.lossless_drops",
        concern=Concern.COUNTERS,
        target=Target("sleaf1", "swp3", 4),
        platform="cumulus",
        steps=cumulus_counters("drops"),
    ),
    Fault(
        name="headroom-watermark",
        title="A lossless PG used all its planned headroom",
        how="the PG's headroom watermark in the SONiC emulator (`show priority-group watermark headroom`)",
        check="buffers.headroom_watermark",
        concern=Concern.COUNTERS,
        target=Target("leaf1", "Ethernet8", 3),
        platform=_SN,
        steps=sonic_watermarks("headroom"),
    ),
    Fault(
        name="pool-watermark",
        title="A buffer pool filled to its planned size",
        how="the ingress lossless pool's watermark in the SONiC emulator (`show buffer_pool watermark`)",
        check="buffers.pool_watermark",
        concern=Concern.COUNTERS,
        target=Target("spine1"),
        platform=_SN,
        steps=sonic_watermarks("pool"),
        names=("device",),
    ),
    Fault(
        name="ecn-not-before-pfc-eos",
        title="ECN not marking before PFC pauses (EOS)",
        how="PFC pause frames sent with no ECN-marked packet on the lossless queue, in the EOS emulator's "
        "counters (`show interfaces priority-flow-control counters detail`, `show qos interfaces ecn counters queue`)",
        check="counters.ecn_before_pfc",
        concern=Concern.COUNTERS,
        target=Target("spine2", "Ethernet1/1", 3),
        platform="eos",
        steps=eos_counters("no-ecn"),
    ),
)
