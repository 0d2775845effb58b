"""``xoff lab fault NAME DEVICE [PORT] [--priority N] [--name LAB]`` and ``xoff lab fault --list``.

``--lab`` is accepted for ``--name``, as on every lab command (push, collect and validate spell it ``--lab``).

Seeds one named fault class (``xoff.lab.faults.FAULTS``) into a running lab, the way the mistake
happens (the device's CLI over SSH, the host's NIC tools, the cabling...), and says which check
catches it; ``--undo`` reverses it by the same means. Exit status: 0 seeded (or undone, or listed),
2 bad input (unknown fault, device of another platform, no lab), 1 the device refused it.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from xoff.errors import InputError
from xoff.lab.faults import FAULTS, Lab, SeedError, Target, fault, seed
from xoff.lab.faults import undo as undo_fault
from xoff.lab.lab import LabError


def _table() -> str:
    rows = [f"{'fault':<24} {'check':<34} {'default target (lab)':<24} how"]
    for f in FAULTS.values():
        where = ":".join(x for x in (f.target.device, f.target.port) if x)
        if f.target.priority is not None:
            where += f" prio {f.target.priority}"
        where += f" ({f.lab})"
        rows.append(f"{f.name:<24} {f.check:<34} {where:<24} {f.how}")
    return "\n".join(rows)


def fault_command(
    name: Annotated[str | None, typer.Argument(help="fault class (see --list)")] = None,
    device: Annotated[str | None, typer.Argument(help="device to seed it into (default: the fault's target)")] = None,
    port: Annotated[str | None, typer.Argument(help="port, for faults on a port (intent name)")] = None,
    priority: Annotated[int | None, typer.Option("--priority", min=0, max=7, help="priority, where it applies")] = None,
    lab: Annotated[
        str | None, typer.Option("--name", "-n", "--lab", help="the lab (default: the only one up; --lab: the same)")
    ] = None,
    undo: Annotated[bool, typer.Option("--undo", help="reverse the fault instead")] = False,
    list_: Annotated[
        bool, typer.Option("--list", help="list the fault classes and the checks that catch them")
    ] = False,
) -> None:
    """Seed a named fault into a running lab device, host or cabling; say which check catches it."""
    if list_:
        print(_table())
        return
    if name is None:
        print("xoff lab fault: give a fault class (allowed: " + ", ".join(FAULTS) + ")", file=sys.stderr)
        raise typer.Exit(2)
    try:
        f = fault(name)
        target = f.target
        if device is not None:
            target = Target(device, port if port is not None else None, priority)
        elif port is not None or priority is not None:
            target = Target(
                f.target.device, port or f.target.port, priority if priority is not None else f.target.priority
            )
        lab = lab or _only_lab()
        running = Lab(lab)
        if undo:
            undo_fault(running, name, target)
            print(f"{name}: undone on {_where(target)}")
            return
        seed(running, name, target)
    except KeyError as exc:
        print(f"xoff lab fault: {exc.args[0]}", file=sys.stderr)
        raise typer.Exit(2) from None
    except (InputError, LabError) as exc:
        print(f"xoff lab fault: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    except SeedError as exc:
        print(f"xoff lab fault: {exc}", file=sys.stderr)
        raise typer.Exit(2 if "is seeded on" in str(exc) or "no device" in str(exc) else 1) from None
    also = f" (also: {', '.join(f.also)})" if f.also else ""
    print(f"{name}: seeded on {_where(target)}: {f.how}")
    print(f"caught by {f.check}{also}; undo: {undo_line(name, target, lab)}")


def undo_line(name: str, target: Target, lab: str) -> str:
    """The command that undoes a seeded fault, ready to paste (it names the lab: others may be up by then)."""
    return f"xoff lab fault {name} {_args(target)}--undo --name {lab}"


def _only_lab() -> str:
    from xoff.lab.lab import labs  # noqa: PLC0415

    names = labs()
    if len(names) != 1:
        raise LabError(f"give --name (labs up: {', '.join(names) or 'none'})")
    return names[0]


def _where(t: Target) -> str:
    text = ":".join(x for x in (t.device, t.port) if x)
    return text + (f" priority {t.priority}" if t.priority is not None else "")


def _args(t: Target) -> str:
    out = f"{t.device} " + (f"{t.port} " if t.port else "")
    return out + (f"--priority {t.priority} " if t.priority is not None else "")
