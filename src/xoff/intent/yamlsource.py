"""YAML loading that remembers where every value was written.

PyYAML's composer gives nodes with marks; we build plain Python data from them and keep a
``SourceMap`` from the path of each value (a tuple of keys and indexes) to its location, so
that any later error, from pydantic or from a semantic check, can point at file:line:column.
"""

from __future__ import annotations

import errno
import re
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


# Bounds on the work one intent file can cause (documented in docs/intent-limits.md).
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_ALIAS_NODES = 100_000
MAX_NODES = 500_000  # scalars, lists and mappings written in one file


class _AliasBombError(Exception):
    """Aliases brought in more nodes than MAX_ALIAS_NODES."""

    def __init__(self, path: Path_) -> None:
        self.path = path


def _loc(file: str, mark: yaml.Mark) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


class _Builder:
    def __init__(self, file: str) -> None:
        self.file = file
        self.smap = SourceMap()
        self.problems: list[Problem] = []
        self._scalars = yaml.constructor.SafeConstructor()
        self._seen: set[int] = set()
        self._alias_nodes = 0  # nodes built again because an alias (or a merge) brought them in

    def build(self, node: yaml.Node, path: Path_) -> Any:
        if id(node) in self._seen:
            self._alias_nodes += 1
            if self._alias_nodes > MAX_ALIAS_NODES:
                raise _AliasBombError(path)
        else:
            self._seen.add(id(node))
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
    ("did not find expected key", "a key indented like the keys above it"),
    ("found undefined alias", "an alias *name that an earlier &name anchor defines"),
)
_UNCLOSED = {
    "flow sequence": ("[", "a flow list [a, b, ...] closed with ']'"),
    "flow mapping": ("{", "a flow mapping {a: 1, ...} closed with '}'"),
}


def _syntax_problem(name: str, exc: yaml.MarkedYAMLError, text: str) -> Problem:
    """One line per syntax error, at the line of the mistake, in words a network engineer can act on."""
    problem = exc.problem or "malformed YAML"
    context = exc.context or ""
    cmark = exc.context_mark
    for kind, (opener, allowed) in _UNCLOSED.items():
        if f"while parsing a {kind}" in context and cmark is not None and "expected ','" in problem:
            return Problem(_loc(name, cmark), "", f"malformed YAML: '{opener}' is not closed (allowed: {allowed})")
    mark = exc.problem_mark or cmark
    quoted = _unclosed_quote(name, text, mark.line if mark else 0)
    if quoted is not None:
        return quoted
    if "while scanning a simple key" in context and cmark is not None:
        # PyYAML notices a missing ':' only on the next line; the mistake is on the key's own line
        return _key_problem(name, cmark, text)
    if mark is not None and "mapping values are not allowed" in problem:
        glued = _glued_key_above(name, text, mark.line)
        if glued is not None:
            return glued
    if mark is not None and text[mark.index : mark.index + 1] == "\t":
        return Problem(
            _loc(name, mark), "", "malformed YAML: a tab character (allowed: spaces for indentation, never tabs)"
        )
    loc = _loc(name, mark) if mark else Location(name, 1, 1)
    hint = next((h for key, h in _HINTS if key in problem), "valid YAML")
    return Problem(loc, "", f"malformed YAML: {problem} (allowed: {hint})")


_QUOTE_START = re.compile(r"""^\s*(?:-\s+)?(?:[^\s#'"][^#'"]*:\s+)?(["'])""")


def _unclosed_quote(name: str, text: str, last: int) -> Problem | None:
    """The first value opened by a quote that its line does not close, up to the error's line.

    A quoted value may span lines in YAML, so an unclosed quote swallows what follows and the
    parser fails later, at the next quote; the mistake is where the value began."""
    for n, line in enumerate(text.splitlines()[: last + 1]):
        m = _QUOTE_START.match(line)
        if m is None:
            continue
        quote, rest = m.group(1), line[m.end() :]
        closed = rest.replace("''", "") if quote == "'" else re.sub(r"\\.", "", rest)
        if quote not in closed:
            return Problem(
                Location(name, n + 1, m.start(1) + 1),
                "",
                f"malformed YAML: {quote!r} is not closed (allowed: a quoted value closed by the same quote)",
            )
    return None


