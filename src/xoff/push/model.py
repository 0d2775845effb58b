"""The push result model: what happened to each device, shared by the Nornir and Ansible engines.

Both engines emit the same ``PushEvent`` stream (progress display, JSON lines) and end with the same
``PushSummary`` (final table, last JSON line, exit status), so a user cannot tell from the report
which engine ran.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from xoff.exitcodes import ExitCode


class Outcome(StrEnum):
    UNCHANGED = "unchanged"  # running already equalled desired: nothing was sent
    CHANGED = "changed"  # applied and verified
    DRY_RUN = "dry_run"  # diff computed and shown, nothing sent
    FAILED = "failed"  # not applied; the device was left untouched (e.g. unreachable, refused host key)
    ROLLED_BACK = "rolled_back"  # apply or verify failed; rolled back and verified equal to the backup
    ROLLBACK_FAILED = "rollback_failed"  # the rollback itself failed or did not verify: needs a person
    SKIPPED = "skipped"  # not attempted (canary failed, max failures reached)


class Step(StrEnum):
    CONNECT = "connect"
    BACKUP = "backup"
    DIFF = "diff"
    APPLY = "apply"
    VERIFY = "verify"
    ROLLBACK = "rollback"
    DONE = "done"


@dataclass
class DeviceResult:
    device: str
    platform: str
    outcome: Outcome = Outcome.SKIPPED
    changes: int = 0  # number of diff entries applied (or that would be, in dry-run)
    diff: str = ""  # human-readable diff, secrets masked
    backup: str | None = None  # path of the backup file
    failed_step: Step | None = None
    error: str | None = None  # one line, secrets masked
    elapsed_s: float = 0.0
    batch: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        data["failed_step"] = self.failed_step.value if self.failed_step else None
        return data


@dataclass(frozen=True)
class PushEvent:
    """One step of one device, as it happens (JSON lines with ``--format json``)."""

    device: str
    step: Step
    status: str  # "start" | "ok" | "failed"
    message: str = ""
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"event": "step", **asdict(self), "step": self.step.value}


class StageKind(StrEnum):
    CANARY = "canary"  # pushed first; the rest waits on it and starts only if all of it verified
    BATCH = "batch"


@dataclass(frozen=True)
class StageEvent:
    """A rollout stage starts or ends (only when a push has more than one: a canary, or batches)."""

    number: int  # 1-based, as DeviceResult.batch
    kind: StageKind
    devices: tuple[str, ...]
    status: str  # "start" | "verified" | "done" | "failed" | "skipped"
    message: str = ""  # what it means for the rest: "the other 14 wait on it", "not attempted: ..."

    @property
    def name(self) -> str:
        return "canary" if self.kind is StageKind.CANARY else f"batch {self.number}"

    def to_json(self) -> dict[str, Any]:
        return {"event": "stage", **asdict(self), "kind": self.kind.value, "devices": list(self.devices)}


@dataclass
class PushSummary:
    results: list[DeviceResult] = field(default_factory=list)
    elapsed_s: float = 0.0
    engine: str = "nornir"
    stages: list[StageEvent] = field(default_factory=list)  # how each stage ended (none for a single batch)
    run_id: str = ""  # the run's id in the run store (``xoff runs``, ``xoff rollback RUN_ID``)

    def count(self, *outcomes: Outcome) -> int:
        return sum(1 for r in self.results if r.outcome in outcomes)

    @property
    def exit_status(self) -> ExitCode:
        """0 all applied (or unchanged / dry run), 1 some failed and were rolled back, 3 a rollback failed."""
        if self.count(Outcome.ROLLBACK_FAILED):
            return ExitCode.ROLLBACK_FAILED
        if self.count(Outcome.FAILED, Outcome.ROLLED_BACK, Outcome.SKIPPED):
            return ExitCode.FINDINGS
        return ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        """The last JSON line: the counts the issue names, then the per-device list."""
        return {
            "event": "summary",
            "run_id": self.run_id,
            "engine": self.engine,
            "devices": len(self.results),
            "changed": self.count(Outcome.CHANGED),
            "unchanged": self.count(Outcome.UNCHANGED),
            "dry_run": self.count(Outcome.DRY_RUN),
            "failed": self.count(Outcome.FAILED, Outcome.ROLLBACK_FAILED),
            "rolled_back": self.count(Outcome.ROLLED_BACK),
            "skipped": self.count(Outcome.SKIPPED),
            "elapsed_s": round(self.elapsed_s, 3),
            "stages": [{k: v for k, v in st.to_json().items() if k != "event"} for st in self.stages],
            "results": [r.to_json() for r in self.results],
        }
