"""The catalogue of fault classes: every area module's records, in one derived order.

The order (docs/faults.md, ``xoff lab fault --list``, the rounds the lab fault suite packs greedily) is
by concern (``Concern``: what the fault breaks, in the enum's order), then by area (``AREAS``), then as
the area module defines them. Nothing lists the fault names a second time: a new fault class is one
record in its area's module.
"""

from __future__ import annotations

from types import ModuleType

from xoff.lab.faults import counters, host, ib, nic, routing, switch, watch
from xoff.lab.faults.record import Concern, Fault

AREAS: tuple[ModuleType, ...] = (
    switch,  # QoS maps, PFC, ECN, buffers, the CNP scheduler, the PFC watchdog, MTU (SONiC, EOS, NVUE)
    nic,  # a host NIC's QoS, DCQCN, MTU; NCCL_IB_TC
    host,  # GPUDirect prerequisites, a rail's route and rule, the kernel command line
    routing,  # cabling, BGP, the FIB
    counters,  # what the ASIC raises: PFC storms, lossless drops
    watch,  # counters that move, which only xoff watch judges: storms, slow drains, bad optics
    ib,  # InfiniBand (the ib-ring lab)
)


def catalogue(areas: tuple[ModuleType, ...] = AREAS) -> dict[str, Fault]:
    """The areas' fault records by name, ordered by concern, area, definition; a name twice is a mistake."""
    concerns = list(Concern)
    ranked: list[tuple[int, int, int, Fault]] = []
    seen: set[str] = set()
    for a, area in enumerate(areas):
        records: tuple[Fault, ...] = area.FAULTS
        for d, f in enumerate(records):
            if f.name in seen:
                raise ValueError(f"fault class {f.name!r} is defined twice")
            seen.add(f.name)
            ranked.append((concerns.index(f.concern), a, d, f))
    return {f.name: f for *_, f in sorted(ranked, key=lambda r: r[:3])}


def area_of(f: Fault, areas: tuple[ModuleType, ...] = AREAS) -> str:
    """The area (module) a fault record is defined in: ``switch``, ``nic``, ..."""
    return next(a.__name__.rsplit(".", 1)[-1] for a in areas if f in a.FAULTS)
