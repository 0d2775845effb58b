"""The NVUE emulator's port counters and PFC watchdog: zero with no data plane, what the state dir's hook
file holds otherwise, in NVUE's ``-o json`` shapes (held to the real-format corpus by
test_emulator_vs_corpus.py) and tables, refusing what NVUE refuses; the Cumulus counter fault seeds write
and restore that file, and the collector reads every Ethernet port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cumulus_emu import applied_sleaf1, fabric, run

from tests.support.fault_lab import fault_lab
from xoff.lab.emulators.cumulus import Emulator
from xoff.lab.emulators.cumulus.show_counters import size
from xoff.lab.faults import FAULTS
from xoff.platforms.cumulus.collect import Collector

SEEDED = {  # what the fault seeds pfc-storm-cumulus and lossless-drops-cumulus write on sleaf1
    "pfc": {"swp1": {"4": {"rx-pause-frames": 1200000}}},
    "watchdog": {"swp1": {"4": {"deadlock-count": 1, "status": "OK"}}},
    "queues": {"swp3": {"4": {"tx-frames": 1000000, "tx-bytes": 4096000000, "tx-uc-buffer-discards": 1500}}},
}
PORTS = [f"swp{n}" for n in range(1, 9)]


@pytest.fixture
def sleaf1(tmp_path: Path) -> Emulator:
    """lab-mini's sleaf1 with xoff's rendered configuration applied (the watchdog on swp1-swp4)."""
    return applied_sleaf1(tmp_path)


def _json(emu: Emulator, command: str) -> Any:
    reply = run(emu, command + " -o json")
    assert reply.status == 0, reply.output
    return json.loads(reply.output)


def _counter_outputs(emu: Emulator, desired: Any) -> dict[str, str]:
    """The collector's per-port commands (no lab here: vtysh and lldpctl have no daemons to ask)."""
    per_port = [c for c in Collector().commands(desired) if c.text.startswith("nv show interface swp")]
    assert len(per_port) == 2 * len(PORTS)
    return {c.text: run(emu, c.text).output for c in per_port}


def test_counters_are_zero_without_a_data_plane(sleaf1: Emulator) -> None:
    qos = _json(sleaf1, "nv show interface swp2 counters qos")
    assert sorted(qos) == ["egress-queue-stats", "ingress-buffer-stats", "pfc-stats"]
    assert all(set(qos[g]) == {str(n) for n in range(8)} for g in qos)
    assert {v for group in qos.values() for row in group.values() for v in row.values()} == {0}
    wd = _json(sleaf1, "nv show interface swp2 qos pfc-watchdog")
    assert wd["state"] == "enabled" and wd["status"]["4"] == {"deadlock-count": 0, "status": "OK"}
    assert _json(sleaf1, "nv show interface swp5 qos pfc-watchdog") == {"state": "disabled"}  # no PFC there
    assert _json(sleaf1, "nv show interface swp2 counters qos pfc-stats")["4"]["rx-pause-frames"] == 0


