"""The import graph of src/xoff, read with ast (nothing imported): the lab stays a provider (nothing
outside src/xoff/lab/ imports xoff.lab except the CLI's lab commands), the connection layer sits below
push, collect and validate, and no module of theirs is in an import cycle."""

from __future__ import annotations

import ast
import warnings
from functools import cache
from pathlib import Path

from tests.support.paths import ROOT

SRC = ROOT / "src"
PACKAGE = SRC / "xoff"
CLI = "src/xoff/cli/__init__.py"
LAB_COMMANDS = "_lab_app"  # the function of src/xoff/cli/__init__.py that mounts `xoff lab ...` (lab, fault, export)
# connect/ reads each platform's transport from its record (options._transport): the registry, not its code
CONNECT_MAY_IMPORT = (
    "xoff.connect",
    "xoff.contracts",
    "xoff.desired",
    "xoff.errors",
    "xoff.platforms.registry",
    "xoff.platforms.record",
)


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> list[tuple[str, int]]:
    """(module imported, line) of every xoff import in ``path``, at any depth (lazy ones included)."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "xoff"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if name.split(".")[0] == "xoff":
                out.append((name, node.lineno))
                out += [(f"{name}.{a.name}", node.lineno) for a in node.names if f"{name}.{a.name}" in _modules()]
    return out


def _owner(name: str) -> str:
    """The module a dotted import name lands in (``xoff.connect.batch.Ran`` -> ``xoff.connect.batch``)."""
    while name not in _modules() and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


@cache
def _graph() -> dict[str, frozenset[str]]:
    graph: dict[str, frozenset[str]] = {}
    for module, path in _modules().items():
        graph[module] = frozenset(_owner(n) for n, _ in _imports(path) if _owner(n) != module)
    return graph


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _lab_command_lines() -> range:
    tree = ast.parse((PACKAGE / "cli" / "__init__.py").read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == LAB_COMMANDS)
    return range(fn.lineno, (fn.end_lineno or fn.lineno) + 1)


def test_nothing_outside_the_lab_mentions_xoff_lab_but_the_clis_lab_commands() -> None:
    """``grep -rn "xoff.lab" src/xoff --include=*.py | grep -v "^src/xoff/lab/"``: only the CLI's lab commands."""
    lab_lines = _lab_command_lines()
    hits: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(SRC.parent).as_posix()
        if rel.startswith("src/xoff/lab/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "xoff.lab" not in line.replace("\\", "/") and "xoff/lab" not in line:
                continue
            if rel == CLI and number in lab_lines:
                continue
            hits.append(f"{rel}:{number}: {line.strip()}")
    assert hits == []


def test_no_module_outside_the_lab_imports_it() -> None:
    lab_lines = _lab_command_lines()
    found = [
        f"{module} line {line}: {name}"
        for module, path in _modules().items()
        if not module.startswith("xoff.lab")
        for name, line in _imports(path)
        if (name == "xoff.lab" or name.startswith("xoff.lab.")) and not (module == "xoff.cli" and line in lab_lines)
    ]
    assert found == []


def test_connect_sits_below_push_collect_and_validate() -> None:
    """connect/ imports only itself, the contracts, the neutral models, the errors and the platform registry."""
    graph = _graph()
    above = [
        f"{module} -> {target}"
        for module in graph
        if module.startswith("xoff.connect")
        for target in graph[module]
        if not target.startswith(CONNECT_MAY_IMPORT)
    ]
    assert above == []


def test_connect_collect_push_validate_are_in_no_import_cycle() -> None:
    """Module level: no cycle through connect/, collect/, push/, validate/ or the lab's provider. Cycles
    elsewhere, and between whole subpackages, are reported (a warning), not failed here."""
    graph = _graph()
    cycles = _cycles(graph)
    mine = ("xoff.connect", "xoff.collect", "xoff.push", "xoff.validate", "xoff.lab.provider")
    assert [c for c in cycles if any(m.startswith(mine) for m in c)] == []
    packages: dict[str, frozenset[str]] = {}
    for module, targets in graph.items():
        top = ".".join(module.split(".")[:2])
        packages[top] = packages.get(top, frozenset()) | {".".join(t.split(".")[:2]) for t in targets} - {top}
    others = [c for c in cycles if not any(m.startswith(mine) for m in c)] + _cycles(
        {p: frozenset(t for t in ts if t != "xoff") for p, ts in packages.items() if p != "xoff"}
    )
    if others:
        warnings.warn(f"import cycles (modules elsewhere; whole subpackages): {others}", stacklevel=1)