_GLUED_KEY = re.compile(r"""^(\s*(?:-\s+)?[^\s:#'"]+):(?=\S)""")
_NO_SPACE = "malformed YAML: no space after ':' (allowed: 'key: value' with a space after the colon)"


def _glued_key_above(name: str, text: str, line: int) -> Problem | None:
    """``key:value`` on the line above: a plain scalar the parser carried on to the next line's ':'."""
    above = [(n, t) for n, t in enumerate(text.splitlines()[:line]) if t.strip() and not t.lstrip().startswith("#")]
    if not above:
        return None
    n, prev = above[-1]
    m = _GLUED_KEY.match(prev)
    return Problem(Location(name, n + 1, m.end(1) + 1), "", _NO_SPACE) if m else None


def _key_problem(name: str, mark: yaml.Mark, text: str) -> Problem:
    line = text.splitlines()[mark.line] if mark.line < len(text.splitlines()) else ""
    colon = re.search(r":(?=\S)", line[mark.column :])
    if colon is not None:
        col = mark.column + colon.start() + 1
        return Problem(Location(name, mark.line + 1, col), "", _NO_SPACE)
    return Problem(
        _loc(name, mark),
        "",
        "malformed YAML: could not find expected ':' (allowed: 'key: value' pairs; quote values that contain ':' or '#')",
    )


def _too_big(name: str, size: int) -> Problem:
    return Problem(
        Location(name, 1, 1),
        "",
        f"file is {size} bytes, over the limit of {MAX_FILE_BYTES} bytes per intent file"
        " (allowed: split the intent into several files of a directory)",
    )


def _read_text(path: Path, name: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError([_too_big(name, size)])
        with path.open("rb") as fh:  # the size may grow between stat and read: never read past the limit
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError([Problem(Location(name, 1, 1), "", f"cannot read file: {_why(path, exc)}")]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError([_too_big(name, len(raw))])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError([Problem(Location(name, 1, 1), "", "not UTF-8 text")]) from None


def _why(path: Path, exc: OSError) -> str:
    if path.is_symlink():
        if exc.errno == errno.ELOOP:
            return "symlink loop (allowed: a symlink to a readable file)"
        if exc.errno == errno.ENOENT:
            return f"dangling symlink to {path.readlink()} (allowed: a symlink to a readable file)"
    return exc.strerror or str(exc)


def _mark_loc(name: str, mark: Any) -> Location:
    return _loc(name, mark) if mark is not None else Location(name, 1, 1)


def _count_nodes(name: str, text: str) -> None:
    """Refuse a file of more than MAX_NODES nodes from its event stream, before building any of them."""
    count = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.NodeEvent) and not isinstance(event, yaml.AliasEvent):
            count += 1
            if count > MAX_NODES:
                raise InputError(
                    [
                        Problem(
                            _mark_loc(name, event.start_mark),
                            "",
                            f"more than {MAX_NODES} YAML nodes in one file"
                            " (allowed: split the intent into several files, or use brace patterns and roles)",
                        )
                    ]
                )


def load_yaml(path: Path, display: str | None = None) -> tuple[Any, SourceMap]:
    """Load one YAML file; raise :class:`InputError` on syntax errors, duplicate keys or a bound exceeded."""
    name = display or str(path)
    text = _read_text(path, name)
    try:
        _count_nodes(name, text)
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        raise InputError([_syntax_problem(name, exc, text)]) from None
    builder = _Builder(name)
    try:
        data = None if node is None else builder.build(node, ())
    except _AliasBombError as bomb:
        where = bomb.path
        while where and where not in builder.smap.keys:
            where = where[:-1]
        raise InputError(
            [
                Problem(
                    builder.smap.key(where),
                    _dotted(where),
                    f"YAML aliases bring in more than {MAX_ALIAS_NODES} nodes"
                    f" (allowed: at most {MAX_ALIAS_NODES} nodes copied by aliases per file)",
                )
            ]
        ) from None
    if builder.problems:
        raise InputError(builder.problems)
    return data, builder.smap
