"""The NVUE emulator's PG buffer occupancy (``nv show interface <swp> qos buffer ingress-priority-group``): PG 0 and
the control PG holding nothing on the lab's idle links, the hook file's ``buffer`` PGs otherwise, in the table NVIDIA's
reference prints (the header and columns the corpus' samples have); the slow-drain-cumulus seed is read by the watch
reader as pause that never stops and a PG watermark that keeps growing, and undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cumulus_emu import applied_sleaf1, fabric, run

from tests.support.corpus import read_sample, samples
from tests.support.fault_lab import fault_lab
from xoff.contracts.observed import BufferWatermarks
from xoff.lab.emulators.cumulus import Emulator
from xoff.lab.faults import FAULTS
from xoff.platforms.cumulus import buffers
from xoff.platforms.cumulus.watch import READER


@pytest.fixture
def sleaf1(tmp_path: Path) -> Emulator:
    return applied_sleaf1(tmp_path)


def _header(text: str) -> list[str]:
    return text.splitlines()[:2]


def test_nothing_held_without_a_seed(sleaf1: Emulator) -> None:
    out = run(sleaf1, buffers.buffer_command("swp1").text).output
    unmodelled: dict[str, int] = {}
    assert buffers.parse_ingress_pg(out, unmodelled) == BufferWatermarks(pg_shared={0: 0}, pg_headroom={0: 0})
    assert unmodelled == {"qos buffer ingress-priority-group: priority group 9": 1}
    reference = read_sample(next(p for p in samples("cumulus", buffers.buffer_command("PORT").slug)))
    assert [line.split() for line in _header(out)] == [line.split() for line in _header(reference)]
    assert "does not exist" in run(sleaf1, buffers.buffer_command("swp99").text).output


def _aged(hook: Path, seconds: float) -> None:
    """As if seeded ``seconds`` ago: no wait on the wall clock."""
    data = json.loads(hook.read_text())
    for table in ("pfc", "buffer"):
        for rows in data[table].values():
            for row in rows.values():
                for entry in row.values():
                    entry["since"] -= seconds
    hook.write_text(json.dumps(data))


def test_the_seed_moves_what_the_watch_reader_reads_and_undo_restores(sleaf1: Emulator, tmp_path: Path) -> None:
    fault = FAULTS["slow-drain-cumulus"]
    lab = fault_lab(tmp_path, fabric())
    fault.seed(lab, fault.target)
    hook = tmp_path / "state" / "counters.json"
    device = fabric().devices["sleaf1"]

    def read() -> dict[Any, float | None]:
        got = READER.read({c.text: run(sleaf1, c.text).output for c in READER.commands(device)}, device)
        assert got.errors == []
        return {(r.metric, r.labels): r.value for r in got.readings}

    _aged(hook, 10)
    first = read()
    _aged(hook, 10)
    later = read()
    port = ("port", fault.target.port)
    shared = ("xoff_pg_shared_watermark_bytes", (("pg", "4"), port))
    pause = ("xoff_pfc_rx_pause_frames_total", (port, ("priority", "4")))
    # NVUE prints KB with two decimals: within 6 bytes of the seeded growth
    assert 65_536 + 8_192 * 10 - 6 <= (first[shared] or 0) < (later[shared] or 0)
    assert 800 * 10 <= (first[pause] or 0) < (later[pause] or 0)
    assert later[("xoff_pg_shared_watermark_bytes", (("pg", "0"), ("port", "swp1")))] == 0  # an idle port
    assert ("xoff_pg_shared_watermark_bytes", (("pg", "4"), ("port", "swp1"))) not in later  # PG 4 only where filled
    fault.undo(lab, fault.target)
    assert not hook.exists()
    out = run(sleaf1, buffers.buffer_command(fault.target.port or "").text).output
    assert buffers.parse_ingress_pg(out).pg_shared == {0: 0}
