from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.lab import names, netns
from xoff.lab.lab import LabError, resolve, up
from xoff.lab.provider import LabConnection, from_lab
from xoff.lab.teardown import down


@pytest.fixture(scope="module")
def lab(request: pytest.FixtureRequest) -> Iterator[LabConnection]:
    """lab-mini, up for one test module (its name: the module's ``LAB_TAG``), down afterwards."""
    name = f"a{os.getpid() % 100000}-{getattr(request.module, 'LAB_TAG', 'ans')}"
    root = Path(tempfile.mkdtemp(prefix="xla"))  # short: FRR's unix socket paths live under it
    root.chmod(0o755)  # FRR runs as user frr
    old = os.environ.get(names.ROOT_ENV)
    os.environ[names.ROOT_ENV] = str(root)
    try:
        up(ROOT / "inventory" / "lab-mini", name, remap_addresses=True)
        yield from_lab(name)
    finally:
        with contextlib.suppress(LabError):
            resolve(name)
            down(name)
        assert netns.names(names.namespace_prefix(name)) == []
        if old is None:
            os.environ.pop(names.ROOT_ENV, None)
        else:
            os.environ[names.ROOT_ENV] = old
        shutil.rmtree(root, ignore_errors=True)
