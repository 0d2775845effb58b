"""YAML loading that remembers where every value was written.

PyYAML's composer gives nodes with marks; we build plain Python data from them and keep a
``SourceMap`` from the path of each value (a tuple of keys and indexes) to its location, so
that any later error, from pydantic or from a semantic check, can point at file:line:column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from xoff.errors import InputError, Location, Problem

Path_ = tuple[str | int, ...]

try:  # the C loader is several times faster on large intents
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment,attr-defined,unused-ignore]
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


@dataclass
class SourceMap:
    """Where each value (and each mapping key) of the loaded data was written."""

    values: dict[Path_, Location] = field(default_factory=dict)
    keys: dict[Path_, Location] = field(default_factory=dict)

    def value(self, path: Iterable[str | int]) -> Location | None:
        """Location of the value at ``path``, or of its nearest written ancestor."""
        p = tuple(path)
        while True:
            loc = self.values.get(p)
            if loc is not None or not p:
                return loc
            p = p[:-1]

    def key(self, path: Iterable[str | int]) -> Location | None:
        """Location of the key naming the value at ``path`` (falls back to the value)."""
        p = tuple(path)
        return self.keys.get(p) or self.value(p)

    def update_prefixed(self, other: SourceMap, old: Path_, new: Path_) -> None:
        """Copy entries of ``other`` under ``old`` to live under ``new`` in this map."""
        n = len(old)
        for src, dst in ((other.values, self.values), (other.keys, self.keys)):
            for p, loc in list(src.items()):
                if p[:n] == old:
                    dst[new + p[n:]] = loc


def _loc(file: str, mark: yaml.Mark) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


class _Builder:
    def __init__(self, file: str) -> None:
        self.file = file
        self.smap = SourceMap()
        self.problems: list[Problem] = []
        self._scalars = yaml.constructor.SafeConstructor()

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.smap.values[path] = _loc(self.file, node.start_mark)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
        try:
            return self._scalars.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            self.problems.append(Problem(_loc(self.file, node.start_mark), _dotted(path), f"bad value: {exc.problem}"))
            return None

    def _mapping(self, node: yaml.MappingNode, path: Path_) -> dict[str, Any]:
        out: dict[str, Any] = {}
        inherited: dict[str, Any] = {}  # from `<<: *anchor`; explicit keys override these
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                mpath = (*path, "<<")
                merged = self.build(value_node, mpath)
                for i, item in enumerate(merged if isinstance(merged, list) else [merged]):
                    if isinstance(item, dict):
                        src = (*mpath, i) if isinstance(merged, list) else mpath
                        for k, v in item.items():
                            if k not in inherited:
                                inherited[k] = v
                                self.smap.update_prefixed(self.smap, (*src, k), (*path, k))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problems.append(
                    Problem(_loc(self.file, key_node.start_mark), _dotted(path), "mapping keys must be plain")
                )
                continue
            key = str(self._scalars.construct_object(key_node))
            here = (*path, key)
            if key in out:
                first = self.smap.keys.get(here)
                self.problems.append(
                    Problem(
                        _loc(self.file, key_node.start_mark),
                        _dotted(here),
                        f"duplicate key, first at {first} (allowed: each key once per mapping)",
                    )
                )
                continue
            self.smap.keys[here] = _loc(self.file, key_node.start_mark)
            out[key] = self.build(value_node, here)
        return {**{k: v for k, v in inherited.items() if k not in out}, **out}


def _dotted(path: Iterable[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


dotted = _dotted


# PyYAML's wording of common mistakes, and what to write instead.
_HINTS = (
    ("mapping values are not allowed", "a key indented like the keys above it; quote a value that contains ': '"),
    ("expected '-' indicator", "every item of a list indented like its first '-'"),
    ("tab character", "spaces for indentation, never tabs"),
    ("could not find expected ':'", "'key: value' pairs; quote values that contain ':' or '#'"),
    ("found undefined alias", "an alias *name that an earlier &name anchor defines"),
)
_UNCLOSED = {
    "flow sequence": ("[", "a flow list [a, b, ...] closed with ']'"),
    "flow mapping": ("{", "a flow mapping {a: 1, ...} closed with '}'"),
}


def _syntax_problem(name: str, exc: yaml.MarkedYAMLError) -> Problem:
    """One line per syntax error, in words a network engineer can act on."""
    problem = exc.problem or "malformed YAML"
    context = exc.context or ""
    for kind, (opener, allowed) in _UNCLOSED.items():
        if f"while parsing a {kind}" in context and exc.context_mark is not None and "expected ','" in problem:
            return Problem(
                _loc(name, exc.context_mark), "", f"malformed YAML: '{opener}' is not closed (allowed: {allowed})"
            )
    mark = exc.problem_mark or exc.context_mark
    loc = _loc(name, mark) if mark else Location(name, 1, 1)
    hint = next((h for key, h in _HINTS if key in problem), "valid YAML")
    return Problem(loc, "", f"malformed YAML: {problem} (allowed: {hint})")


def load_yaml(path: Path, display: str | None = None) -> tuple[Any, SourceMap]:
    """Load one YAML file; raise :class:`InputError` on syntax errors or duplicate keys."""
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError([Problem(Location(name, 1, 1), "", f"cannot read file: {exc.strerror}")]) from None
    except UnicodeDecodeError:
        raise InputError([Problem(Location(name, 1, 1), "", "not UTF-8 text")]) from None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        raise InputError([_syntax_problem(name, exc)]) from None
    builder = _Builder(name)
    data = None if node is None else builder.build(node, ())
    if builder.problems:
        raise InputError(builder.problems)
    return data, builder.smap
