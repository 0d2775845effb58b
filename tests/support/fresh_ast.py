"""``ast`` in a fresh interpreter, for tests that read the source of many modules.

CPython 3.11 (before 3.11.8, gh-106905) can raise ``SystemError: AST constructor recursion depth
mismatch`` from ``ast.parse`` while other threads run Python code, as the suite's SSH servers and lab
helpers do. A child interpreter has no such threads, so the parse there is deterministic.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

_CHILD = r"""
import ast, json, sys
out = {}
for name in json.load(sys.stdin):
    tree = ast.parse(open(name, encoding="utf-8").read())
    nodes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            nodes.append({"kind": "import", "names": [a.name for a in node.names], "line": node.lineno})
        elif isinstance(node, ast.ImportFrom):
            nodes.append({"kind": "from", "module": node.module, "level": node.level,
                          "names": [a.name for a in node.names], "line": node.lineno})
    functions = {n.name: [n.lineno, n.end_lineno or n.lineno] for n in tree.body if isinstance(n, ast.FunctionDef)}
    out[name] = {"imports": nodes, "functions": functions}
json.dump(out, sys.stdout)
"""


@cache
def _parse_all(paths: tuple[str, ...]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=json.dumps(paths), capture_output=True, text=True, check=True
    )
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def parsed(paths: list[Path]) -> dict[Path, dict[str, Any]]:
    """Path -> {"imports": [import nodes, any depth], "functions": {top-level name: [first, last line]}}."""
    found = _parse_all(tuple(str(p) for p in sorted(paths)))
    return {Path(name): value for name, value in found.items()}