def test_the_hook_file_is_what_the_collector_reads(sleaf1: Emulator, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text(json.dumps(SEEDED), encoding="utf-8")
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse(_counter_outputs(sleaf1, desired), desired)
    assert obs.errors == [] and list(obs.counters) == PORTS  # every Ethernet port, intent order
    assert obs.counters["swp1"].watchdog[4].storms_detected == 1 and obs.counters["swp1"].pfc.rx_pause[4] == 1200000
    assert obs.counters["swp3"].queues[4].dropped_packets == 1500 and obs.counters["swp3"].queues[4].packets == 1000000
    assert obs.counters["swp5"].watchdog == {} and len(obs.counters["swp5"].queues) == 8


def test_tables(sleaf1: Emulator, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text(json.dumps(SEEDED), encoding="utf-8")
    text = run(sleaf1, "nv show interface swp3 counters qos").output
    titles = [line for line in text.splitlines() if line and not line.startswith((" ", "="))]
    assert titles == ["Ingress Buffer Statistics", "Egress Queue Statistics", "PFC Statistics", "Qos Port Statistics"]
    row = next(ln for ln in text.splitlines() if ln.split()[:2] == ["4", "1000000"])
    assert row.split() == ["4", "1000000", "3.81", "GB", "1.46", "KB", "0"]  # discards print with a byte unit
    wd = run(sleaf1, "nv show interface swp1 qos pfc-watchdog").output.splitlines()
    assert wd[2].split() == ["state", "enabled", "enabled"] and "PFC WD Status" in wd
    assert next(ln for ln in wd if ln.split()[:1] == ["4"]).split() == ["4", "OK", "1"]
    one = run(sleaf1, "nv show interface swp1 qos pfc-watchdog status 4").output.splitlines()
    assert [ln.split() for ln in one[2:]] == [["deadlock-count", "1"], ["status", "OK"]]
    assert [size(n) for n in (0, 288, 10220, 26361938)] == ["0 Bytes", "288 Bytes", "9.98 KB", "25.14 MB"]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("nv show interface swp99 counters qos -o json", "Error: The requested item does not exist: interface swp99"),
        ("nv show interface swp1 counters qos bogus", "Error: Invalid Command: show interface swp1 counters qos bogus"),
        ("nv show interface swp1 counters qos -o xml", "Error: Invalid output format: xml"),
        ("nv show interface swp1 qos pfc-watchdog status 9", "Error: The requested item does not exist: status 9"),
    ],
)
def test_what_nvue_refuses(sleaf1: Emulator, command: str, error: str) -> None:
    reply = run(sleaf1, command)
    assert reply.status != 0 and reply.output.startswith(error)


@pytest.mark.parametrize(
    ("hook", "match"),
    [
        ({"queues": {"swp1": {"4": {"drops": 1}}}}, "drops"),
        ({"watchdog": {"swp1": {"4": {"status": "STUCK"}}}}, "status"),
        ({"pfc": {"Ethernet1": {"4": {"rx-pause-frames": 1}}}}, "swpN"),
        ({"pfc": {"swp1": {"8": {"rx-pause-frames": 1}}}}, "not 0-7"),
        ({"storms": {}}, "top-level"),
    ],
)
def test_a_broken_hook_file_is_an_error_not_zero(sleaf1: Emulator, tmp_path: Path, hook: Any, match: str) -> None:
    (tmp_path / "state" / "counters.json").write_text(json.dumps(hook), encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        run(sleaf1, "nv show interface swp1 counters qos -o json")


def test_cumulus_counter_seeds_write_and_restore_the_hook(sleaf1: Emulator, tmp_path: Path) -> None:
    """The seeds' effect through the emulator and the collector: each caught where its fault says."""
    lab = fault_lab(tmp_path, fabric())
    hook = tmp_path / "state" / "counters.json"
    storm, drops = FAULTS["pfc-storm-cumulus"], FAULTS["lossless-drops-cumulus"]
    assert (storm.platform, drops.platform) == ("cumulus", "cumulus")
    assert (storm.check, drops.check) == ("counters.pfc_storms", "counters.lossless_drops")
    for fault in (storm, drops):
        fault.seed(lab, fault.target)
    assert json.loads(hook.read_text()) == SEEDED
    desired = fabric().devices["sleaf1"]
    obs = Collector().parse(_counter_outputs(sleaf1, desired), desired)
    assert obs.errors == []
    t = storm.target
    assert t.port is not None and t.priority is not None
    assert obs.counters[t.port].watchdog[t.priority].storms_detected == 1
    t = drops.target
    assert t.port is not None and t.priority is not None
    assert obs.counters[t.port].queues[t.priority].dropped_packets == 1500
    for fault in (drops, storm):
        fault.undo(lab, fault.target)
    assert not hook.exists()  # there was none before
    assert _json(sleaf1, "nv show interface swp1 qos pfc-watchdog")["status"]["4"]["deadlock-count"] == 0
