"""lab-mini up: its SONiC and Cumulus switches serve gNMI from their namespaces (SONiC's telemetry on 8080,
Cumulus on 9339 over TLS) from the counters their CLI shows; ``GnmiCounterSource`` reads them with the inventory's
credentials and gets the values the SSH path reads from ``show pfc counters`` / ``show queue counters`` and
``nv show interface <swp> counters qos -o json``."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.labs import running_lab
from tests.support.paths import ROOT
from xoff.connect.credentials import load_credentials
from xoff.connect.session import ConnectSpec, open_session
from xoff.connect.targets import build_targets
from xoff.lab import daemons
from xoff.lab.provider import from_lab
from xoff.platforms.cumulus.counters import parse_qos
from xoff.platforms.sonic.counters import parse_pfc, parse_queues
from xoff.watch.gnmi_source import GnmiCounterSource, targets_for

pytestmark = pytest.mark.lab
LAB = f"g{os.getpid() % 100000}-gnmi"
SONIC, CUMULUS = "leaf1", "sleaf1"
SEED = {
    SONIC: {
        "pfc": {"Ethernet0": {"rx": [0, 0, 0, 4321, 0, 0, 0, 0], "tx": [0, 0, 0, 0, 12, 0, 0, 0]}},
        "queue": {"Ethernet8": {"UC3": {"packets": 880, "bytes": 901120, "drop_packets": 6, "drop_bytes": 6144}}},
    },
    CUMULUS: {
        "pfc": {"swp1": {"4": {"rx-pause-frames": 777, "tx-pause-frames": 3}}},
        "queues": {
            "swp1": {"4": {"tx-frames": 5150, "tx-bytes": 21000, "tx-uc-buffer-discards": 4, "ecn-marked-frames": 31}}
        },
    },
}
Key = tuple[str, str, str]


@pytest.fixture(scope="module")
def lab() -> Iterator[Path]:
    # short: FRR's socket paths must fit in sun_path
    with running_lab(ROOT / "inventory" / "lab-mini", LAB, prefix="xl", parent="/tmp"):
        lab_dir = from_lab(LAB).lab_dir
        for device, counters in SEED.items():  # what the ASIC would count (the lab's fault seeds write it so)
            (daemons.state_dir(lab_dir, device) / "counters.json").write_text(json.dumps(counters), encoding="utf-8")
        yield lab_dir


def _cli(device: str, commands: list[str]) -> list[str]:
    conn = from_lab(LAB)
    target = next(t for t in build_targets(conn.fabric) if t.name == device)
    creds = load_credentials(conn.secrets_file).for_device(target.platform, target.kind)
    session = open_session(ConnectSpec(target, creds, conn.known_hosts, 30.0, True))
    try:
        return [session.send_command(c, read_timeout=30) for c in commands]
    finally:
        session.disconnect()


def _ssh_values() -> dict[str, dict[Key, float | None]]:
    pfc_text, queue_text = _cli(SONIC, ["show pfc counters", "show queue counters"])
    sonic: dict[Key, float | None] = {}
    for port, pfc in parse_pfc(pfc_text).items():
        sonic |= {("xoff_pfc_rx_pause_frames_total", port, str(p)): n for p, n in pfc.rx_pause.items()}
        sonic |= {("xoff_pfc_tx_pause_frames_total", port, str(p)): n for p, n in pfc.tx_pause.items()}
    for port, queues in parse_queues(queue_text).items():
        for q, c in queues.items():
            sonic[("xoff_queue_tx_packets_total", port, str(q))] = c.packets
            sonic[("xoff_queue_dropped_packets_total", port, str(q))] = c.dropped_packets
    (qos_text,) = _cli(CUMULUS, ["nv show interface swp1 counters qos -o json"])
    pfc, queues, _ = parse_qos(qos_text)
    cumulus: dict[Key, float | None] = {}
    cumulus |= {("xoff_pfc_rx_pause_frames_total", "swp1", str(p)): n for p, n in pfc.rx_pause.items()}
    cumulus |= {("xoff_pfc_tx_pause_frames_total", "swp1", str(p)): n for p, n in pfc.tx_pause.items()}
    for q, c in queues.items():
        cumulus[("xoff_queue_tx_packets_total", "swp1", str(q))] = c.packets
        cumulus[("xoff_queue_dropped_packets_total", "swp1", str(q))] = c.dropped_packets
        cumulus[("xoff_queue_ecn_marked_packets_total", "swp1", str(q))] = c.ecn_marked_packets
    return {SONIC: sonic, CUMULUS: cumulus}


def test_gnmi_reads_what_ssh_reads(lab: Path) -> None:
    conn = from_lab(LAB)
    credentials = load_credentials(conn.secrets_file)
    targets = targets_for(conn.fabric, credentials)
    assert {SONIC, CUMULUS} <= set(targets) and targets[CUMULUS].port == 9339 and targets[SONIC].port == 8080
    source = GnmiCounterSource(targets, timeout=10)
    try:
        samples = {s.device: s for s in source.read(sorted(targets))}
    finally:
        source.close()
    assert {d: s.error for d, s in samples.items()} == dict.fromkeys(targets)
    ssh = _ssh_values()
    for device in (SONIC, CUMULUS):
        got: dict[Key, float | None] = {}
        for r in samples[device].readings:
            labels = dict(r.labels)
            got[(r.metric, labels["port"], labels.get("priority", labels.get("queue", "")))] = r.value
        assert {k: got.get(k) for k in ssh[device]} == ssh[device], device
    assert ssh[SONIC][("xoff_pfc_rx_pause_frames_total", "Ethernet0", "3")] == 4321
    assert ssh[CUMULUS][("xoff_queue_ecn_marked_packets_total", "swp1", "4")] == 31
    assert not any(s in json.dumps([str(x) for x in samples.values()]) for s in credentials.secrets())
