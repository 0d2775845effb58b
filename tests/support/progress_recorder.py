"""A progress hook for tests: keeps every event the core reports (``xoff.progress``)."""

from __future__ import annotations

from xoff.progress import ProgressEvent


class Recorder:
    """A hook that keeps every event (the hook may be called from worker threads: list.append is atomic)."""

    def __init__(self) -> None:
        self.events: list[ProgressEvent] = []

    def __call__(self, event: ProgressEvent) -> None:
        self.events.append(event)

    def stages(self) -> list[str]:
        return [e.stage for e in self.events if e.phase == "start"]

    def items(self, name: str) -> list[str]:
        return [e.item or "" for e in self.events if e.stage == name and e.phase == "step"]

    def ends(self) -> list[tuple[str, int]]:
        return [(e.stage, e.done) for e in self.events if e.phase == "end"]

    def bracketed(self) -> bool:
        """Every stage that started ended, after its steps, with the count of its steps."""
        open_: dict[str, int] = {}
        for e in self.events:
            if e.phase == "start":
                open_[e.stage] = 0
            elif e.phase == "step":
                open_[e.stage] += 1
                assert e.done == open_[e.stage]
            else:
                assert e.done == open_.pop(e.stage)
        return not open_
