"""``xoff inventory export --shard-by pod|su|plane``: one Ansible inventory per failure domain and the AWX /
Ansible Automation Platform project that runs each shard as its own job (``xoff.awx``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.intent import IntentSource
from xoff.errors import usage_error

if TYPE_CHECKING:
    from xoff.desired.domains import DomainKind

SHARD_KINDS: dict[str, DomainKind] = {"pod": "pod", "su": "su", "plane": "plane"}


@dataclass(frozen=True)
class AwxOptions:
    shard_by: str = "pod"  # pod | su | plane
    output: Path = Path("out/awx")
    lab: str | None = None  # the running lab's addresses and known_hosts
    known_hosts: Path | None = None  # copied into the project (public keys), else the lab's


@dataclass(frozen=True)
class AwxResult:
    output: Path
    shards: dict[str, int] = field(default_factory=dict)  # shard name -> devices, in domain order

    @property
    def devices(self) -> int:
        return sum(self.shards.values())


def export_awx(source: IntentSource, options: AwxOptions = AwxOptions()) -> AwxResult:
    """Write the AWX project (playbooks, rendered files, per-shard inventories, execution environment, job
    templates) for the intent, sharded by failure domain; no credential in any file."""
    from xoff.api.push import _fabric  # noqa: PLC0415
    from xoff.awx.project import write_project  # noqa: PLC0415
    from xoff.push.ansible_engine import playbooks_dir  # noqa: PLC0415

    by = SHARD_KINDS.get(options.shard_by)
    if by is None:
        raise usage_error(
            f"--shard-by: {options.shard_by!r} is not a failure domain kind (allowed: {', '.join(SHARD_KINDS)})"
        )
    fabric, conn = _fabric(source, options.lab)
    known_hosts = options.known_hosts or (conn.known_hosts if conn else None)
    project = write_project(fabric, by, options.output, playbooks_dir(), known_hosts)
    return AwxResult(options.output, {s.name: len(s.targets) for s in project.shards})
