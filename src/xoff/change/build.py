"""Build a ``ChangeReport`` from the two sides, each loaded and planned once."""

from __future__ import annotations

import time

from xoff.change.analysis import (
    deadlock_delta,
    device_diffs,
    dscp_risks,
    findings_delta,
    headroom_delta,
    pool_delta,
    with_config_diffs,
)
from xoff.change.model import ChangeReport, ChangeSummary, DeadlockDelta, Findings, Risk
from xoff.change.rollout import blast_radius, rollout
from xoff.desired.models import FabricState
from xoff.validate.model import CheckResult


def _risks(findings: Findings, deadlock: list[DeadlockDelta], dscp: list[Risk]) -> list[Risk]:
    risks = [
        Risk(kind="finding", cause=f"new failing finding of {f.check}: {f.message}")
        for f in findings.added
        if f.blocking
    ]
    for d in deadlock:
        if not d.new_risk or d.after is None:
            continue
        had = set(d.before.single_failures) if d.before is not None else set()
        if d.after.baseline and not (d.before is not None and d.before.baseline):
            where = "with every link up"
        else:
            where = "after failure of " + "; ".join(sorted(set(d.after.single_failures) - had))
        risks.append(
            Risk(
                kind="deadlock",
                cause=f"network {d.network}: new PFC deadlock risk (cyclic buffer dependency) {where}; "
                f"witness {d.after.witness}",
            )
        )
    return [*dscp, *risks]


class _Laps:
    """Seconds per stage, in the order they ran."""

    def __init__(self, seconds: dict[str, float]) -> None:
        self.seconds, self.last = seconds, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = round(self.seconds.get(name, 0.0) + now - self.last, 3)
        self.last = now


def build_report(
    base: FabricState,
    head: FabricState,
    *,
    base_label: str,
    head_label: str,
    base_results: list[CheckResult],
    head_results: list[CheckResult],
    failures: int,
    started: float,
    seconds: dict[str, float],
    config_diffs: int | None = None,
) -> ChangeReport:
    """``seconds``: the stages already timed (load, catalog); the comparison's stages are added to it."""
    laps = _Laps(seconds)
    devices = device_diffs(base, head)
    laps.lap("semantic diff")
    left_out = max(0, len(devices) - config_diffs) if config_diffs is not None else 0
    devices = with_config_diffs(base, head, devices, config_diffs)
    laps.lap("render + diff")
    switches = [d.name for d in devices if d.kind == "switch"]
    findings = findings_delta(base_results, head_results)
    deadlock = deadlock_delta(base, head, failures)
    laps.lap("deadlock")
    radius, hosts_behind, gpus_behind = blast_radius(head, base, devices)
    stages, by = rollout(head, devices, radius)
    risks = _risks(findings, deadlock, dscp_risks(base, head))
    headroom, pools = headroom_delta(base, head, switches), pool_delta(base, head, switches)
    laps.lap("margins + rollout")
    summary = ChangeSummary(
        new_risk=bool(risks),
        devices_changed=sum(d.status == "changed" for d in devices),
        devices_added=sum(d.status == "added" for d in devices),
        devices_removed=sum(d.status == "removed" for d in devices),
        findings_added=len(findings.added),
        findings_resolved=len(findings.resolved),
        findings_kept=len(findings.kept),
        new_deadlock_risk=any(d.new_risk for d in deadlock),
        hosts_behind=hosts_behind,
        gpus_behind=gpus_behind,
    )
    return ChangeReport(
        base=base_label,
        head=head_label,
        fabric=head.fabric,
        summary=summary,
        risks=risks,
        devices=devices,
        findings=findings,
        deadlock=deadlock,
        headroom=headroom,
        pools=pools,
        rollout=stages,
        rollout_by=by,
        blast_radius=radius,
        seconds=round(time.perf_counter() - started, 3),
        stage_seconds=seconds,
        config_diffs_left_out=left_out,
    )
