"""``change``: what a change of intent (BASE -> HEAD: two paths, or git revisions) does to the fabric."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xoff.api.intent import load
from xoff.errors import InputError, usage_error

if TYPE_CHECKING:
    from xoff.change.model import ChangeReport


@dataclass(frozen=True)
class ChangeOptions:
    base: str  # an intent path, a git revision, or a range A...B (merge base of A and B -> B) / A..B
    head: str | None = None  # None: ``base`` is a range
    intent: str | None = None  # the intent's path inside the repository when the sides are revisions
    repo: Path = Path()  # the git repository revisions are read from (the work tree is never touched)
    failures: int = 1  # PFC deadlock: 0 baseline only, 1 also every single fabric-link failure
    config_diffs: int | None = 200  # render and diff the first N touched devices (None: all)


def change(options: ChangeOptions) -> ChangeReport:
    """Load and plan both sides once, run the pre-change catalog on each, and compare. ``InputError``: a bad
    path or revision, or a side that does not load (its problems, file names as ``REV:path``)."""
    from xoff.change.build import build_report  # noqa: PLC0415
    from xoff.change.source import relabel, resolve, split_range  # noqa: PLC0415
    from xoff.validate.run import pre_change_results  # noqa: PLC0415

    if options.config_diffs is not None and options.config_diffs < 0:
        raise usage_error(f"--config-diffs: {options.config_diffs} (allowed: 0 or more; all: every device)")
    if options.failures not in (0, 1):
        raise usage_error(f"--failures: {options.failures} is not supported (allowed: 0, 1)")
    started = time.perf_counter()
    base_spec, head_spec, merge = split_range(options.base, options.head)
    with tempfile.TemporaryDirectory(prefix="xoff-change-") as tmp:
        repo, inside, where = options.repo, options.intent, Path(tmp)
        base = resolve(
            base_spec, "BASE", repo=repo, intent=inside, tmp=where, merge_base_with=head_spec if merge else None
        )
        head = resolve(head_spec, "HEAD", repo=repo, intent=inside, tmp=where, merge_base_with=None)
        seconds = {"git": round(time.perf_counter() - started, 3)}
        loaded = []
        for side in (base, head):
            try:
                loaded.append(load(side.path))
            except InputError as exc:
                raise relabel(exc, side) from None
    old, new = loaded
    seconds["load + plan"] = round(time.perf_counter() - started - seconds["git"], 3)
    mark = time.perf_counter()
    base_results, head_results = pre_change_results(old.state), pre_change_results(new.state)
    seconds["pre-change catalog"] = round(time.perf_counter() - mark, 3)
    return build_report(
        old.state,
        new.state,
        base_label=base.label,
        head_label=head.label,
        base_results=base_results,
        head_results=head_results,
        failures=options.failures,
        started=started,
        seconds=seconds,
        config_diffs=options.config_diffs,
    )
