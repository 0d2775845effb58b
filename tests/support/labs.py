"""A lab brought up for a test module: its own labs directory, torn down by name, its namespaces checked gone.

In process (``running_lab``: ``xoff.lab.lab.up``), or through the command line a user types (``cli_lab``: ``xoff lab
up``, run by ``xoff_cli`` as the xoff under test in a subprocess)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import xoff
from xoff.lab import names, netns
from xoff.lab.lab import LabError, up
from xoff.lab.teardown import down


@contextlib.contextmanager
def labs_root(prefix: str, parent: str | None = None) -> Iterator[Path]:
    """A labs directory of the test's own (under ``parent``, default the temporary directory), as ``XOFF_LAB_DIR``
    for the block. FRR runs as user frr, so it must be traversable (pytest's tmp dirs are 0700), and short: Unix
    socket paths live under it."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
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
def labs_under_run(tag: str) -> Iterator[Path]:
    """A labs directory of the test's own under /run (FRR, running as user frr, must reach it), removed after."""
    root = Path(f"/run/xoff/test-{os.getpid()}{tag}")
    root.mkdir(parents=True, exist_ok=True, mode=0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def torn_down(name: str) -> Iterator[None]:
    """On leaving the block: lab ``name`` down (whatever of it came up), every namespace of it gone."""
    try:
        yield
    finally:
        with contextlib.suppress(LabError):
            down(name)
        assert netns.names(names.namespace_prefix(name)) == []


@contextlib.contextmanager
def running_lab(
    intent: Path | Callable[[Path], Path], name: str, prefix: str, parent: str | None = None, **options: Any
) -> Iterator[Path]:
    """``intent`` up as lab ``name`` (remapped: tests run in parallel) in a labs directory of its own; down after,
    every namespace of it gone. ``intent`` may be a function that writes the intent into the labs directory and
    returns its path. Yields the labs directory."""
    with labs_root(prefix, parent) as root, torn_down(name):
        up(intent(root) if callable(intent) else intent, name, remap_addresses=True, **options)
        yield root


def xoff_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``xoff ARGS`` with labs directory ``root``, run in it (push writes its backups there), by the xoff under test
    whatever the working directory."""
    src = str(Path(xoff.__file__).resolve().parents[1])
    env = {**os.environ, "XOFF_LAB_DIR": str(root), "PYTHONPATH": src}
    return subprocess.run(
        [sys.executable, "-m", "xoff", *args], capture_output=True, text=True, env=env, cwd=root, check=False
    )


@contextlib.contextmanager
def cli_lab(root: Path, intent: Path, name: str) -> Iterator[subprocess.CompletedProcess[str]]:
    """``xoff lab up INTENT --name NAME --remap`` in ``root``; yields what it did (the test judges it). After,
    ``xoff lab down`` and every namespace of the lab gone."""
    try:
        yield xoff_cli(root, "lab", "up", str(intent), "--name", name, "--remap")
    finally:
        xoff_cli(root, "lab", "down", "--name", name)
        assert netns.names(names.namespace_prefix(name)) == []
