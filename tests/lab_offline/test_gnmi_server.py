"""The lab's gNMI servers and ``GnmiCounterSource`` in one process, on the loopback: the values read over gNMI are
the values the emulators' CLI shows for the same ``counters.json`` (read by xoff's SSH-path parsers), a counter
that rises moves, and failures are samples with an error and no secret."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from pygnmi.client import gNMIclient, gNMIException

from xoff.lab.emulators.cumulus.show_buffers import table
from xoff.lab.emulators.cumulus.show_counters import Counters, qos_counters
from xoff.lab.emulators.sonic import show
from xoff.lab.gnmi import sonic as sonic_db
from xoff.lab.gnmi import tls
from xoff.lab.gnmi.server import serve
from xoff.platforms.cumulus.buffers import parse_ingress_pg
from xoff.platforms.cumulus.counters import parse_qos
from xoff.platforms.sonic.counters import parse_pfc, parse_queues, parse_watchdog
from xoff.watch.gnmi_source import GnmiCounterSource, GnmiTarget
from xoff.watch.sample import Sample

USER, PASSWORD = "admin", "s3cret-Lab-pw"
SONIC_CONFIG = {
    "PORT": {"Ethernet0": {}, "Ethernet4": {}},
    "PFC_WD": {"Ethernet0": {"action": "drop"}},
    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},
}
SONIC_COUNTERS = {
    "pfc": {"Ethernet0": {"rx": [0, 0, 0, 1200, 0, 0, 0, 0], "tx": [0, 0, 0, 7, 3, 0, 0, 0]}},
    "queue": {"Ethernet4": {"UC3": {"packets": 1000, "bytes": 4096000, "drop_packets": 15, "drop_bytes": 61440}}},
    "pfcwd": {"Ethernet0:3": {"status": "stormed", "storm_detected": 2, "storm_restored": 1}},
}
CUMULUS_COUNTERS = {
    "pfc": {"swp1": {"4": {"rx-pause-frames": 900, "tx-pause-frames": 12}}},
    "queues": {
        "swp1": {
            "4": {
                "tx-frames": 5000,
                "tx-bytes": 20480,
                "tx-uc-buffer-discards": 9,
                "wred-discards": 2,
                "ecn-marked-frames": 77,
            }
        }
    },
    "buffer": {"swp1": {"4": {"current-usage": 4096, "max-usage": 98304}}},
}
Key = tuple[str, str, str]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("gnmi")
    (root / "sw1").mkdir()
    (root / "sw1" / "config_db.json").write_text(json.dumps(SONIC_CONFIG))
    (root / "sw1" / "counters.json").write_text(json.dumps(SONIC_COUNTERS))
    (root / "cl1").mkdir()
    (root / "cl1" / "counters.json").write_text(json.dumps(CUMULUS_COUNTERS))
    sonic_server, sonic_port = serve("sonic", root / "sw1", "127.0.0.1:0", (USER, PASSWORD))
    cert = tls.ensure(root / "tls")  # Cumulus serves gNMI over TLS with a self-signed certificate
    cumulus_server, cumulus_port = serve("cumulus", root / "cl1", "127.0.0.1:0", (USER, PASSWORD), cert)
    yield {"root": root, "sonic": sonic_port, "cumulus": cumulus_port}
    sonic_server.stop(0)
    cumulus_server.stop(0)


def _source(lab: dict[str, Any], password: str = PASSWORD) -> GnmiCounterSource:
    return GnmiCounterSource(
        {
            "sw1": GnmiTarget("sw1", "sonic", "127.0.0.1", lab["sonic"], USER, password, insecure=True),
            "cl1": GnmiTarget("cl1", "cumulus", "127.0.0.1", lab["cumulus"], USER, password),
        },
        timeout=5,
    )


def _values(sample: Sample) -> dict[Key, float | None]:
    out: dict[Key, float | None] = {}
    for r in sample.readings:
        labels = dict(r.labels)
        out[(r.metric, labels["port"], labels.get("priority", labels.get("queue", labels.get("pg", ""))))] = r.value
    return out


def _sonic_cli() -> dict[Key, float | None]:
    """What ``show pfc counters``, ``show queue counters`` and ``show pfcwd stats`` print, as xoff reads them."""
    out: dict[Key, float | None] = {}
    for port, pfc in parse_pfc(show.pfc_counters(SONIC_CONFIG, SONIC_COUNTERS)).items():
        for prio, n in pfc.rx_pause.items():
            out[("xoff_pfc_rx_pause_frames_total", port, str(prio))] = n
        for prio, n in pfc.tx_pause.items():
            out[("xoff_pfc_tx_pause_frames_total", port, str(prio))] = n
    for port, queues in parse_queues(show.queue_counters(SONIC_CONFIG, SONIC_COUNTERS)).items():
        for q, c in queues.items():
            out[("xoff_queue_tx_packets_total", port, str(q))] = c.packets
            out[("xoff_queue_tx_bytes_total", port, str(q))] = c.bytes
            out[("xoff_queue_dropped_packets_total", port, str(q))] = c.dropped_packets
    for port, wd in parse_watchdog(show.pfcwd_stats(SONIC_CONFIG, SONIC_COUNTERS, [], False)).items():
        for q, w in wd.items():
            out[("xoff_pfc_watchdog_storms_detected_total", port, str(q))] = w.storms_detected
            out[("xoff_pfc_watchdog_storms_restored_total", port, str(q))] = w.storms_restored
    return out


def _cumulus_cli() -> dict[Key, float | None]:
    """What ``nv show interface swp1 counters qos -o json`` and ``... qos buffer ingress-priority-group`` print, as
    xoff reads them."""
    text = json.dumps(qos_counters(Counters(CUMULUS_COUNTERS), "swp1"))
    pfc, queues, _ = parse_qos(text)
    out: dict[Key, float | None] = {}
    out |= {("xoff_pfc_rx_pause_frames_total", "swp1", str(p)): n for p, n in pfc.rx_pause.items()}
    out |= {("xoff_pfc_tx_pause_frames_total", "swp1", str(p)): n for p, n in pfc.tx_pause.items()}
    for q, c in queues.items():
        out[("xoff_queue_tx_packets_total", "swp1", str(q))] = c.packets
        out[("xoff_queue_tx_bytes_total", "swp1", str(q))] = c.bytes
        out[("xoff_queue_dropped_packets_total", "swp1", str(q))] = c.dropped_packets
        out[("xoff_queue_ecn_marked_packets_total", "swp1", str(q))] = c.ecn_marked_packets
    marks = parse_ingress_pg(table(CUMULUS_COUNTERS["buffer"]["swp1"]))
    out |= {("xoff_pg_shared_watermark_bytes", "swp1", str(pg)): n for pg, n in marks.pg_shared.items()}
    return out


def test_gnmi_reads_what_the_cli_shows(lab: dict[str, Any]) -> None:
    source = _source(lab)
    try:
        samples = {s.device: s for s in source.read(["sw1", "cl1"])}
    finally:
        source.close()
    assert [s.error for s in samples.values()] == [None, None]
    for device, cli in (("sw1", _sonic_cli()), ("cl1", _cumulus_cli())):
        got = _values(samples[device])
        assert {k: got.get(k) for k in cli} == cli, device
        assert any(v for v in cli.values())  # the comparison is about counters that are not all zero
    assert _values(samples["sw1"])[("xoff_pfc_watchdog_storms_detected_total", "Ethernet0", "3")] == 2.0
    assert _values(samples["cl1"])[("xoff_queue_dropped_packets_total", "swp1", "4")] == 11.0
    assert _values(samples["cl1"])[("xoff_pg_shared_watermark_bytes", "swp1", "4")] == 98304.0


def test_a_wrong_password_is_the_samples_error_without_the_secret(lab: dict[str, Any]) -> None:
    source = _source(lab, password="not-the-" + PASSWORD)
    try:
        samples = source.read(["sw1", "cl1", "nowhere"])
    finally:
        source.close()
    errors = {s.device: s.error or "" for s in samples}
    assert all(s.readings == () for s in samples)
    assert "authentication failed" in errors["sw1"] and "authentication failed" in errors["cl1"]
    assert errors["nowhere"] == "no gNMI target"
    assert not any(PASSWORD in e for e in errors.values())


def test_a_counter_that_rises_moves_between_reads(tmp_path: Path) -> None:
    (tmp_path / "config_db.json").write_text(json.dumps({"PORT": {"Ethernet0": {}}}))
    rising = {"total": 1000, "per_second": 50, "since": 1_700_000_000}
    (tmp_path / "counters.json").write_text(json.dumps({"pfc": {"Ethernet0": {"rx": [0, 0, 0, rising]}}}))
    before = sonic_db.CountersDb(tmp_path, 1_700_000_010.0).port("Ethernet0")["SAI_PORT_STAT_PFC_3_RX_PKTS"]
    after = sonic_db.CountersDb(tmp_path, 1_700_000_020.5).port("Ethernet0")["SAI_PORT_STAT_PFC_3_RX_PKTS"]
    assert (before, after) == ("1500", "2025")


def test_sonic_answers_subscribe_once_and_poll(lab: dict[str, Any]) -> None:
    request = {"subscription": [{"path": "COUNTERS/Ethernet0"}], "mode": "once", "encoding": "json_ietf"}
    with gNMIclient(target=("127.0.0.1", lab["sonic"]), username=USER, password=PASSWORD, insecure=True) as client:
        once = list(client.subscribe_once(subscribe=dict(request), target="COUNTERS_DB"))
        poll = client.subscribe_poll(subscribe=dict(request, mode="poll"), target="COUNTERS_DB")
        polled = [poll.get_update(timeout=5) for _ in range(2)]
        poll.close()
    assert once[-1].get("sync_response") is True
    value = once[0]["update"]["update"][0]["val"]
    assert value["SAI_PORT_STAT_PFC_3_RX_PKTS"] == "1200"
    assert [p["update"]["update"][0]["val"]["SAI_PORT_STAT_PFC_3_RX_PKTS"] for p in polled] == ["1200", "1200"]


def test_cumulus_refuses_get_as_nvidia_documents(lab: dict[str, Any]) -> None:
    client = gNMIclient(target=("127.0.0.1", lab["cumulus"]), username=USER, password=PASSWORD, skip_verify=True)
    with client, pytest.raises(gNMIException) as raised:
        client.get(path=["/qos/interfaces/interface[interface-id=swp1]"])
    cause = raised.value.orig_exc
    assert isinstance(cause, grpc.RpcError) and cause.code() == grpc.StatusCode.UNIMPLEMENTED
