"""The watch faults for real (issue 18 item 4): in a running lab-mini (``--remap``; only sleaf1 pushed, as NVUE
shows watchdog counts where the watchdog is on: the counters are the emulators' state), ``SshCounterSource`` reads over the lab's SSH servers each watch
fault's series (``xoff.lab.faults`` records whose check is a ``watch.*`` signal, picked up by themselves) MOVING
between two rounds once the fault is seeded, and FLAT before it and after its undo.

One lab per module; one source, its sessions kept across every round (the test also proves the rounds reuse them).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff import api
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.lab.faults import FAULTS, Fault, Lab
from xoff.lab.faults.record import WATCH
from xoff.watch.sample import Reading, Sample
from xoff.watch.ssh_source import SshCounterSource

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"wf{os.getpid()}"
# the switches' watch faults (the hosts' are tests/lab/test_watch_host_lab.py's)
WATCHED = [f for f in FAULTS.values() if f.check.startswith(WATCH) and f.platform != "linux"]
# the counters each signal reads that its fault makes rise (the gauges are checked by value below)
MOVING = {
    "watch.pause_storm": ("xoff_pfc_rx_pause_frames_total", "xoff_pfc_watchdog_storms_detected_total"),
    "watch.slow_drain": ("xoff_pfc_rx_pause_frames_total", "xoff_pg_shared_watermark_bytes"),
    "watch.fec_ber": ("xoff_fec_corrected_codewords_total", "xoff_fec_uncorrectable_codewords_total"),
    "watch.lossless_drop": ("xoff_queue_dropped_packets_total", "xoff_queue_tx_packets_total"),
    "watch.headroom_watermark": ("xoff_pg_headroom_watermark_bytes",),
    "watch.ecn_ratio": ("xoff_queue_ecn_marked_packets_total", "xoff_queue_tx_packets_total"),
}
# where a platform reports what fills otherwise: EOS's LANZ, the egress queue's length (no PG watermark documented)
MOVING_ON = {("watch.slow_drain", "eos"): ("xoff_pfc_rx_pause_frames_total", "xoff_queue_length_bytes")}
FABRIC = build_fabric_state(load_intent(INTENT))
MOVE_WITHIN_S = 15.0  # the slowest seeded rate (the watchdog's storms, 0.5/s) moves within 2 s


@pytest.fixture(scope="module")
def lab() -> Iterator[tuple[Lab, SshCounterSource]]:
    with running_lab(INTENT, LAB, prefix="xwf-") as root:
        # Cumulus shows a port's watchdog counts only where its watchdog is on: sleaf1 gets its intent
        summary = api.push(INTENT, api.PushOptions(lab=LAB, backup_dir=root / "backups", limit=("sleaf1",))).summary
        assert summary.exit_status == 0, [r for r in summary.results if r.error]
        running = Lab(LAB)
        source = SshCounterSource(running.connection.fabric, running.creds, known_hosts=running.connection.known_hosts)
        with source:
            yield running, source


def _moving(f: Fault) -> tuple[str, ...]:
    return MOVING_ON.get((f.check, f.platform), MOVING[f.check])


def _series(f: Fault, sample: Sample) -> dict[tuple[str, tuple[tuple[str, str], ...]], float | None]:
    """The fault's series on its target port, priority / PG and the queue the intent maps the priority to; a
    series the device does not list (SONiC's watchdog table lists only queues that had a storm) is absent."""
    assert sample.error is None, sample.error
    levels = {"priority": None, "pg": None, "queue": None}
    if f.target.priority is not None:
        qos = FABRIC.devices[f.target.device].qos
        queue = qos.pfc_priority_to_queue.get(f.target.priority, f.target.priority) if qos else f.target.priority
        levels = {"priority": str(f.target.priority), "pg": str(f.target.priority), "queue": str(queue)}

    def mine(r: Reading) -> bool:
        if r.metric not in _moving(f) or r.label("port") != f.target.port:
            return False
        return all(want is None or r.label(name) in (None, want) for name, want in levels.items())

    return {(r.metric, r.labels): r.value for r in sample.readings if mine(r)}


def _read(source: SshCounterSource, f: Fault) -> dict[tuple[str, tuple[tuple[str, str], ...]], float | None]:
    (sample,) = source.read([f.target.device])
    return _series(f, sample)


def _moved(source: SshCounterSource, f: Fault) -> list[str]:
    """The fault's series that did not rise between two rounds (waiting, up to MOVE_WITHIN_S, for them to)."""
    first = _read(source, f)
    assert {m for m, _ in first} == set(_moving(f)), f"{f.name}: series read {sorted(first)}"
    deadline = time.monotonic() + MOVE_WITHIN_S
    while True:
        later = _read(source, f)
        still = [f"{k[0]}{dict(k[1])}" for k, v in first.items() if not (later[k] or 0) > (v or 0)]
        if not still or time.monotonic() > deadline:
            return still
        time.sleep(0.2)  # polling interval of a condition wait, not a settle time


@pytest.mark.parametrize("fault", WATCHED, ids=[f.name for f in WATCHED])
def test_seeded_series_move_and_are_flat_otherwise(lab: tuple[Lab, SshCounterSource], fault: Fault) -> None:
    running, source = lab
    assert _read(source, fault) == _read(source, fault), "moving before the fault was seeded"
    fault.seed(running, fault.target)
    try:
        assert _moved(source, fault) == []
        if fault.check == "watch.fec_ber":
            (sample,) = source.read([fault.target.device])
            port = {
                (r.metric, r.label("lane")): r.value for r in sample.readings if r.label("port") == fault.target.port
            }
            assert port[("xoff_pre_fec_ber", None)] == 2.4e-4
            assert [port[("xoff_optic_rx_power_dbm", str(n))] for n in range(1, 9)] == [-13.9] * 8
    finally:
        fault.undo(running, fault.target)
    assert _read(source, fault) == _read(source, fault), "still moving after the undo"


def test_rounds_reuse_one_session_per_device(lab: tuple[Lab, SshCounterSource]) -> None:
    _, source = lab
    source.read(["leaf1", "spine2", "sleaf1"])
    kept = dict(source.sessions)
    samples = source.read(["leaf1", "spine2", "sleaf1"])
    assert all(s.error is None and s.readings for s in samples), [s.error for s in samples]
    assert {n: id(s) for n, s in source.sessions.items() if n in kept} == {n: id(s) for n, s in kept.items()}
