"""Rendering over a process pool gives the serial files, file for file and in the same order."""

from __future__ import annotations

from typing import Any

import pytest

from xoff.render import render_fabric
from xoff.render.parallel import MIN_DEVICES, workers_for


@pytest.mark.parametrize("workers", [2, 3])
def test_pool_files_are_the_serial_files(lab_mini_state: Any, workers: int) -> None:
    _, state = lab_mini_state
    serial = render_fabric(state, workers=1)
    assert serial and render_fabric(state, workers=workers) == serial
    picked = ["gpu1", "leaf1"]
    assert render_fabric(state, picked, workers=workers) == render_fabric(state, picked, workers=1)


@pytest.mark.parametrize(("devices", "pooled"), [(MIN_DEVICES - 1, False), (MIN_DEVICES, True)])
def test_pool_only_for_a_large_fabric(devices: int, pooled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    # alone in its process (pytest-xdist's workers run threads of their own: forking beside them is what is refused)
    monkeypatch.setattr("xoff.render.parallel.threading.active_count", lambda: 1)
    assert (workers_for(devices) > 1) is pooled


def test_no_pool_beside_other_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork copies one thread of many: a lock another thread held stays held in the child, so no pool then."""
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setattr("xoff.render.parallel.threading.active_count", lambda: 2)
    assert workers_for(MIN_DEVICES) == 1
