"""The import graph of src/xoff, read with ast (nothing imported): the lab stays a provider (nothing
outside src/xoff/lab/ imports xoff.lab except the CLI's lab commands), the connection layer sits below
push, collect and validate, and no module of theirs is in an import cycle."""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.fresh_ast import parsed
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


@cache
def _parsed() -> dict[Path, dict[str, Any]]:
    return parsed(sorted(PACKAGE.rglob("*.py")))


def _imports(path: Path) -> list[tuple[str, int]]:
    """(module imported, line) of every xoff import in ``path``, at any depth (lazy ones included)."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out: list[tuple[str, int]] = []
    for node in _parsed()[path]["imports"]:
        if node["kind"] == "import":
            out += [(name, node["line"]) for name in node["names"] if name.split(".")[0] == "xoff"]
            continue
        if node["level"]:
            base = package.split(".")[: len(package.split(".")) - node["level"] + 1]
            name = ".".join([*base, *([node["module"]] if node["module"] else [])])
        else:
            name = node["module"] or ""
        if name.split(".")[0] == "xoff":
            submodules = [f"{name}.{a}" for a in node["names"] if f"{name}.{a}" in _modules()]
            # ``from pkg import submodule`` depends on the submodule, not on what pkg/__init__ defines
            if len(submodules) < len(node["names"]):
                out.append((name, node["line"]))
            out += [(s, node["line"]) for s in submodules]
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
    first, last = _parsed()[PACKAGE / "cli" / "__init__.py"]["functions"][LAB_COMMANDS]
    return range(first, last + 1)


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


def _subpackage(module: str) -> str:
    """``xoff.deadlock.routing`` -> ``xoff.deadlock``; each platform package and the registry on their own
    (``xoff.platforms.sonic``, ``xoff.platforms.registry``): the registry sits below, the platforms above."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[:2] == ["xoff", "platforms"] else parts[:2])


def test_no_module_is_in_an_import_cycle() -> None:
    """Module level, type-only imports included: no cycle anywhere in src/xoff (connect/, collect/, push/,
    validate/ and the lab's provider above all). Cycles between whole subpackages are reported (a warning)."""
    graph = _graph()
    assert _cycles(graph) == []
    packages: dict[str, frozenset[str]] = {}
    for module, targets in graph.items():
        top = _subpackage(module)
        packages[top] = packages.get(top, frozenset()) | {_subpackage(t) for t in targets} - {top}
    whole = _cycles({p: frozenset(t for t in ts if t != "xoff") for p, ts in packages.items() if p != "xoff"})
    if whole:
        warnings.warn(f"import cycles between whole subpackages: {whole}", stacklevel=1)
