"""``validate --limit / --checks / --tags``: which devices are judged and which checks run.

Devices: the ``--limit`` syntax push and collect use (``connect.targets.select``: names, globs, roles, platforms,
kinds, groups), over every device of the fabric. A device that is not selected is not contacted (live, lab) and not
judged: no finding names it, no result names it as not observed, a check none of whose subjects is selected is
skipped saying so, a check that judges the fabric as a whole (``Check.whole_fabric``) is skipped on observed state
when a device it needs was not selected, and the report lists the devices as not selected
(``Validation.not_selected``), never as passed. A snapshot's state of an unselected device stays, as the peer of a
selected one (a link's other end).

Checks: ``--checks`` id globs (``lossless.*``, ``drift.state``) and ``--tags`` (a check's family, the id before the
dot, and its ``Check.tags``); a check chosen by either runs. Every term must choose something, else it is bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem
from xoff.validate.registry import Registry


@dataclass(frozen=True)
class Selection:
    """The devices judged (None: all) and what was left out, for the report."""

    devices: frozenset[str] | None = None
    devices_not_selected: tuple[str, ...] = ()
    checks_not_selected: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, list[str]]:
        return {"devices": list(self.devices_not_selected), "checks": list(self.checks_not_selected)}


def select_devices(desired: FabricState, limit: Iterable[str]) -> frozenset[str] | None:
    """The device names ``limit`` chooses (None: no limit given, every device)."""
    from xoff.connect.targets import build_targets, select, terms_of  # noqa: PLC0415 - one parser for all

    if not terms_of(limit):
        return None
    return frozenset(t.name for t in select(build_targets(desired, kinds=None), limit))


def _option_problem(option: str, term: str, message: str) -> Problem:
    return Problem(Location(option, 1, 1), term, message)


def select_checks(ids: Sequence[str], registry: Registry, checks: Iterable[str], tags: Iterable[str]) -> list[str]:
    """The catalog's ``ids`` that a ``checks`` glob or a tag in ``tags`` chooses, in catalog order (all of them when
    neither is given)."""
    patterns = [p.strip() for value in checks for p in value.split(",") if p.strip()]
    wanted_tags = [t.strip() for value in tags for t in value.split(",") if t.strip()]
    if not patterns and not wanted_tags:
        return list(ids)
    tag_sets = {i: registry.get(i).tag_set() for i in ids}
    problems: list[Problem] = []
    chosen: set[str] = set()
    for pattern in patterns:
        hits = {i for i in ids if fnmatchcase(i, pattern)}
        if not hits:
            allowed = f"a check id or glob of this catalog: {', '.join(ids)}"
            problems.append(_option_problem("--checks", pattern, f"matches no check (allowed: {allowed})"))
        chosen |= hits
    known = sorted(set().union(*tag_sets.values())) if tag_sets else []
    for tag in wanted_tags:
        hits = {i for i in ids if tag in tag_sets[i]}
        if not hits:
            problems.append(_option_problem("--tags", tag, f"tags no check (allowed: {', '.join(known)})"))
        chosen |= hits
    if problems:
        raise InputError(problems)
    return [i for i in ids if i in chosen]
