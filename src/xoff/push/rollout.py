"""Rollout order: a canary batch, then batches; stop starting batches after a failed canary or once
``max_failures`` devices failed. Pure: ``run_batch`` does the pushing, whatever the engine. Each stage
(the canary, named, then each batch) is told as it starts and ends (``StageEvent``), and how each
ended goes into the summary, so a person sees which devices were the canaries and that the rest
waited on them."""

from __future__ import annotations

from collections.abc import Callable

from xoff.connect.targets import Target
from xoff.desired.domains import members
from xoff.push.model import DeviceResult, Outcome, StageEvent, StageKind

FAILED_OUTCOMES = (Outcome.FAILED, Outcome.ROLLED_BACK, Outcome.ROLLBACK_FAILED)
GOOD_OUTCOMES = (Outcome.CHANGED, Outcome.UNCHANGED, Outcome.DRY_RUN)


def batches(
    targets: list[Target], canary: int, batch_size: int, domain_of: dict[str, str] | None = None
) -> list[list[Target]]:
    """``[canary batch], then batches of batch_size`` (0: one batch for the rest). With ``domain_of`` (device ->
    failure domain, ``push --canary-by``): the canary is the first domain whole, then each domain in turn in
    batches of batch_size (0: the domain in one batch); a batch never mixes domains.

    >>> [len(b) for b in batches([Target(str(i), "eos", "switch", "leaf", None, "x") for i in range(7)], 2, 3)]
    [2, 3, 2]
    """
    if domain_of is not None:
        return _by_domain(targets, batch_size, domain_of)
    rest = list(targets)
    out: list[list[Target]] = []
    if canary > 0 and rest:
        out.append(rest[:canary])
        rest = rest[canary:]
    size = batch_size if batch_size > 0 else max(1, len(rest))
    out.extend(rest[i : i + size] for i in range(0, len(rest), size))
    return out


def _by_domain(targets: list[Target], batch_size: int, domain_of: dict[str, str]) -> list[list[Target]]:
    """The canary domain (the first by name, a real one before ``-``), then every other domain's batches."""
    by_name = {t.name: t for t in targets}
    groups = [[by_name[n] for n in names] for names in members({t.name: domain_of[t.name] for t in targets}).values()]
    out = groups[:1]
    for group in groups[1:]:
        size = batch_size if batch_size > 0 else len(group)
        out.extend(group[i : i + size] for i in range(0, len(group), size))
    return out


def skipped(target: Target, batch: int, why: str) -> DeviceResult:
    return DeviceResult(device=target.name, platform=target.platform, outcome=Outcome.SKIPPED, error=why, batch=batch)


def _stage(number: int, batch: list[Target], canary: bool) -> tuple[StageKind, tuple[str, ...]]:
    kind = StageKind.CANARY if canary and number == 1 else StageKind.BATCH
    return kind, tuple(t.name for t in batch)


def _started(plan: list[list[Target]], number: int, canary: bool) -> str:
    """What starting stage ``number`` means for the rest."""
    rest = sum(len(b) for b in plan[number:])
    devices = f"{rest} device{'' if rest == 1 else 's'}"
    if canary and number == 1:
        return f"the other {devices} wait on it" if rest else "no other device"
    return f"{devices} in later batches" if rest else "the last batch"


def _ended(got: list[DeviceResult], kind: StageKind) -> str:
    if any(r.outcome not in GOOD_OUTCOMES for r in got):
        return "failed"
    return "verified" if kind is StageKind.CANARY else "done"


def roll_out(
    plan: list[list[Target]],
    run_batch: Callable[[list[Target], int], list[DeviceResult]],
    *,
    canary: bool,
    max_failures: int | None,
    on_stage: Callable[[StageEvent], None] | None = None,
) -> tuple[list[DeviceResult], list[StageEvent]]:
    """Run the stages in order: every device's result, and how each stage ended. With more than one
    stage, ``on_stage`` hears each stage start and end (a canary named, then the batches)."""
    results: list[DeviceResult] = []
    ends: list[StageEvent] = []
    staged = len(plan) > 1 or canary

    def tell(event: StageEvent) -> None:
        if staged and on_stage is not None:
            on_stage(event)

    stop: str | None = None
    for number, batch in enumerate(plan, start=1):
        kind, names = _stage(number, batch, canary)
        if stop is not None:
            results.extend(skipped(t, number, stop) for t in batch)
            ends.append(StageEvent(number, kind, names, "skipped", stop))
            tell(ends[-1])
            continue
        tell(StageEvent(number, kind, names, "start", _started(plan, number, canary)))
        got = run_batch(batch, number)
        results.extend(got)
        failures = sum(1 for r in results if r.outcome in FAILED_OUTCOMES)
        if canary and number == 1 and any(r.outcome not in GOOD_OUTCOMES for r in got):
            stop = "not attempted: the canary batch did not verify"
        elif max_failures is not None and failures >= max_failures:
            stop = f"not attempted: {failures} devices failed (--max-failures {max_failures})"
        ends.append(StageEvent(number, kind, names, _ended(got, kind), "the rest stops" if stop else ""))
        tell(ends[-1])
    return results, ends if staged else []
