"""The EOS emulator's counters: zero with no data plane, what the state dir's hook file holds otherwise,
in EOS's ``| json`` shapes (held to the real-format corpus' shape, tests/fixtures/real/eos/), refusing
what EOS refuses; and the EOS counter fault seeds write and restore that file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.corpus import corpus_shape, covers, jsonable, shape
from tests.support.eos_cli_helpers import Cli, make_cli, replace_with_rendered
from tests.support.fault_lab import fault_lab
from xoff.lab.faults import FAULTS, Target
from xoff.platforms.eos import counters as eos
from xoff.platforms.eos.collect import Collector

COUNTER_PARSERS = {
    eos.PFC: eos.parse_pfc,
    eos.QUEUES: eos.parse_queues,
    eos.WATCHDOG: eos.parse_watchdog,
    eos.ECN: eos.parse_ecn,
}
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
    return replace_with_rendered(make_cli(tmp_path / "state"), tmp_path / "state")


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
    for command, parse in COUNTER_PARSERS.items():  # what the emulator prints has no key or type no real sample has
        parsed = jsonable(parse(spine2.run(command.text)))
        assert parsed and covers(corpus_shape("eos", command.slug), shape(parsed)) == []
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
    lab = fault_lab(tmp_path, lab_mini_state[1])
    hook = tmp_path / "state" / "counters.json"
    storm, drops = FAULTS["pfc-storm-eos"], FAULTS["lossless-drops-eos"]
    assert (storm.platform, drops.platform) == ("eos", "eos")
    for fault in (storm, drops):
        fault.seed(lab, fault.target)
    outputs = {c.text: spine2.run(c.text) for c in COUNTER_PARSERS}
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


def test_ecn_counters_are_strings_and_dash_where_no_ecn(spine2: Cli) -> None:
    """tx-queue 3 has ``random-detect ecn`` on lab-mini's fabric ports; the other queues print "-"."""
    ports = _json(spine2, "show qos interfaces ecn counters queue")["intfQueueCounters"]
    assert ports["Ethernet1/1"]["queueCounters"] == {str(q): "0" if q == 3 else "-" for q in range(8)}
    assert set(ports["Ethernet3/1"]["queueCounters"].values()) == {"-"}  # no tx-queue ECN on an unused port


def test_the_ecn_fault_seed_is_caught_and_undone(spine2: Cli, tmp_path: Path, lab_mini_state: Any) -> None:
    lab = fault_lab(tmp_path, lab_mini_state[1])
    fault = FAULTS["ecn-not-before-pfc-eos"]
    t: Target = fault.target
    assert t.port is not None and t.priority is not None
    fault.seed(lab, t)
    outputs = {c.text: spine2.run(c.text) for c in COUNTER_PARSERS}
    obs = Collector().parse(outputs, lab_mini_state[1].devices["spine2"])
    assert obs.errors == []
    port = obs.counters[t.port]
    assert (port.pfc.tx_pause[t.priority], port.queues[t.priority].ecn_marked_packets) == (250000, 0)
    fault.undo(lab, t)
    assert not (tmp_path / "state" / "counters.json").exists()
