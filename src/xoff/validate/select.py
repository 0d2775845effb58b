"""``validate --limit / --checks / --tags``: which devices are judged and which checks run.

Devices: the ``--limit`` syntax push and collect use (``connect.targets.select``: names, globs, roles, platforms,
kinds, groups), over every device of the fabric. A device that is not selected is not contacted and not judged: it is
cut out of the observed snapshot, no finding names it, a check none of whose subjects is selected is skipped saying
so, and the report lists it as not selected (``Validation.not_selected``), never as passed.

Checks: ``--checks`` id globs (``lossless.*``, ``drift.state``) and ``--tags`` (a check's family, the id before the
dot, and its ``Check.tags``); a check chosen by either runs. Every term must choose something, else it is bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TypeVar

from xoff.contracts.observed import Snapshot
from xoff.desired.models import FabricState
from xoff.errors import InputError, Location, Problem
from xoff.validate.registry import Registry

V = TypeVar("V")


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


def restrict(snapshot: Snapshot, devices: frozenset[str]) -> Snapshot:
    """The snapshot with only ``devices`` (their observed state, extras and errors); the InfiniBand fabric, read from
    the subnet manager as a whole, stays."""

    def only(by_device: dict[str, V]) -> dict[str, V]:
        return {k: v for k, v in by_device.items() if k in devices}

    observed = snapshot.observed.model_copy(update={"devices": only(snapshot.observed.devices)})
    return snapshot.model_copy(
        update={
            "observed": observed,
            "observed_fields": only(snapshot.observed_fields),
            "lldp": only(snapshot.lldp),
            "bgp_sessions": only(snapshot.bgp_sessions),
            "counters": only(snapshot.counters),
            "hosts": only(snapshot.hosts),
            "fib": only(snapshot.fib),
            "port_settings": only(snapshot.port_settings),
            "buffer_pool_watermarks": only(snapshot.buffer_pool_watermarks),
            "unmodelled": only(snapshot.unmodelled),
            "captures_absent": only(snapshot.captures_absent),
            "errors": [e for e in snapshot.errors if e.device in devices or e.device == "infiniband"],
        }
    )
