"""The EOS emulator's counters: zero with no data plane, what the state dir's hook file holds otherwise,
in EOS's ``| json`` shapes (the collector's fixtures for lab-mini's spine2 are this output), refusing
what EOS refuses; and the EOS counter fault seeds write and restore that file."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.eos_cli_helpers import Cli, make_cli, rendered
from tests.support.paths import ROOT
from xoff.lab.faults import FAULTS, Target
from xoff.platforms.eos import counters as eos
from xoff.platforms.eos.collect import Collector

FIX = ROOT / "tests" / "fixtures" / "parse" / "eos"
SEEDED = {  # what the fault seeds pfc-storm-eos and lossless-drops-eos write on spine2
    "pfc": {"Ethernet1/1": {"3": {"rxFrames": 1200000, "txFrames": 0}}},
    "watchdog": {"Ethernet1/1": {"3": {"stuckCount": 1, "recoveryCount": 1}}},
    "queues": {
        "Ethernet2/1": {
            "3": {
                "enqueuedPackets": 1000000,
                "enqueuedBytes": 4096000000,
                "droppedPackets": 1500,
                "droppedBytes": 6144000,
            }
        }
    },
}


@pytest.fixture
def spine2(tmp_path: Path) -> Cli:
    cli = make_cli(tmp_path / "state")
    flash = tmp_path / "state" / "files" / "mnt" / "flash"
    flash.mkdir(parents=True, exist_ok=True)
    (flash / "x.cfg").write_text(rendered("lab-mini", "spine2"), encoding="utf-8")
    cli.quiet("enable", "configure replace flash:x.cfg")
    return cli


def _json(cli: Cli, command: str) -> Any:
    return json.loads(cli.run(command + " | json"))


def test_counters_are_zero_without_a_data_plane(spine2: Cli) -> None:
    assert _json(spine2, "show priority-flow-control counters") == {
        "interfaceCounters": {
            p: {"rxFrames": 0, "txFrames": 0} for p in ("Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1")
        }
    }
    assert _json(spine2, "show priority-flow-control counters watchdog") == {"interfaces": {}}
    queues = _json(spine2, "show interfaces counters queue detail")["egressQueueCounters"]["interfaces"]
    assert len(queues) == 4
    counts = [
        v
        for port in queues.values()
        for kind in ("ucastQueues", "mcastQueues")
        for tc in port[kind]["trafficClasses"].values()
        for v in tc["dropPrecedences"]["DP0"].values()
    ]
    assert len(counts) == 4 * 2 * 8 * 4 and set(counts) == {0}
    assert "Et4/1       0               0" in spine2.run("show priority-flow-control counters")


def test_the_hook_file_is_what_the_collector_reads(spine2: Cli, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text(json.dumps(SEEDED), encoding="utf-8")
    for command in (eos.PFC, eos.QUEUES, eos.WATCHDOG):  # the collector's emulator fixtures are this output
        assert spine2.run(command.text) == (FIX / command.slug / "lab-mini-spine2.raw").read_text(encoding="utf-8")
    totals = _json(spine2, "show priority-flow-control counters")["interfaceCounters"]
    assert totals["Ethernet1/1"] == {"rxFrames": 1200000, "txFrames": 0}
    text = spine2.run("show priority-flow-control counters watchdog")
    assert text.splitlines()[2].split() == ["Et1/1", "3", "1", "1"]
    one = _json(spine2, "show interfaces et2/1 counters queue detail")["egressQueueCounters"]["interfaces"]
    assert list(one) == ["Ethernet2/1"]
    assert (
        one["Ethernet2/1"]["ucastQueues"]["trafficClasses"]["TC3"]["dropPrecedences"]["DP0"]["droppedPackets"] == 1500
    )
    detail = _json(spine2, "show interfaces Ethernet 1/1 priority-flow-control counters detail")["interfaces"]
    assert detail["Ethernet1/1"]["priorities"]["3"] == {"rxFrames": 1200000, "txFrames": 0}


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("show interfaces Ethernet9/1 counters queue detail", "% Interface does not exist"),
        ("show interfaces Ethernet0/1 priority-flow-control counters detail", "% Invalid input"),
        ("show interfaces bogus counters queue detail", "% Invalid input"),
        ("show priority-flow-control counters bogus", "% Invalid input"),
        ("show priority-flow-control counters watchdog | json extra", "% Invalid input"),
    ],
)
def test_what_eos_refuses(spine2: Cli, command: str, error: str) -> None:
    assert spine2.run(command) == error + "\n"


def test_a_broken_hook_file_is_an_error_not_zero(spine2: Cli, tmp_path: Path) -> None:
    (tmp_path / "state" / "counters.json").write_text('{"queues": {"Ethernet1/1": {"3": {"drops": 1}}}}')
    with pytest.raises(ValueError, match="drops"):
        spine2.run("show interfaces counters queue detail")


def test_eos_counter_seeds_write_and_restore_the_hook(spine2: Cli, tmp_path: Path, lab_mini_state: Any) -> None:
    """The seeds' effect through the emulator and the collector: each caught where its fault says."""
    lab: Any = SimpleNamespace(
        device_dir=lambda _device: tmp_path, connection=SimpleNamespace(fabric=lab_mini_state[1])
    )
    hook = tmp_path / "state" / "counters.json"
    storm, drops = FAULTS["pfc-storm-eos"], FAULTS["lossless-drops-eos"]
    assert (storm.platform, drops.platform) == ("eos", "eos")
    for fault in (storm, drops):
        fault.seed(lab, fault.target)
    outputs = {c.text: spine2.run(c.text) for c in (eos.PFC, eos.QUEUES, eos.WATCHDOG)}
    obs = Collector().parse(outputs, lab_mini_state[1].devices["spine2"])
    assert obs.errors == []
    assert json.loads(hook.read_text()) == SEEDED
    t: Target = storm.target
    assert t.port is not None and t.priority is not None
    assert obs.counters[t.port].watchdog[t.priority].storms_detected == 1
    t = drops.target
    assert t.port is not None and t.priority is not None
    assert obs.counters[t.port].queues[t.priority].dropped_packets == 1500
    for fault in (drops, storm):
        fault.undo(lab, fault.target)
    assert not hook.exists()  # there was none before
    assert _json(spine2, "show priority-flow-control counters watchdog") == {"interfaces": {}}
