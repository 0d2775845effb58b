"""Fixtures for the SONiC emulator tests: lab-mini's FabricState on disk, a factory to open
sessions on a state directory, and the real-format fixtures in tests/fixtures/sonic-cli/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.sonic import Emulator
from xoff.platforms.sonic.config_db import build_config_db


@pytest.fixture
def fabric_file(tmp_path: Path, lab_mini_state: Any) -> Path:
    path = tmp_path / "fabric-state.json"
    path.write_text(lab_mini_state[1].model_dump_json(), encoding="utf-8")
    return path


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "devices" / "leaf1" / "state"


@pytest.fixture
def session(state_dir: Path, fabric_file: Path) -> Callable[..., Emulator]:
    """A new SSH session on leaf1 (exec-style line ends unless ``pty=True``)."""

    def open_session(netns: str | None = None, pty: bool = False, **extra: Any) -> Emulator:
        ctx = EmulatorContext(device="leaf1", state_dir=state_dir, netns=netns, fabric_state=fabric_file, **extra)
        emulator = Emulator(ctx)
        emulator.exec_mode = not pty
        return emulator

    return open_session


@pytest.fixture
def rendered(lab_mini_state: Any) -> dict[str, Any]:
    """leaf1's CONFIG_DB as xoff renders it (what a push loads)."""
    return build_config_db(lab_mini_state[1].devices["leaf1"], lab_mini_state[1])
