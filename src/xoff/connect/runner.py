"""The one runner: how xoff runs a task on many devices at once, for push and for collect.

A Nornir object from ``nornir_inventory.build_nornir`` (its threaded runner, ``workers`` threads, the
netmiko options of ``connect.options`` on every host) and ``run_task``: one Nornir task per target,
each target's value (what the task returned) or the exception the task raised, in target order.
Push runs its device flow this way batch by batch; collect runs each device's collector; a user's
own Nornir tasks can run on the same inventory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from nornir.core import Nornir

from xoff.connect.nornir_inventory import build_nornir
from xoff.connect.targets import Target

__all__ = ["TaskError", "build_nornir", "run_task"]


class TaskError(RuntimeError):
    """The task gave no value for a target (Nornir did not run it, or it broke inside Nornir)."""


def run_task(nr: Nornir, targets: Iterable[Target], task: Callable[..., Any], **kwargs: Any) -> list[Any]:
    """Run ``task(task: Task, **kwargs)`` on every target (through ``nr``'s runner): per target, in
    order, the value the task returned or the exception it raised (never raised here)."""
    chosen = list(targets)
    names = {t.name for t in chosen}
    agg = nr.filter(filter_func=lambda h: h.name in names).run(task=task, **kwargs)
    out: list[Any] = []
    for t in chosen:
        multi = agg.get(t.name)
        if not multi:
            out.append(TaskError(f"{t.name}: the task did not run"))
        elif multi[0].exception is not None:
            out.append(multi[0].exception)
        else:
            out.append(multi[0].result)
    return out
