"""The shape of CONFIG_DB as SONiC's YANG models define it, read from the compiled schema.

``yanglint -f tree`` prints every module compiled (groupings expanded) as an RFC 8340 tree. This
module parses that text into a small tree of nodes: for each CONFIG_DB table (a container under a
module's top container, e.g. ``sonic-port/PORT``) its containers, lists with their keys, leaves and
leaf-lists. ``choice``/``case`` are transparent in instance data, so their children join the
parent. Namespaces and imports come from the module files' own ``namespace``/``import`` statements.
Nothing about particular tables is hard-coded.

(``yanglint -f info`` would print the compiled schema in YANG syntax, but libyang 2.1.30's printer
runs multi-key list keys together, ``key "portpg_num"``, and leaves a ``unique`` argument unclosed;
the tree printer gets both right.)

The parsed schema is cached in memory per directory (keyed by the files' names, sizes and mtimes).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from xoff.platforms.sonic.settings import yang_dir

NodeKind = Literal["container", "list", "leaf", "leaf-list"]


class YanglintMissingError(RuntimeError):
    """yanglint (Debian: libyang2-tools) is not installed."""


class YangSchemaError(RuntimeError):
    """The models could not be compiled or their compiled form not understood."""


@dataclass
class Node:
    """A schema data node. ``keys``: the list's key leaves in order; ``type``: a leaf's base type."""

    name: str
    kind: NodeKind
    keys: tuple[str, ...] = ()
    type: str | None = None
    children: dict[str, Node] = field(default_factory=dict)

    def lists(self) -> list[Node]:
        return [c for c in self.children.values() if c.kind == "list"]

    def value_children(self) -> list[Node]:
        return [c for c in self.children.values() if c.kind in ("leaf", "leaf-list")]


@dataclass(frozen=True)
class Table:
    """One CONFIG_DB table: ``module`` / ``top`` container / ``node`` (the table's container)."""

    name: str
    module: str
    namespace: str
    top: str
    node: Node


@dataclass(frozen=True)
class Module:
    name: str
    namespace: str
    prefix: str
    file: Path
    imports: tuple[str, ...]


@dataclass(frozen=True)
class YangSchema:
    directory: Path
    modules: dict[str, Module]
    tables: dict[str, Table]

    def load_order(self, modules: Iterable[str] | None = None) -> list[Path]:
        """Module files, each after the modules it imports (else by name), so that libyang compiles
        ``must``/``when`` expressions with their referenced modules implemented (loaded in another
        order, yanglint warns "check skipped because referenced module ... is not implemented").

        ``modules``: only these and what they import, transitively (default: every module). An
        XPath in a model can only name modules it imports, so this subset validates data of these
        modules exactly as the whole set does, and yanglint starts ~15x faster.
        """
        done: dict[str, None] = {}

        def visit(name: str, trail: tuple[str, ...]) -> None:
            if name in done or name in trail or name not in self.modules:
                return
            for dep in self.modules[name].imports:
                visit(dep, (*trail, name))
            done[name] = None

        for name in sorted(self.modules if modules is None else modules):
            visit(name, ())
        return [self.modules[n].file for n in done]


# --- RFC 8340 tree text -> schema ----------------------------------------------------------------

# "<indent>+--rw name<opts> [k1 k2] <type>"; "+--:(case)" and "+--rw (choice)?" are transparent.
_TREE_LINE = re.compile(
    r"^(?P<indent>[ |]*)(?P<status>[+xo])--(?:(?P<case>:\((?P<case_name>[^)]+)\))|"
    r"(?P<flags>\S+) (?P<name>\(?[^\s?!*()]+\)?)(?P<opts>[?!*]*)(?: +\[(?P<keys>[^\]]*)\])?(?: +(?P<type>\S.*))?)$"
)
_MODULE_LINE = re.compile(r"^module: (?P<name>\S+)$")
_SECTION_LINE = re.compile(r"^ {2}\S.*:$")  # "  rpcs:", "  notifications:", "  augment /x:y:", ...


def _tree_node(match: re.Match[str]) -> Node | None:
    """The data node of a tree line, or None for a transparent choice/case line."""
    name = match.group("name")
    if match.group("case") is not None or name.startswith("("):
        return None
    opts, keys, type_ = match.group("opts"), match.group("keys"), match.group("type")
    kind: NodeKind
    if "*" in opts:  # a list has children (and keys), a leaf-list a type
        kind = "list" if type_ is None else "leaf-list"
    elif type_ is None:
        kind = "container"
    else:
        kind = "leaf"
    return Node(name=name, kind=kind, keys=tuple(keys.split()) if keys else (), type=type_)


def parse_tree(text: str) -> dict[str, list[Node]]:
    """Module name -> its top-level data nodes, from ``yanglint -f tree`` output (RFC 8340)."""
    out: dict[str, list[Node]] = {}
    tops: list[Node] | None = None
    stack: list[tuple[int, Node | None]] = []  # (column of "--", node or None for choice/case)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        module = _MODULE_LINE.match(line)
        if module is not None:
            tops = out.setdefault(module.group("name"), [])
            stack = []
            continue
        if tops is None:
            raise YangSchemaError(f"tree line {number} comes before any 'module:' line: {line!r}")
        if _SECTION_LINE.match(line):
            tops = []  # rpcs, notifications, augments: not CONFIG_DB tables; parsed, then dropped
            stack = []
            continue
        match = _TREE_LINE.match(line)
        if match is None:
            raise YangSchemaError(f"cannot read tree line {number}: {line!r}")
        column = len(match.group("indent"))
        while stack and stack[-1][0] >= column:
            stack.pop()
        node = _tree_node(match)
        parent = next((n for _, n in reversed(stack) if n is not None), None)
        if node is not None:
            if parent is None:  # also a node under a top-level choice: still top-level in data
                tops.append(node)
            else:
                if parent.kind not in ("container", "list"):
                    raise YangSchemaError(f"tree line {number}: {node.name} sits under {parent.kind} {parent.name}")
                parent.children[node.name] = node
        stack.append((column, node))
    return out


_NAMESPACE = re.compile(r"^\s*namespace\s+[\"']?([^\"';\s]+)", re.MULTILINE)
_PREFIX = re.compile(r"^\s*prefix\s+[\"']?([^\"';\s]+)", re.MULTILINE)
_IMPORT = re.compile(r"^\s*import\s+([\w.-]+)", re.MULTILINE)


def _module(name: str, file: Path) -> Module:
    text = file.read_text(encoding="utf-8")
    ns, prefix = _NAMESPACE.search(text), _PREFIX.search(text)
    if ns is None or prefix is None:
        raise YangSchemaError(f"{file}: no namespace or prefix statement")
    return Module(name, ns.group(1), prefix.group(1), file, tuple(_IMPORT.findall(text)))


def schema_from_tree(directory: Path, tree: str, files: dict[str, Path]) -> YangSchema:
    modules: dict[str, Module] = {}
    tables: dict[str, Table] = {}
    for name, tops in parse_tree(tree).items():
        file = files.get(name)
        if file is None:
            continue  # only modules in the directory are CONFIG_DB sources
        module = modules[name] = _module(name, file)
        for top in tops:
            if top.kind != "container":
                continue
            for table in top.children.values():
                if table.kind != "container":
                    continue
                if table.name in tables:
                    other = tables[table.name].module
                    raise YangSchemaError(f"table {table.name} is defined by both {other} and {name}")
                tables[table.name] = Table(table.name, name, module.namespace, top.name, table)
    if not modules:
        raise YangSchemaError(f"no YANG modules compiled from {directory}")
    return YangSchema(directory=directory, modules=modules, tables=tables)


def yanglint() -> str:
    path = shutil.which("yanglint")
    if path is None:
        raise YanglintMissingError("yanglint not found: install Debian package libyang2-tools (make system-deps)")
    return path


def _module_files(directory: Path) -> dict[str, Path]:
    return {p.stem.split("@", 1)[0]: p for p in sorted(directory.glob("*.yang"))}


def _fingerprint(directory: Path) -> tuple[tuple[str, int, int], ...]:
    return tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(directory.glob("*.yang")))


def load_schema(directory: Path | None = None) -> YangSchema:
    """The compiled schema of every ``*.yang`` in ``directory`` (default: settings.yang_dir())."""
    resolved = yang_dir(directory).resolve()
    return _load_cached(resolved, _fingerprint(resolved))


@lru_cache(maxsize=8)
def _load_cached(directory: Path, fingerprint: tuple[tuple[str, int, int], ...]) -> YangSchema:
    del fingerprint  # part of the cache key only: a changed file means a new entry
    files = _module_files(directory)
    proc = subprocess.run(
        [yanglint(), "-Q", "-f", "tree", "-L", "100000", "-p", str(directory), *(str(p) for p in files.values())],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise YangSchemaError(f"yanglint cannot compile the models in {directory}: {proc.stderr.strip()}")
    return schema_from_tree(directory, proc.stdout, files)
