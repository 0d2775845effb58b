"""The watch faults' seeds (``xoff.lab.faults.watch``) write counters that rise or are gauges, in each NOS's terms,
which the emulator of the fault's platform reads as moving (its own reader, at two instants); the undo puts the
file's content back (or removes it when there was none)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fault_lab import fault_lab
from tests.support.shim_host import fabric
from xoff.lab.emulators.cumulus import moving as cumulus
from xoff.lab.emulators.eos import moving as eos
from xoff.lab.emulators.sonic import moving as sonic
from xoff.lab.faults import FAULTS, Fault
from xoff.lab.faults.record import WATCH

# the switches' (the hosts' shims are tests/lab_offline/shims/test_shims_counters.py's)
WATCHED = [f for f in FAULTS.values() if f.check.startswith(WATCH) and f.platform != "linux"]
READ = {
    "sonic": sonic.read_counters,
    "eos": eos.snapshot,
    "cumulus": cumulus.read_counters,
}


def _lab(tmp_path: Path) -> Any:
    return fault_lab(tmp_path, fabric("lab-mini"))


def _leaves(node: Any, path: str = "") -> dict[str, Any]:
    if isinstance(node, dict):
        return {k: v for key, item in node.items() for k, v in _leaves(item, f"{path}/{key}").items()}
    if isinstance(node, list):
        return {k: v for i, item in enumerate(node) for k, v in _leaves(item, f"{path}/{i}").items()}
    return {path: node}


@pytest.mark.parametrize("fault", WATCHED, ids=[f.name for f in WATCHED])
@pytest.mark.parametrize("before", [None, {"pfc": {}}], ids=["no-file", "a-file"])
def test_seed_rises_in_the_platform_s_reader_and_undo_restores(fault: Fault, before: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    path = state / "counters.json"
    if before is not None:
        path.write_text(json.dumps(before))
    original = json.loads(path.read_text()) if path.exists() else None
    fault.seed(_lab(tmp_path), fault.target)
    now = time.time()
    first, later = (_leaves(READ[fault.platform](path, t)) for t in (now, now + 10))
    rose = [k for k, v in later.items() if isinstance(v, int | float) and v > first[k]]
    assert rose, f"{fault.name}: nothing rises in {sorted(first)}"
    assert all(fault.target.port in k for k in rose)  # only the target port's counters
    fault.undo(_lab(tmp_path), fault.target)
    assert (json.loads(path.read_text()) if path.exists() else None) == original
