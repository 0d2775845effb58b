"""What people and machines see of a push: the plan, progress, the final table or JSON lines.

Engines call the event hook from worker threads; every display serialises its output with a lock.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from xoff.connect.targets import Target
from xoff.platforms.registry import get_platform
from xoff.push.model import Outcome, PushEvent, PushSummary, StageEvent, Step

OUTCOME_STYLE = {
    Outcome.CHANGED: "green",
    Outcome.UNCHANGED: "dim",
    Outcome.DRY_RUN: "cyan",
    Outcome.FAILED: "red",
    Outcome.ROLLED_BACK: "yellow",
    Outcome.ROLLBACK_FAILED: "bold red",
    Outcome.SKIPPED: "magenta",
}


STAGE_STYLE = {"start": "bold", "verified": "green", "done": "green", "failed": "red", "skipped": "magenta"}
MAX_NAMES = 8  # devices named in one stage line; more are counted


def stage_line(event: StageEvent) -> str:
    """One line for a person: ``canary (spine1, leaf1): start, the other 14 devices wait on it``."""
    names = ", ".join(event.devices[:MAX_NAMES])
    if len(event.devices) > MAX_NAMES:
        names += f", ... ({len(event.devices)} devices)"
    tail = f", {event.message}" if event.message else ""
    return f"{event.name} ({names}): {event.status}{tail}"


def stage_lines(summary: PushSummary) -> list[str]:
    """How each stage of the rollout ended (none for a push in one batch)."""
    return [stage_line(st) for st in summary.stages]


def plan_rows(targets: list[Target], restore: bool = False) -> list[dict[str, Any]]:
    """Per device: platform, how it will be changed (a rollback: how the backup is restored), how it would
    be undone (from Capabilities)."""
    rows = []
    for t in targets:
        caps = get_platform(t.platform).capabilities
        if caps is None:
            raise KeyError(f"no push strategy for platform {t.platform!r}")
        apply = caps.restore_means if restore else caps.apply_means
        rows.append({"device": t.name, "platform": t.platform, "apply": apply, "undo": caps.undo_means})
    return rows


class JsonLines:
    """``--format json``: a plan line per device, an event line per step, the summary line last."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.lock = threading.Lock()

    def _line(self, data: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(json.dumps(data) + "\n")
            self.out.flush()

    def plan(self, targets: list[Target], dry_run: bool) -> None:
        for row in plan_rows(targets):
            self._line({"event": "plan", "dry_run": dry_run, **row})

    def __call__(self, event: PushEvent | StageEvent) -> None:
        self._line(event.to_json())

    def close(self) -> None:
        pass

    def summary(self, summary: PushSummary) -> None:
        self._line(summary.to_json())


class RichDisplay:
    """For people: the plan table, a progress bar (done, failed, rolled back, elapsed; the stage running),
    a line as each rollout stage starts and ends (the canaries named), the final table (with each
    device's stage when there was more than one)."""

    def __init__(self, console: Console, total: int, show_diff: bool = True, what: str = "push") -> None:
        self.console = console
        self.what = what  # the job named in the bar and the table's title (push, rollback)
        self.show_diff = show_diff  # the per-device diff before the table (a dry run's whole point)
        self.lock = threading.Lock()
        self.counts = {"failed": 0, "rolled back": 0}
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.progress.add_task(what, total=total, status="")
        self.started = time.monotonic()

    def plan(self, targets: list[Target], dry_run: bool) -> None:
        table = Table(title="plan (dry run: nothing will be sent)" if dry_run else "plan", title_justify="left")
        for column in ("device", "platform", "how it will be changed", "how it would be undone"):
            table.add_column(column)
        for row in plan_rows(targets, restore=self.what != "push"):
            table.add_row(row["device"], row["platform"], row["apply"], row["undo"])
        self.console.print(table)
        self.progress.start()

    def __call__(self, event: PushEvent | StageEvent) -> None:
        with self.lock:
            if isinstance(event, StageEvent):
                self.stage(event)
                return
            if event.status in ("retry", "unknown"):
                self.progress.console.print(
                    f"[yellow]{event.device}[/yellow] {event.step.value} {event.status}: {event.message}"
                )
            if event.status == "failed" and event.step is not Step.DONE:
                self.progress.console.print(f"[red]{event.device}[/red] {event.step.value}: {event.message}")
            if event.step is Step.DONE:
                if event.message in {Outcome.FAILED.value, Outcome.ROLLBACK_FAILED.value}:
                    self.counts["failed"] += 1
                elif event.message == Outcome.ROLLED_BACK.value:
                    self.counts["rolled back"] += 1
                status = ", ".join(f"{v} {k}" for k, v in self.counts.items() if v)
                self.progress.update(self.task, advance=1, status=status)

    def stage(self, event: StageEvent) -> None:
        """A stage starts or ends: said in a line, and the bar names the stage running."""
        style = STAGE_STYLE.get(event.status, "")
        self.progress.console.print(
            f"[{style}]{stage_line(event)}[/{style}]" if style else stage_line(event), highlight=False
        )
        if event.status == "start":
            self.progress.update(self.task, description=f"{self.what}: {event.name}")

    def close(self) -> None:
        self.progress.stop()

    def summary(self, summary: PushSummary) -> None:
        for r in summary.results:
            if self.show_diff and r.diff and r.outcome in {Outcome.DRY_RUN, Outcome.CHANGED}:
                self.console.print(f"[bold]{r.device}[/bold] ({r.changes} changes)")
                self.console.print(r.diff, markup=False, highlight=False)
        for line in stage_lines(summary):
            self.console.print(line, markup=False, highlight=False)
        stage_of = {st.number: st.name for st in summary.stages}
        run = f"run {summary.run_id}, " if summary.run_id else ""
        table = Table(title=f"{self.what} ({run}{summary.engine}, {summary.elapsed_s:.1f} s)", title_justify="left")
        for column in ("stage",) * bool(stage_of) + ("device", "platform", "outcome", "changes", "seconds"):
            table.add_column(column)
        for column in ("backup", "error"):
            table.add_column(column)
        for r in summary.results:
            style = OUTCOME_STYLE[r.outcome]
            step = f" at {r.failed_step.value}" if r.failed_step else ""
            table.add_row(
                *((stage_of.get(r.batch, ""),) if stage_of else ()),
                r.device,
                r.platform,
                f"[{style}]{r.outcome.value}{step}[/{style}]",
                str(r.changes),
                f"{r.elapsed_s:.1f}",
                r.backup or "",
                r.error or "",
            )
        self.console.print(table)
        data = summary.to_json()
        counts = ", ".join(
            f"{data[k]} {k.replace('_', ' ')}"
            for k in ("changed", "unchanged", "dry_run", "failed", "rolled_back", "skipped")
        )
        self.console.print(f"{data['devices']} devices: {counts}")
