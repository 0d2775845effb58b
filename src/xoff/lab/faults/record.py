"""One fault class = one ``Fault`` record: what it is, where the lab seeds it, how it is seeded and undone,
which check must catch it and what the finding names. Keyword fields only, so an entry reads as a form.

The area modules (``switch``, ``nic``, ``host``, ``routing``, ``counters``, ``ib``) hold the records, each
beside its steps; ``catalogue`` orders them. Reaching a device (SSH) is ``reach.Lab``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from xoff.lab.faults.errors import SeedError

if TYPE_CHECKING:
    from xoff.lab.faults.reach import Lab

DRIFT = "drift.state"
WATCH = "watch."  # the check of a fault only xoff watch judges (a signal id): its counters move


@dataclass(frozen=True)
class Target:
    """Where a fault goes: a device, and the port and priority when the fault class has them."""

    device: str
    port: str | None = None
    priority: int | None = None


Step = Callable[["Lab", Target], None]


@dataclass(frozen=True)
class Steps:
    """How the lab makes a fault (``seed``) and how it puts things back (``undo``), by the same means."""

    seed: Step
    undo: Step


class Concern(Enum):
    """What a fault class breaks. The catalogue (docs/faults.md, ``xoff lab fault --list``, the order the
    lab fault suite packs its rounds in) lists faults by concern in this order, then by area, then as
    each area module defines them."""

    CLASSIFICATION = "PFC and the DSCP / priority classification, switches then NICs"
    CONGESTION = "switch ECN, headroom, the lossless class limit, the CNP scheduler, the PFC watchdog"
    MTU = "MTU across a link and on hosts"
    CABLING_BGP = "cabling and BGP sessions"
    GPUDIRECT = "GPUDirect prerequisites on hosts"
    DCQCN = "host NIC congestion control (DCQCN notification point, CNP DSCP)"
    HOST_KERNEL = "host kernel state: rail routes, policy rules, IOMMU"
    COUNTERS = "what the ASIC raises: PFC storms, lossless drops"
    FORWARDING = "forwarding that risks a PFC deadlock"
    INFINIBAND = "InfiniBand routing, VL arbitration, partitions, links"


@dataclass(frozen=True, kw_only=True)
class Fault:
    """A fault class: how the lab seeds it, which check must catch it, what the finding names."""

    name: str
    title: str  # the fault class, as docs/faults.md names it
    how: str  # how the lab seeds it (what an operator or the hardware did)
    check: str  # the check id that must catch it (``watch.<signal>``: the xoff watch signal)
    concern: Concern  # what it breaks (orders the catalogue)
    target: Target  # where the suite seeds it on its lab
    platform: str  # the device platform the seeding speaks to
    steps: Steps
    names: tuple[str, ...] = ("device", "port", "priority")  # what the finding must name
    also: tuple[str, ...] = ()  # other checks that rightly fail on the same fault
    why_also: str = ""
    peers: tuple[str, ...] = ()  # other devices whose findings this fault causes (the link's far end)
    catalog: str = "audit"
    warning: bool = False  # the check's severity is warning: the gate stays open
    lab: str = "lab-mini"  # the intent whose lab the suite seeds it in (inventory/ or tests/fixtures/intents/)
    mentions: tuple[str, ...] = ()  # text some finding of the check must carry (the SL/VL, the credit loop)

    def seed(self, lab: Lab, target: Target) -> None:
        self.steps.seed(lab, target)

    def undo(self, lab: Lab, target: Target) -> None:
        self.steps.undo(lab, target)


def port_of(t: Target) -> str:
    if t.port is None:
        raise SeedError(f"{t.device}: this fault needs a port")
    return t.port


def priority_of(t: Target, default: int = 3) -> int:
    return default if t.priority is None else t.priority
