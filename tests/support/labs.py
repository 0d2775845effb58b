"""A lab brought up for a test module: its own labs directory, torn down by name, its namespaces checked gone."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from xoff.lab import netns
from xoff.lab.lab import LabError, up
from xoff.lab.teardown import down


@contextlib.contextmanager
def labs_root(prefix: str) -> Iterator[Path]:
    """A labs directory of the test's own, as ``XOFF_LAB_DIR`` for the block. FRR runs as user frr, so it must be
    traversable (pytest's tmp dirs are 0700), and short: Unix socket paths live under it."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    old = os.environ.get("XOFF_LAB_DIR")
    os.environ["XOFF_LAB_DIR"] = str(root)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
        if old is None:
            os.environ.pop("XOFF_LAB_DIR", None)
        else:
            os.environ["XOFF_LAB_DIR"] = old


@contextlib.contextmanager
def running_lab(intent: Path, name: str, prefix: str, **options: Any) -> Iterator[Path]:
    """``intent`` up as lab ``name`` (remapped: tests run in parallel) in a labs directory of its own; down after,
    every namespace of it gone. Yields the labs directory."""
    with labs_root(prefix) as root:
        try:
            up(intent, name, remap_addresses=True, **options)
            yield root
        finally:
            with contextlib.suppress(LabError):
                down(name)
            assert netns.names(f"xl-{name}-") == []
