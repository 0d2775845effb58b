"""Named fault classes, seeded into a running lab the way an operator's mistake happens.

Each fault goes through the device's own interface over the lab's SSH: SONiC ``sudo config ...`` /
``config apply-patch``, EOS ``configure`` (a shell without a terminal, as ``ssh -T switch < file``),
NVUE ``nv set ... && nv config apply -y``, FRR ``vtysh``, the host's NIC tools (``mlnx_qos``,
``cma_roce_tos``, ``ip link``, ``modprobe``), an edited file on the host. Where nothing but the
hardware can make the fault (a PCIe re-seat, a BIOS reset, a counter the ASIC raises, a cable
re-plugged), the lab changes the state behind the tool that shows it: the NIC shims' state, the
SONiC, EOS and Cumulus emulators' counters, the veths. ``undo`` reverses exactly what ``seed`` did, by the same means.

The catalogue (``FAULTS``) is what ``xoff lab fault``, the lab fault-injection suite and the table in
docs/faults.md are made from: per fault, one ``Fault`` record (``record.py``) naming the check id that must
catch it, the checks that rightly fail with it (``also``, with why), and what its findings must name. The
records live by area, each beside its steps (``switch``, ``nic``, ``host``, ``routing``, ``counters``,
``ib``); ``catalogue.py`` derives their order. A new fault class is one record in its area's module plus
its steps.

Not to be confused with the emulators' session faults (``xoff.lab.emulators.base.SessionFaults``: refuse
the Nth command, drop the session, answer slowly) or the lab disruptions tests use directly
(``xoff.lab.disrupt``: a port down, a daemon stopped).
"""

from __future__ import annotations

from xoff.lab.faults.catalogue import catalogue
from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import Concern, Fault, Steps, Target

__all__ = [
    "FAULTS", "Concern", "Fault", "Lab", "SeedError", "Steps", "Target", "fault", "seed", "undo",
]  # fmt: skip

FAULTS: dict[str, Fault] = catalogue()


def fault(name: str) -> Fault:
    found = FAULTS.get(name)
    if found is None:
        raise KeyError(f"no fault class {name!r} (allowed: {', '.join(FAULTS)})")
    return found


def seed(lab: str | Lab, name: str, target: Target | None = None) -> tuple[Fault, Target]:
    """Seed fault ``name`` into the running lab (at ``target``, else the fault's lab-mini default)."""
    f = fault(name)
    running = lab if isinstance(lab, Lab) else Lab(lab)
    where = target or f.target
    _check_platform(running, f, where)
    f.seed(running, where)
    return f, where


def undo(lab: str | Lab, name: str, target: Target | None = None) -> None:
    f = fault(name)
    running = lab if isinstance(lab, Lab) else Lab(lab)
    where = target or f.target
    _check_platform(running, f, where)
    f.undo(running, where)


def _check_platform(lab: Lab, f: Fault, t: Target) -> None:
    dev = lab.connection.fabric.devices.get(t.device)
    if dev is None:
        raise SeedError(f"no device {t.device!r} in lab {lab.name}")
    platform = dev.platform
    if platform != f.platform:
        raise SeedError(f"{f.name} is seeded on {f.platform} devices; {t.device} is {platform}")
