"""The EOS emulator's LANZ (``show queue-monitor length``): no queue reported on the lab's idle links, the hook
file's ``lanz`` queues otherwise, in Arista's ``| json`` model (held to the raw real-format samples' shape,
tests/fixtures/real/eos/); the slow-drain-eos seed is read by the watch reader as pause that never stops and a queue
that keeps growing, and undone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import covers, read_sample, samples, shape
from tests.support.eos_cli_helpers import Cli, make_cli, replace_with_rendered
from tests.support.fault_lab import fault_lab
from xoff.lab.faults import FAULTS
from xoff.platforms.eos import lanz
from xoff.platforms.eos.watch import READER


@pytest.fixture
def spine2(tmp_path: Path) -> Cli:
    return replace_with_rendered(make_cli(tmp_path / "state"), tmp_path / "state")


def _raw_shape() -> Any:
    return shape([json.loads(read_sample(p)) for p in samples("eos", lanz.QUEUE_MONITOR.slug)])


def test_no_queue_reported_without_a_seed(spine2: Cli) -> None:
    out = spine2.run(lanz.QUEUE_MONITOR.text)
    assert json.loads(out)["entryList"] == []
    assert lanz.parse_queue_monitor(out) == {}
    assert "Intf(TC)" in spine2.run("show queue-monitor length")


def _aged(hook: Path, seconds: float) -> None:
    """As if seeded ``seconds`` ago: no wait on the wall clock."""
    data = json.loads(hook.read_text())
    for table in ("pfc", "lanz"):
        for rows in data[table].values():
            for row in rows.values():
                for entry in row.values():
                    entry["since"] -= seconds
    hook.write_text(json.dumps(data))


def test_the_seed_moves_what_the_watch_reader_reads_and_undo_restores(
    spine2: Cli, tmp_path: Path, lab_mini_state: Any
) -> None:
    fault = FAULTS["slow-drain-eos"]
    lab = fault_lab(tmp_path, lab_mini_state[1])
    device = lab_mini_state[1].devices["spine2"]
    fault.seed(lab, fault.target)
    hook = tmp_path / "state" / "counters.json"
    port, queue = (("port", fault.target.port),), "3"

    def read() -> dict[Any, float | None]:
        out = {c.text: spine2.run(c.text) for c in READER.commands(device)}
        assert covers(_raw_shape(), shape([json.loads(out[lanz.QUEUE_MONITOR.text])])) == []
        got = READER.read(out, device)
        assert got.errors == []
        return {(r.metric, r.labels): r.value for r in got.readings}

    _aged(hook, 10)
    first = read()
    _aged(hook, 10)
    later = read()
    length = ("xoff_queue_length_bytes", (*port, ("queue", queue)))
    pause = ("xoff_pfc_rx_pause_frames_total", (*port, ("priority", "3")))
    assert 65_536 + 8_192 * 10 <= (first[length] or 0) < (later[length] or 0)
    assert 800 * 10 <= (first[pause] or 0) < (later[pause] or 0)
    assert not [k for k in later if k[0] == "xoff_queue_length_bytes" and k != length]  # only the seeded queue
    fault.undo(lab, fault.target)
    assert not hook.exists()
    assert lanz.parse_queue_monitor(spine2.run(lanz.QUEUE_MONITOR.text)) == {}
