"""Progress of long runs (``xoff.progress`` events) drawn with rich on stderr, never on stdout.

Shown when stderr is a terminal and ``--quiet`` was not given; ``XOFF_PROGRESS=always`` shows it anyway (a CI log),
``XOFF_PROGRESS=never`` never. stdout keeps only the command's output, so ``--format json`` stays parseable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from xoff.progress import ProgressEvent, ProgressHook, no_progress

if TYPE_CHECKING:  # rich is imported only when progress is drawn (a --quiet or piped run never loads it)
    from rich.console import Console
    from rich.progress import TaskID

ENV = "XOFF_PROGRESS"


def shown(quiet: bool) -> bool:
    """Whether progress is drawn: not with ``--quiet``; ``XOFF_PROGRESS`` always/never; else when stderr is a TTY."""
    if quiet:
        return False
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in {"always", "never"}:
        return setting == "always"
    return sys.stderr.isatty()


class RichProgress:
    """One bar per stage: its items done of its total (a spinner where there is no total), the last item's name."""

    def __init__(self, console: Console) -> None:
        from rich.progress import (  # noqa: PLC0415
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bars = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        self._tasks: dict[str, TaskID] = {}
        self.started = False

    def __call__(self, event: ProgressEvent) -> None:
        if not self.started:  # drawn from the first event on: a run without stages prints nothing
            self.bars.start()
            self.started = True
        if event.phase == "start":
            self._tasks[event.stage] = self.bars.add_task(event.stage, total=event.total)
            return
        task = self._tasks.get(event.stage)
        if task is None:
            return
        if event.phase == "step":
            what = f"{event.item}" + (f" ({event.detail})" if event.detail and event.detail != "success" else "")
            self.bars.update(task, completed=event.done, description=f"{event.stage}: {what}")
        else:
            total = event.total if event.total is not None else max(event.done, 1)  # a stage of no items: one
            done = total if event.total is None else event.done
            self.bars.update(task, total=total, completed=done, description=f"{event.stage}: done")
            self.bars.stop_task(task)


@contextmanager
def progress_display(quiet: bool, console: Console | None = None) -> Iterator[ProgressHook]:
    """The hook to hand to ``xoff.api``: rich on stderr while the block runs, or the silent hook."""
    if not shown(quiet):
        yield no_progress
        return
    if console is None:
        from rich.console import Console  # noqa: PLC0415

        console = Console(stderr=True)
    display = RichProgress(console)
    try:
        yield display
    finally:
        if display.started:
            display.bars.stop()
