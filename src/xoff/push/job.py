"""What a push is asked to do, and the engine contract both engines (Nornir, Ansible) keep.

An engine is a function ``run(job, options, on_event) -> PushSummary``; ``ENGINES`` joins names to
modules (one line each). ``on_event`` is the only way an engine reports progress: the core never
prints, so the CLI decides between a rich display and JSON lines.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from xoff.connect.credentials import CredentialSet
from xoff.connect.pace import Timeouts
from xoff.connect.targets import Target
from xoff.push.model import PushEvent, PushSummary, StageEvent
from xoff.push.rollout import batches

EventHook = Callable[[PushEvent | StageEvent], None]  # device steps, and rollout stages (canary, batches)


@dataclass(frozen=True)
class PushOptions:
    dry_run: bool = False
    canary: int = 0  # first batch of this many devices; the rest only if all of them verified
    batch_size: int = 0  # 0: the rest in one batch
    max_failures: int | None = None  # stop starting new batches once this many devices failed
    workers: int = 20
    timeout_s: float | None = None  # fixed, per SSH operation; None: adaptive (``connect.pace``)
    timeout_factor: float = 1.0  # times every adaptive timeout (``--timeout-factor``)
    backup_dir: Path = Path("backups")
    canary_by: str | None = None  # pod | su | plane | rack: the canary is one whole domain, batches never mix domains

    @property
    def timeouts(self) -> Timeouts:
        return Timeouts(self.timeout_s, self.timeout_factor)


@dataclass
class PushJob:
    """The devices to push (in order), their rendered files, and how to reach them."""

    fabric: str
    run_id: str  # also the backup directory's name and the on-device checkpoint/session suffix
    targets: list[Target]
    desired: dict[str, dict[str, str]]  # device -> rendered file name -> text
    credentials: CredentialSet
    known_hosts: Path | None
    secrets: list[str] = field(default_factory=list)  # values to mask everywhere
    domain_of: dict[str, str] | None = None  # device -> its failure domain of ``canary_by`` (None: not by domain)

    def __post_init__(self) -> None:
        if not self.secrets:
            self.secrets = self.credentials.secrets()


class Engine(Protocol):
    def __call__(self, job: PushJob, options: PushOptions, on_event: EventHook) -> PushSummary: ...


def rollout_stages(job: PushJob, options: PushOptions) -> tuple[list[list[Target]], bool]:
    """The rollout's stages (``rollout.batches``) and whether the first is a canary: what both engines run."""
    plan = batches(job.targets, options.canary, options.batch_size, job.domain_of)
    return plan, options.canary > 0 or job.domain_of is not None


# engine name -> module holding ``run`` (one line per engine)
ENGINES: dict[str, str] = {
    "nornir": "xoff.push.nornir_engine",
    "ansible": "xoff.push.ansible_engine",
}


def engine(name: str) -> Engine:
    try:
        module_name = ENGINES[name]
    except KeyError:
        raise KeyError(f"no push engine {name!r} (allowed: {', '.join(ENGINES)})") from None
    run: Engine = importlib.import_module(module_name).run
    return run
