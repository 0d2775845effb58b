"""What a schema problem took out of the intent, so the later stages judge the rest.

A schema problem (a wrong type, an unknown key, a missing field) breaks one *unit* of the intent:
one switch, host or link entry, one QoS policy, host profile or role, one network. The unit is
left out (a required one is replaced by a placeholder no stage judges), the rest is validated
again, and every later stage runs on it. What the lost units defined is remembered here, so a
reference to it (a cable to a switch whose entry was broken, a host of a broken profile, a network
using a broken policy) is not reported again as a problem of its own: the user never wrote that
mistake, the schema problem already says what to fix.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any, get_args

from pydantic import ValidationError

from xoff.intent.devices import RoleKey
from xoff.intent.patterns import PatternError, expand
from xoff.intent.pydantic_errors import data_path
from xoff.intent.yamlsource import Path_

_DEVICE_SECTIONS = ("switches", "ib_switches", "hosts")
_CABLING_SECTIONS = ("links", "cabling")
_LIST_SECTIONS = (*_DEVICE_SECTIONS, *_CABLING_SECTIONS)
_NAMED_SECTIONS = ("qos_policies", "host_profiles", "roles")
_NETWORKS = ("management", "compute", "storage")
_ROLE_KEYS: tuple[str, ...] = get_args(RoleKey)
MAX_LOST_NAMES = 100_000  # past this many names of broken entries, every unknown name counts as lost (bounds the work)
_PREFIX = "0.0.0.0/0"
_PLACEHOLDER_ROCE = {"kind": "roce", "qos_policy": "", "p2p_prefix": _PREFIX, "loopback_prefix": _PREFIX}
_PLACEHOLDER_IB = {"kind": "infiniband", "subnet_manager": {"host": ""}}


@dataclasses.dataclass
class Lost:
    """Names of one kind whose definition failed; ``every`` when which ones cannot be told."""

    names: set[str] = dataclasses.field(default_factory=set)
    every: bool = False

    def __contains__(self, name: object) -> bool:
        return self.every or name in self.names


@dataclasses.dataclass
class Damage:
    """The units a schema problem (or a failed resolution) took out, and where the kept ones were written."""

    devices: Lost = dataclasses.field(default_factory=Lost)
    policies: Lost = dataclasses.field(default_factory=Lost)
    profiles: Lost = dataclasses.field(default_factory=Lost)
    roles: Lost = dataclasses.field(default_factory=Lost)
    defaults: set[str] = dataclasses.field(default_factory=set)  # "switch", "ib_switch"
    networks: set[str] = dataclasses.field(default_factory=set)  # replaced by placeholders
    cabling: bool = False  # a link or generator entry was left out: the cabling is incomplete
    index: dict[tuple[str, int], int] = dataclasses.field(default_factory=dict)  # kept item -> written index

    def lose_unread(self) -> None:
        """A file could not be read: whatever it defined may be missing, so no reference or gap is judged."""
        for lost in (self.devices, self.policies, self.profiles, self.roles):
            lost.every = True
        self.defaults.update(("switch", "ib_switch"))
        self.networks.update(_NETWORKS)
        self.cabling = True

    def none(self) -> bool:
        """Nothing the planner reads was left out (at most the fabric's own fields, or an unknown key)."""
        lost = (self.devices, self.policies, self.profiles, self.roles)
        return not (any(x.every or x.names for x in lost) or self.defaults or self.networks or self.cabling)

    def origin(self, path: Path_) -> Path_:
        """The written path of a path into the kept data (list items shift when one is left out)."""
        if len(path) >= 2 and isinstance(path[0], str) and isinstance(path[1], int):
            written = self.index.get((path[0], path[1]))
            if written is not None:
                return (path[0], written, *path[2:])
        return path

    def switch_settings_lost(self, role: str) -> bool:
        """A switch of this role inherits from a role or default that was left out."""
        return "switch" in self.defaults or role in self.roles or any(r.endswith(f"-{role}") for r in self.roles.names)

    def lose_names(self, pattern: Any) -> None:
        """Remember the device names a broken entry's ``name`` stands for (all unknown names if unreadable)."""
        if self.devices.every:
            return
        if not isinstance(pattern, str):
            self.devices.every = True
            return
        try:
            names = expand(pattern)
        except PatternError:
            self.devices.every = True
            return
        if len(self.devices.names) + len(names) > MAX_LOST_NAMES:
            self.devices.every = True
            return
        self.devices.names.update(names)


def salvage(exc: ValidationError, data: dict[str, Any]) -> tuple[dict[str, Any], Damage] | None:
    """The data without the units the schema problems are in, and what was left out; None when a problem
    is not inside one unit (the stages after the schema are then not run)."""
    damage = Damage()
    drop: dict[str, set[int]] = {}
    kept = dict(data)
    for err in exc.errors():
        path = data_path(data, tuple(err["loc"]))
        if not path or not isinstance(path[0], str):
            return None
        _lose(damage, kept, data, path, drop)
    for section, gone in drop.items():
        items = data.get(section)
        if not isinstance(items, list) or not _untouched(kept, section, items):
            continue  # the whole section was left out
        left: list[Any] = []
        for i, item in enumerate(items):
            if i not in gone:
                damage.index[(section, len(left))] = i
                left.append(item)
        kept[section] = left
    return kept, damage


def _lose(damage: Damage, kept: dict[str, Any], data: dict[str, Any], path: Path_, drop: dict[str, set[int]]) -> None:
    section = str(path[0])
    if section in _LIST_SECTIONS:
        _lose_item(damage, kept, data, path, drop)
    elif section in _NAMED_SECTIONS:
        _lose_named(damage, kept, path)
    elif section == "defaults":
        _lose_defaults(damage, kept, path)
    elif section == "networks":
        _lose_network(damage, kept, data, path)
    elif section == "fabric":
        kept["fabric"] = {"name": "fabric"}
    else:  # an unknown top-level key: if it is a section misspelt, that section is as good as lost
        kept.pop(section, None)
        _lose_misspelt(damage, _meant(section, (*_LIST_SECTIONS, *_NAMED_SECTIONS, "defaults")))


def _untouched(kept: dict[str, Any], section: str, items: list[Any]) -> bool:
    """The kept section is still the written list (not replaced because all of it was left out)."""
    return kept.get(section) is items


def _lose_misspelt(damage: Damage, section: str | None) -> None:
    """What a misspelt section (``switchs:``) defined is unknown: any name it may have defined is lost."""
    if section in _DEVICE_SECTIONS:
        damage.devices.every = True
    elif section in _CABLING_SECTIONS:
        damage.cabling = True
    elif section in _NAMED_SECTIONS:
        _lost_of(damage, section).every = True
    elif section == "defaults":
        damage.defaults.update(("switch", "ib_switch"))


def _lose_item(
    damage: Damage, kept: dict[str, Any], data: dict[str, Any], path: Path_, drop: dict[str, set[int]]
) -> None:
    section = str(path[0])
    items = data.get(section)
    if section in _CABLING_SECTIONS:
        damage.cabling = True
    whole = len(path) < 2 or not isinstance(items, list) or not isinstance(path[1], int)
    if whole:
        kept[section] = []
        if section in _DEVICE_SECTIONS:
            damage.devices.every = True
        return
    assert isinstance(items, list) and isinstance(path[1], int)
    gone = drop.setdefault(section, set())
    if not _untouched(kept, section, items) or path[1] in gone:
        return  # the whole section, or this entry, is already left out
    gone.add(path[1])
    if section in _DEVICE_SECTIONS:
        item = items[path[1]]
        damage.lose_names(item.get("name") if isinstance(item, dict) else None)


def _lost_of(damage: Damage, section: str) -> Lost:
    return {"qos_policies": damage.policies, "host_profiles": damage.profiles, "roles": damage.roles}[section]


def _lose_named(damage: Damage, kept: dict[str, Any], path: Path_) -> None:
    section = str(path[0])
    lost = _lost_of(damage, section)
    current = kept.get(section)
    if len(path) < 2 or not isinstance(current, dict):
        kept[section] = {}
        lost.every = True
        return
    lost.names.add(str(path[1]))
    if section == "roles":  # a role key misspelt (leafs) was meant for the switches of the role it is like
        lost.names.add(_meant(str(path[1]), _ROLE_KEYS) or str(path[1]))
    kept[section] = {k: v for k, v in current.items() if k != path[1]}


def _lose_defaults(damage: Damage, kept: dict[str, Any], path: Path_) -> None:
    current = kept.get("defaults")
    if len(path) < 2 or not isinstance(current, dict):
        kept["defaults"] = {}
        damage.defaults.update(("switch", "ib_switch"))
        return
    kept["defaults"] = {k: v for k, v in current.items() if k != path[1]}
    meant = _meant(str(path[1]), ("switch", "ib_switch"))  # the key itself, or the one misspelt
    if meant is not None:
        damage.defaults.add(meant)


def _lose_network(damage: Damage, kept: dict[str, Any], data: dict[str, Any], path: Path_) -> None:
    written = data.get("networks")
    current = kept.get("networks")
    if len(path) < 2 or not isinstance(current, dict):
        kept["networks"] = {n: _placeholder(n, written) for n in _NETWORKS}
        damage.networks.update(_NETWORKS)
        return
    name = str(path[1])
    if name not in _NETWORKS:  # an unknown key: a network misspelt is as good as lost
        kept["networks"] = current = {k: v for k, v in current.items() if k != name}
        name = _meant(name, _NETWORKS) or name
    if name in _NETWORKS:
        damage.networks.add(name)
        kept["networks"] = {**current, name: _placeholder(name, written)}


def _meant(key: str, known: tuple[str, ...]) -> str | None:
    """The known key ``key`` is, or most likely a misspelling of (None when it is like none of them)."""
    if key in known:
        return key
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
    return close[0] if close else None


def _placeholder(name: str, written: Any) -> dict[str, Any]:
    """A network no stage judges, standing in for one the schema refused (its kind kept when readable)."""
    if name == "management":
        return {"prefix": _PREFIX}
    was = written.get(name) if isinstance(written, dict) else None
    if isinstance(was, dict) and was.get("kind") == "infiniband":
        return dict(_PLACEHOLDER_IB)
    return dict(_PLACEHOLDER_ROCE)
