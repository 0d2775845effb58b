"""Where things are in a checkout: one place instead of ``Path(__file__).parents[N]`` in every test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = ROOT / "inventory"
GOLDEN = ROOT / "tests" / "golden"


def load_module(name: str, path: Path, *, registered: bool = False) -> ModuleType:
    """The Python file at ``path`` (a bench, script or example outside the package) run as module ``name``;
    ``registered`` puts it in ``sys.modules`` first, for code that looks its own module up while it runs
    (dataclasses do)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if registered:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
