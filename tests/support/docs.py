"""A generated page of docs/ checked against what its generator prints now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def fresh_doc(root: Path, module: str, doc: str) -> str:
    """``doc`` (``docs/x.md``) as committed, asserted equal to what ``python -m module`` prints (in a fresh interpreter
    from the checkout, as ``make docs`` runs it: only the built-in checks, platforms, ...); the failure says how to
    regenerate it."""
    fresh = subprocess.run([sys.executable, "-m", module], capture_output=True, text=True, check=True, cwd=root).stdout
    committed = (root / doc).read_text(encoding="utf-8")
    assert committed == fresh, f"{doc} is stale: run `python -m {module} > {doc}`"
    return committed
