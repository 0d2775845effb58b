"""Targets: every device push and collect can reach, with where and how to reach it.

Built from a FabricState (the intent's plan, or a target source's copy: ``connect.sources``, such as
a lab's with remapped addresses), so the address used is the one the rendered configuration carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from xoff.desired.models import Device, FabricState
from xoff.errors import InputError, Location, Problem

SSH_KINDS = ("switch", "host")  # InfiniBand switches are programmed by the subnet manager, not over SSH


@dataclass(frozen=True)
class Target:
    name: str
    platform: str
    kind: str  # "switch" | "host"
    role: str
    network: str | None
    address: str  # management address, without prefix length
    port: int = 22
    groups: tuple[str, ...] = field(default=())  # role_<role>, platform_<platform>, network_<network>, kind_<kind>


def _address(device: Device) -> str:
    return device.mgmt_address.split("/", 1)[0]


def _groups(device: Device) -> tuple[str, ...]:
    groups = [f"kind_{device.kind}", f"platform_{device.platform}", f"role_{device.role}"]
    if device.network:
        groups.append(f"network_{device.network}")
    return tuple(groups)


def build_targets(fabric: FabricState, kinds: Iterable[str] | None = SSH_KINDS) -> list[Target]:
    """Every SSH-managed device (``kinds=None``: every device, as ``validate --limit`` chooses among them), sorted
    by name."""
    wanted = None if kinds is None else set(kinds)
    return [
        Target(
            name=d.name,
            platform=d.platform,
            kind=d.kind,
            role=d.role,
            network=d.network,
            address=_address(d),
            groups=_groups(d),
        )
        for d in sorted(fabric.devices.values(), key=lambda d: d.name)
        if wanted is None or d.kind in wanted
    ]


GLOB = frozenset("*?[")
LIMIT_SYNTAX = "a device name or glob (leaf*), role, platform, kind or group such as role_leaf, network_roce"


def terms_of(limit: Iterable[str]) -> list[str]:
    """``--limit`` values, each repeatable and comma-separated (``--limit leaf1,leaf2 --limit role_spine``)."""
    return [t.strip() for value in limit for t in value.split(",") if t.strip()]


def _matches(term: str, target: Target) -> bool:
    """A glob matches the device's name or a group's (``leaf*`` is leaf1, leaf2, not sleaf1 of role leaf;
    ``role_*leaf`` is by role); a plain term is a name, role, platform, kind or group."""
    if GLOB & set(term):
        return any(fnmatchcase(n, term) for n in (target.name, *target.groups))
    return term in {target.name, target.role, target.platform, target.kind, *target.groups}


def select(targets: Iterable[Target], limit: Iterable[str]) -> list[Target]:
    """``--limit`` (push, collect, validate): device names, globs of names or groups (``leaf*``, ``gpu[1-4]``,
    ``role_*leaf``), roles, platforms, kinds, groups (``role_leaf``, ``platform_eos``, ``network_roce``); repeatable or comma-separated; a
    device matching any term is chosen. Every term must match something, else it is bad input (a typo must not push
    nothing, silently)."""
    pool = list(targets)
    terms = terms_of(limit)
    if not terms:
        return pool
    chosen: dict[str, Target] = {}
    problems: list[Problem] = []
    for term in terms:
        hits = [t for t in pool if _matches(term, t)]
        if not hits:
            problems.append(Problem(Location("--limit", 1, 1), term, f"matches no device (allowed: {LIMIT_SYNTAX})"))
        chosen.update((t.name, t) for t in hits)
    if problems:
        raise InputError(problems)
    return [t for t in pool if t.name in chosen]
