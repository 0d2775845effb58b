"""Fixtures for the OpenSM renderer and ibsim tests: example fabrics, and the real tools they need."""

from __future__ import annotations

import shutil

import pytest

from tests.support.paths import ROOT
from xoff.desired import build_fabric_state
from xoff.desired.models import FabricState
from xoff.intent import load_intent
from xoff.intent.resolved import Intent

INVENTORY = ROOT / "inventory"
APT_HINT = "install Debian packages opensm ibsim-utils infiniband-diags (`make system-deps` does)"


@pytest.fixture(scope="session")
def ib_pod() -> tuple[Intent, FabricState]:
    intent = load_intent(INVENTORY / "ib-pod")
    return intent, build_fabric_state(intent)


@pytest.fixture(scope="session")
def tool():  # type: ignore[no-untyped-def]
    """``tool("opensm")`` -> its path; the test FAILS (never skips) when a real tool is missing."""

    def find(name: str) -> str:
        path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
        if path is None:
            pytest.fail(f"{name} not found: {APT_HINT}")
        return path

    return find
