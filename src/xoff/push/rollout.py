"""Rollout order: a canary batch, then batches; stop starting batches after a failed canary or once
``max_failures`` devices failed. Pure: ``run_batch`` does the pushing, whatever the engine."""

from __future__ import annotations

from collections.abc import Callable

from xoff.connect.targets import Target
from xoff.push.model import DeviceResult, Outcome

FAILED_OUTCOMES = (Outcome.FAILED, Outcome.ROLLED_BACK, Outcome.ROLLBACK_FAILED)
GOOD_OUTCOMES = (Outcome.CHANGED, Outcome.UNCHANGED, Outcome.DRY_RUN)


def batches(targets: list[Target], canary: int, batch_size: int) -> list[list[Target]]:
    """``[canary batch], then batches of batch_size`` (0: one batch for the rest).

    >>> [len(b) for b in batches([Target(str(i), "eos", "switch", "leaf", None, "x") for i in range(7)], 2, 3)]
    [2, 3, 2]
    """
    rest = list(targets)
    out: list[list[Target]] = []
    if canary > 0 and rest:
        out.append(rest[:canary])
        rest = rest[canary:]
    size = batch_size if batch_size > 0 else max(1, len(rest))
    out.extend(rest[i : i + size] for i in range(0, len(rest), size))
    return out


def skipped(target: Target, batch: int, why: str) -> DeviceResult:
    return DeviceResult(device=target.name, platform=target.platform, outcome=Outcome.SKIPPED, error=why, batch=batch)


def roll_out(
    plan: list[list[Target]],
    run_batch: Callable[[list[Target], int], list[DeviceResult]],
    *,
    canary: bool,
    max_failures: int | None,
) -> list[DeviceResult]:
    results: list[DeviceResult] = []
    stop: str | None = None
    for number, batch in enumerate(plan, start=1):
        if stop is not None:
            results.extend(skipped(t, number, stop) for t in batch)
            continue
        got = run_batch(batch, number)
        results.extend(got)
        failures = sum(1 for r in results if r.outcome in FAILED_OUTCOMES)
        if canary and number == 1 and any(r.outcome not in GOOD_OUTCOMES for r in got):
            stop = "not attempted: the canary batch did not verify"
        elif max_failures is not None and failures >= max_failures:
            stop = f"not attempted: {failures} devices failed (--max-failures {max_failures})"
    return results
