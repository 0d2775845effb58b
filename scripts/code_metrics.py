"""Size and shape of src/xoff: longest functions, largest modules, the import graph between subpackages.

Run it before and after a restructuring and compare (issue 12's closing note):

    python scripts/code_metrics.py                 # the top 25 of each, Markdown
    python scripts/code_metrics.py --top 40 --root src/xoff

Standard library only (ast), so it runs on any checkout without the project installed. A function's
length is its source lines from ``def`` to its last statement, decorators excluded; nested functions
count inside their parent and also on their own. The import graph takes every ``import xoff.X...``
and ``from xoff.X... import`` (type-only imports under ``if TYPE_CHECKING:`` included and marked),
grouped by subpackage (``xoff.deadlock``, ``xoff.platforms.sonic`` for a platform, ...); cycles are
the graph's strongly connected components with more than one node, and module-level cycles are listed
the same way.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Function:
    name: str  # qualified: Class.method, outer.inner
    path: str
    line: int
    lines: int


@dataclass(frozen=True)
class Import:
    source: str  # importing module, dotted
    target: str  # imported xoff module, dotted (longest prefix that is a module of the tree)
    type_only: bool


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def functions(tree: ast.Module, path: str) -> Iterator[Function]:
    def walk(node: ast.AST, prefix: str) -> Iterator[Function]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                yield Function(name, path, child.lineno, end - child.lineno + 1)
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def _type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.Module, source: str, is_package: bool, modules: set[str]) -> Iterator[Import]:
    def resolve(name: str) -> str | None:
        parts = name.split(".")
        while parts:
            candidate = ".".join(parts)
            if candidate in modules:
                return candidate
            parts.pop()
        return None

    def targets(node: ast.Import | ast.ImportFrom) -> Iterator[str | None]:
        if isinstance(node, ast.Import):
            yield from (resolve(alias.name) for alias in node.names)
            return
        base = node.module or ""
        if node.level:  # relative: from the importing module's package, up level - 1
            package = source.split(".") if is_package else source.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        yield from (resolve(f"{base}.{alias.name}") or resolve(base) for alias in node.names)

    def walk(node: ast.AST, type_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield from (Import(source, t, type_only) for t in targets(child) if t is not None)
            else:
                yield from walk(child, type_only or _type_checking_block(child))

    yield from walk(tree, False)


def group(module: str) -> str:
    """The subpackage a module belongs to: xoff.<pkg>, or xoff.platforms.<nos> / xoff.lab.emulators.<nos>."""
    parts = module.split(".")
    if len(parts) <= 2:
        return module
    if parts[1] in ("platforms",) or parts[1:3] == ["lab", "emulators"]:
        return ".".join(parts[: 4 if parts[1] == "lab" else 3])
    return ".".join(parts[:2])


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (mutual reachability: the graphs are small)."""
    nodes = sorted(set(edges) | {b for targets in edges.values() for b in targets})
    reach = {n: _reachable(edges, n) for n in nodes}
    out: list[list[str]] = []
    placed: set[str] = set()
    for n in nodes:
        if n in placed:
            continue
        component = sorted(m for m in reach[n] if n in reach[m]) or [n]
        placed.update(component)
        if len(component) > 1:
            out.append(component)
    return sorted(out)


def report(root: Path, top: int) -> str:
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {module_name(root, p) for p in files}
    funcs: list[Function] = []
    sizes: list[tuple[int, str]] = []
    found: list[Import] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
        rel = str(path.relative_to(root.parent.parent))
        sizes.append((len(text.splitlines()), rel))
        funcs.extend(functions(tree, rel))
        name = module_name(root, path)
        found.extend(imports(tree, name, path.name == "__init__.py", modules))
    lines = [f"# code metrics: {root}", ""]
    lines += [f"{len(files)} modules, {sum(n for n, _ in sizes)} lines, {len(funcs)} functions", ""]
    lines += [f"## longest functions (top {top})", "", "| lines | function | file:line |", "|---:|---|---|"]
    for f in sorted(funcs, key=lambda f: (-f.lines, f.path, f.line))[:top]:
        lines.append(f"| {f.lines} | `{f.name}` | {f.path}:{f.line} |")
    lines += ["", f"## largest modules (top {top})", "", "| lines | module |", "|---:|---|"]
    for n, rel in sorted(sizes, key=lambda s: (-s[0], s[1]))[:top]:
        lines.append(f"| {n} | {rel} |")

    def graph(type_only_too: bool, key: object) -> dict[str, set[str]]:
        edges: dict[str, set[str]] = {}
        for imp in found:
            if imp.type_only and not type_only_too:
                continue
            a, b = key(imp.source), key(imp.target)  # type: ignore[operator]
            if a != b:
                edges.setdefault(a, set()).add(b)
        return edges

    packages = graph(True, group)
    runtime_packages = graph(False, group)
    lines += ["", "## import graph between subpackages", "", "| subpackage | imports |", "|---|---|"]
    for a in sorted(packages):
        marked = [b if b in runtime_packages.get(a, set()) else f"{b} (type only)" for b in sorted(packages[a])]
        lines.append(f"| {a} | {', '.join(marked)} |")
    mutual = sorted(
        (a, b)
        for a, targets in runtime_packages.items()
        for b in targets
        if a < b and a in runtime_packages.get(b, set())
    )
    lines += ["", f"## subpackages importing each other (runtime): {len(mutual)}", ""]
    lines += [f"- {a} <-> {b}" for a, b in mutual] or ["none"]
    for title, edges in (
        ("subpackage cycles (type-only imports included)", packages),
        ("module cycles (type-only imports included)", graph(True, lambda m: m)),
        ("module cycles (runtime imports only)", graph(False, lambda m: m)),
    ):
        found_cycles = cycles(edges)
        lines += ["", f"## {title}: {len(found_cycles)}", ""]
        lines += [f"- {' <-> '.join(c)}" for c in found_cycles] or ["none"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "src" / "xoff")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    sys.stdout.write(report(args.root.resolve(), args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
