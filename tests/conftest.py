from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "inventory"


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def lab_mini_state():  # type: ignore[no-untyped-def]
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    intent = load_intent(INVENTORY / "lab-mini")
    return intent, build_fabric_state(intent)
