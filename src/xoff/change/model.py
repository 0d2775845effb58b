"""``ChangeReport``: what a change of intent (BASE -> HEAD) does to the fabric, as data every format prints."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

GROUPS = (
    "qos maps",
    "pfc",
    "ecn",
    "buffers/headroom",
    "watchdog",
    "interfaces",
    "bgp",
    "host rdma/nccl",
    "other",
)
Group = Literal[
    "qos maps", "pfc", "ecn", "buffers/headroom", "watchdog", "interfaces", "bgp", "host rdma/nccl", "other"
]


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ValueChange(Model):
    """One leaf of a device's desired state that differs: its path (``qos.dscp_to_tc.26``), before and after
    (None: absent on that side)."""

    group: Group
    path: str
    before: Any = None
    after: Any = None


class DeviceChange(Model):
    name: str
    kind: str
    platform: str
    status: Literal["added", "removed", "changed"]
    changes: list[ValueChange] = Field(default_factory=list, description="the semantic diff (empty when added/removed)")
    config_diff: str = Field(default="", description="unified diff of the rendered files, BASE -> HEAD")


class FindingKey(Model):
    """A pre-change finding, keyed by check id + device + subject (never the message text)."""

    check: str
    device: str
    subject: str
    message: str
    blocking: bool


class Findings(Model):
    added: list[FindingKey] = Field(default_factory=list)
    resolved: list[FindingKey] = Field(default_factory=list)
    kept: list[FindingKey] = Field(default_factory=list)
    not_run: list[str] = Field(default_factory=list, description="checks that errored on a side: 'id (side): why'")


class DeadlockSide(Model):
    baseline: bool = Field(description="a cyclic buffer dependency with every link up")
    single_failures: list[str] = Field(default_factory=list, description="failed link(s) of each risky scenario")
    witness: str | None = Field(default=None, description="the first cycle found, switches in order")


class DeadlockDelta(Model):
    network: str
    failures_checked: int
    before: DeadlockSide | None = Field(description="None: the network is not on that side")
    after: DeadlockSide | None

    @property
    def new_risk(self) -> bool:
        if self.after is None:
            return False
        had = self.before or DeadlockSide(baseline=False)
        return (self.after.baseline and not had.baseline) or bool(
            set(self.after.single_failures) - set(had.single_failures)
        )


class MarginDelta(Model):
    """A number that bounds lossless behaviour, before and after: a port's headroom, a pool's size or margin."""

    device: str
    subject: str
    before: int | None
    after: int | None


class Risk(Model):
    """A reason the change is not safe (exit 1): what and why."""

    kind: Literal["finding", "deadlock", "lossless_dscp"]
    cause: str


class RolloutStage(Model):
    stage: str  # canary, batch 1, ...
    domain: str | None = Field(default=None, description="the failure domain the batch covers")
    devices: list[str]


class BlastRadius(Model):
    switch: str
    hosts: int
    gpus: int


class ChangeSummary(Model):
    new_risk: bool = Field(description="the change adds risk (exit 1): see ``risks``")
    devices_changed: int
    devices_added: int
    devices_removed: int
    findings_added: int
    findings_resolved: int
    findings_kept: int
    new_deadlock_risk: bool
    hosts_behind: int = Field(description="distinct hosts behind the touched switches")
    gpus_behind: int


class ChangeReport(Model):
    base: str = Field(description="what BASE was (a path, or a revision and its commit)")
    head: str
    fabric: str
    summary: ChangeSummary
    risks: list[Risk]
    devices: list[DeviceChange]
    findings: Findings
    deadlock: list[DeadlockDelta]
    headroom: list[MarginDelta]
    pools: list[MarginDelta]
    rollout: list[RolloutStage]
    rollout_by: str | None = Field(description="the failure-domain kind batches follow (None: no domains)")
    blast_radius: list[BlastRadius]
    config_diffs_left_out: int = Field(
        default=0, description="touched devices whose rendered diff was not computed (--config-diffs)"
    )
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(default_factory=dict, description="seconds per stage (load, catalog, ...)")

    @property
    def risky(self) -> bool:
        return bool(self.risks)
