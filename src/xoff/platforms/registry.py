"""The one platform registry: every NOS or host type xoff knows, by the name devices carry.

Built-in platforms are one line each in ``BUILTIN`` below; a site adds its own as a separate package
through the ``xoff.platforms`` entry-point group (``name = "package:PLATFORM"``, the entry point's name
being the platform's). Built-ins are listed here rather than as entry points so a checkout works
without reinstalling (an editable install reads its entry points only when installed) and the order
of platforms (the intent schema's enum, the docs' tables) is the one written here, not the order of
installed distributions. A site platform cannot replace a built-in one.

Loading is lazy and cached: importing this module imports no platform package; the first
``platforms()`` imports each package's small ``__init__`` (its ``PLATFORM`` record) and reads the
entry points once. The records name their heavy parts as ``Ref`` strings, imported on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from importlib.metadata import entry_points  # already imported by pydantic: no cost of its own
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from xoff.platforms.record import Platform, Ref

if TYPE_CHECKING:
    from xoff.contracts.apply import ApplyStrategy
    from xoff.contracts.collect import Collector

ENTRY_POINT_GROUP = "xoff.platforms"

# device platform -> its record (one line per platform, in the order the docs and the schema list them)
BUILTIN: dict[str, str] = {
    "sonic": "xoff.platforms.sonic:PLATFORM",
    "eos": "xoff.platforms.eos:PLATFORM",
    "cumulus": "xoff.platforms.cumulus:PLATFORM",
    "linux": "xoff.platforms.linux:PLATFORM",
    "infiniband": "xoff.platforms.infiniband:PLATFORM",
}


class PlatformError(ValueError):
    """A platform record that cannot be registered (the message names it and says why)."""


class _EntryPoint(Protocol):
    """The slice of ``importlib.metadata.EntryPoint`` the registry reads."""

    name: str
    value: str

    def load(self) -> object: ...


def _entry_points() -> Iterable[_EntryPoint]:
    return entry_points(group=ENTRY_POINT_GROUP)


def _checked(name: str, record: object, where: str) -> Platform:
    if not isinstance(record, Platform):
        raise PlatformError(f"{where}: {name!r} is not a xoff.platforms.record.Platform")
    if record.name != name:
        raise PlatformError(f"{where}: registered as {name!r} but the record is named {record.name!r}")
    return record


@cache
def platforms() -> Mapping[str, Platform]:
    """Every registered platform by name: the built-ins in ``BUILTIN`` order, then the entry points' by name."""
    out = {name: _checked(name, Ref[object](path).load(), path) for name, path in BUILTIN.items()}
    for ep in sorted(_entry_points(), key=lambda e: e.name):
        where = f"entry point {ENTRY_POINT_GROUP}:{ep.name} ({ep.value})"
        if ep.name in out:
            raise PlatformError(f"{where}: platform {ep.name!r} is already registered")
        out[ep.name] = _checked(ep.name, ep.load(), where)
    return MappingProxyType(out)


def get_platform(name: str) -> Platform:
    try:
        return platforms()[name]
    except KeyError:
        raise KeyError(f"unknown platform {name!r} (allowed: {', '.join(platforms())})") from None


def names_hwsku(name: str) -> bool:
    """Whether a platform's config names the switch's hardware SKU (an unknown platform: no)."""
    record = platforms().get(name)
    return record is not None and record.names_hwsku


def names(kind: str | None = None) -> tuple[str, ...]:
    """The registered platform names (of one kind: ``switch``, ``host``, ``ib_switch``), in registry order."""
    return tuple(n for n, p in platforms().items() if kind is None or p.kind == kind)


def strategy_for(platform: str, run_id: str = "manual") -> ApplyStrategy:
    """A fresh apply strategy for a device of ``platform``; KeyError naming the platforms that have one."""
    record = get_platform(platform)
    if record.strategy is None:
        allowed = ", ".join(n for n, p in platforms().items() if p.strategy is not None)
        raise KeyError(f"no push strategy for platform {platform!r} (allowed: {allowed})")
    return record.new_strategy(run_id)


def collector_for(platform: str) -> Collector:
    """The collector for a device of ``platform``; KeyError naming the platforms that have one."""
    record = get_platform(platform)
    if record.collector is None:
        allowed = ", ".join(n for n, p in platforms().items() if p.collector is not None)
        raise KeyError(f"no collector for platform {platform!r} (allowed: {allowed})")
    return record.new_collector()
