from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff.lab.provider import LabConnection, from_lab


@pytest.fixture(scope="module")
def lab(request: pytest.FixtureRequest) -> Iterator[LabConnection]:
    """lab-mini, up for one test module (its name: the module's ``LAB_TAG``), down afterwards."""
    name = f"a{os.getpid() % 100000}-{getattr(request.module, 'LAB_TAG', 'ans')}"
    with running_lab(ROOT / "inventory" / "lab-mini", name, prefix="xla"):  # short: FRR's socket paths live under it
        yield from_lab(name)
