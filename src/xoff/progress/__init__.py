"""Progress of a long run, behind a hook: the core says which stage it is in and which item it finished; it
never prints. The edge renders the events (``xoff.progress.display``: rich on stderr, for the command line; imported
only by command modules), a test records them.

A hook is any callable taking a :class:`ProgressEvent`. :func:`stage` brackets one stage::

    with stage(hook, "collect", total=len(targets)) as s:
        ...
        s.step("leaf1")              # from any thread: the count is kept under a lock
        s.step("leaf2", "failed: timeout")

which sends ``start``, one ``step`` per item and ``end`` (also when the stage raised). The default hook,
:func:`no_progress`, does nothing, so a library call without one stays silent. Standard library only: every
layer may import this package's ``__init__``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

Phase = Literal["start", "step", "end"]


@dataclass(frozen=True)
class ProgressEvent:
    """``stage`` started (``start``), one of its items is done (``step``), or it ended (``end``)."""

    stage: str  # "collect", "checks", "lab start", "SM sweep", "LFT dump", "analysis", "namespaces", ...
    phase: Phase
    item: str | None = None  # the device (or check) a step is about
    done: int = 0  # items done in the stage so far
    total: int | None = None  # items the stage has (None: not counted)
    detail: str = ""  # how the item went, when not plainly done ("failed: timeout")


ProgressHook = Callable[[ProgressEvent], None]


def no_progress(event: ProgressEvent) -> None:
    """The hook of a caller that wants no progress."""


class Stage:
    """One stage under way: :meth:`step` per finished item (thread-safe)."""

    def __init__(self, hook: ProgressHook, name: str, total: int | None) -> None:
        self._hook, self.name, self.total = hook, name, total
        self._done = 0
        self._lock = threading.Lock()

    def step(self, item: str, detail: str = "") -> None:
        with self._lock:
            self._done += 1
            event = ProgressEvent(self.name, "step", item, self._done, self.total, detail)
            self._hook(event)

    @property
    def done(self) -> int:
        return self._done


@contextmanager
def stage(hook: ProgressHook, name: str, total: int | None = None) -> Iterator[Stage]:
    """``start`` now, ``end`` when the block leaves (normally or not)."""
    current = Stage(hook, name, total)
    hook(ProgressEvent(name, "start", total=total))
    try:
        yield current
    finally:
        hook(ProgressEvent(name, "end", done=current.done, total=total))
