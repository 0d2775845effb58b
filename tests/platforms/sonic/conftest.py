"""Fixtures for the SONiC renderer tests: planned example fabrics and the compiled YANG schema."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from tests.support.paths import ROOT
from xoff.desired.models import FabricState


def _state(name: str) -> FabricState:
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    return build_fabric_state(load_intent(ROOT / "inventory" / name))


@pytest.fixture(scope="session")
def states(lab_mini_state: Any) -> dict[str, FabricState]:
    """lab-mini and roce-pod, planned once per session."""
    return {"lab-mini": lab_mini_state[1], "roce-pod": _state("roce-pod")}


@pytest.fixture(scope="session")
def yang_schema() -> Any:
    """The compiled SONiC models; fails (never skips) when yanglint or the models are missing."""
    if shutil.which("yanglint") is None:
        pytest.fail("yanglint not found: install Debian package libyang2-tools (make system-deps)")
    from xoff.platforms.sonic.settings import YangDirNotFoundError
    from xoff.platforms.sonic.yang_schema import load_schema

    try:
        return load_schema()
    except YangDirNotFoundError as exc:
        pytest.fail(f"SONiC YANG models not found: {exc}")
