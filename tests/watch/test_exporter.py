"""The Prometheus endpoint: what a scrape serves for given samples, read back with prometheus-client's own parser."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from xoff.errors import InputError
from xoff.watch.exporter import Exporter, Identity, parse_listen, planned_readings, serve
from xoff.watch.sample import Reading, Sample

WHO = {"leaf1": Identity("compute", "leaf"), "gpu1": Identity("", "gpu-host", {"eth1": "compute", "eth9": "storage"})}
Series = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(exporter: Exporter) -> Series:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(exporter)
    text = generate_latest(registry).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def key(name: str, **labels: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    return (name, tuple(sorted(labels.items())))


LEAF = {"device": "leaf1", "network": "compute", "role": "leaf"}
PAUSE = Reading.of("xoff_pfc_rx_pause_frames_total", 1200, port="Ethernet0", priority=3)


def test_counters_gauges_and_meta() -> None:
    exporter = Exporter(WHO, clock=lambda: 1000.0)
    wm = Reading.of("xoff_pg_headroom_watermark_bytes", 4096, port="Ethernet0", pg=3)
    exporter.on_round([Sample("leaf1", 999.0, (PAUSE, wm), unmodelled={"pfc_rx_xoff": 2})])
    got = scrape(exporter)
    assert got[key("xoff_pfc_rx_pause_frames_total", **LEAF, port="Ethernet0", priority="3")] == 1200
    assert got[key("xoff_pg_headroom_watermark_bytes", **LEAF, port="Ethernet0", pg="3")] == 4096
    assert got[key("xoff_up", **LEAF)] == 1
    assert got[key("xoff_scrape_timestamp_seconds", **LEAF)] == 999.0
    assert got[key("xoff_scrape_readings", **LEAF)] == 2
    assert got[key("xoff_scrape_unmodelled_fields", **LEAF)] == 2
    assert got[key("xoff_scrape_rounds_total")] == 1
    assert got[key("xoff_scrape_round_timestamp_seconds")] == 1000.0


def test_not_observed_is_no_series_never_zero() -> None:
    exporter = Exporter(WHO)
    ber = Reading.of("xoff_pre_fec_ber", None, port="Ethernet0")
    exporter.on_round([Sample("leaf1", 1.0, (PAUSE, ber))])
    got = scrape(exporter)
    assert not [k for k in got if k[0] == "xoff_pre_fec_ber"]
    assert got[key("xoff_scrape_not_observed", **LEAF)] == 1
    assert got[key("xoff_scrape_readings", **LEAF)] == 1


def test_a_failed_read_drops_the_readings_and_counts_the_error() -> None:
    exporter = Exporter(WHO)
    exporter.on_round([Sample("leaf1", 1.0, (PAUSE,))])
    exporter.on_round([Sample("leaf1", 2.0, error="ssh: connection refused")])
    exporter.on_round([Sample("leaf1", 3.0, error="ssh: connection refused")])
    got = scrape(exporter)
    assert got[key("xoff_up", **LEAF)] == 0
    assert got[key("xoff_scrape_errors_total", **LEAF)] == 2
    assert not [k for k in got if k[0] == "xoff_pfc_rx_pause_frames_total"]


@pytest.mark.parametrize(
    "reading",
    [
        Reading.of("xoff_no_such_metric", 1, port="Ethernet0"),
        Reading.of("xoff_pfc_rx_pause_frames_total", 1, port="Ethernet0"),  # priority missing
        Reading.of("xoff_pre_fec_ber", 1e-9, port="Ethernet0", lane=1),  # a label the metric has not
    ],
)
def test_a_reading_the_catalogue_does_not_know_is_counted_not_served(reading: Reading) -> None:
    exporter = Exporter(WHO)
    exporter.on_round([Sample("leaf1", 1.0, (reading,))])
    got = scrape(exporter)
    assert got[key("xoff_exporter_rejected_readings")] == 1
    assert not [k for k in got if k[0] == reading.metric]


def test_a_repeated_series_is_served_once_last_wins() -> None:
    exporter = Exporter(WHO)
    again = Reading.of("xoff_pfc_rx_pause_frames_total", 1300, port="Ethernet0", priority=3)
    exporter.on_round([Sample("leaf1", 1.0, (PAUSE, again))])
    assert scrape(exporter)[key("xoff_pfc_rx_pause_frames_total", **LEAF, port="Ethernet0", priority="3")] == 1300


def test_planned_gauges_come_from_the_intent(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    exporter = Exporter.for_state(state)
    got = scrape(exporter)
    leaf1 = {"device": "leaf1", "network": "compute", "role": "leaf"}
    profile = state.devices["leaf1"].buffers.profiles[
        state.devices["leaf1"].buffers.port_priority_groups["Ethernet0"]["3"]
    ]
    assert got[key("xoff_pg_headroom_planned_bytes", **leaf1, port="Ethernet0", pg="3")] == profile.xoff
    assert got[key("xoff_queue_lossless", **leaf1, queue="3")] == 1
    # priority 3 is lab-mini's lossless class (PG 3, queue 3); priority 0 stays lossy, so it has no series
    assert got[key("xoff_priority_lossless", **leaf1, priority="3")] == 1
    assert got[key("xoff_priority_pg", **leaf1, priority="3", pg="3")] == 1
    assert got[key("xoff_priority_queue", **leaf1, priority="3", queue="3")] == 1
    assert not [k for k in got if k[0].startswith("xoff_priority_") and dict(k[1]).get("priority") == "0"]
    gpu1 = {"device": "gpu1", "network": "", "role": state.devices["gpu1"].role}  # a host: its NICs' PFC flags only
    assert got[key("xoff_priority_lossless", **gpu1, priority="3")] == 1
    assert not [
        k for k in got if k[0] in ("xoff_priority_pg", "xoff_priority_queue") and dict(k[1])["device"] == "gpu1"
    ]
    assert not [k for k in got if k[0] == "xoff_up"]  # nothing read yet: no device is said up or down
    assert set(planned_readings(state)) <= set(state.devices)


def test_serve_answers_on_the_port_the_os_gave() -> None:
    exporter = Exporter(WHO)
    exporter.on_round([Sample("leaf1", 1.0, (PAUSE,))])
    endpoint = serve("127.0.0.1:0", exporter)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{endpoint.port}/metrics", timeout=5) as response:
            body = response.read().decode()
    finally:
        endpoint.close()
    served = {s.name: s.value for f in text_string_to_metric_families(body) for s in f.samples}
    assert served["xoff_pfc_rx_pause_frames_total"] == 1200
    assert served["xoff_up"] == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [("127.0.0.1:9108", ("127.0.0.1", 9108)), ("[::1]:9108", ("::1", 9108)), (":9108", ("0.0.0.0", 9108))],
)
def test_parse_listen(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


@pytest.mark.parametrize("text", ["9108", "host:", "host:http", "host:70000"])
def test_parse_listen_refuses(text: str) -> None:
    with pytest.raises(InputError, match="--listen"):
        parse_listen(text)


def test_watch_listen_serves_every_round_while_the_loop_runs() -> None:
    """``xoff watch --listen``: api.watch opens the endpoint, hands it each round, and closes it at the end."""
    import socket

    from xoff import api

    with socket.socket() as probe:  # a port free now, for the endpoint the api opens itself
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    seen: list[dict[str, float]] = []

    def scrape_now(_samples: object, _window: object) -> None:  # runs before the exporter's hook of this round
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
        values = {
            s.name + str(sorted(s.labels.items())): s.value
            for f in text_string_to_metric_families(text)
            for s in f.samples
        }
        seen.append(values)

    replay = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "pause_storm.jsonl"
    options = api.WatchOptions(replay=replay, interval_s=10.0, window_s=60.0, listen=f"127.0.0.1:{port}")
    api.watch(Path(__file__).resolve().parents[2] / "inventory" / "lab-mini", options, hooks=(scrape_now,))
    rounds = [v.get("xoff_scrape_rounds_total[]") for v in seen]
    assert rounds[:3] == [0.0, 1.0, 2.0]
    pause = [v for k, v in seen[-1].items() if k.startswith("xoff_pfc_rx_pause_frames_total")]
    assert pause and max(pause) > 0
    with pytest.raises(OSError):  # closed when the loop ended
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)


def test_a_hosts_nic_readings_carry_the_nics_network() -> None:
    exporter = Exporter(WHO)
    discards = Reading.of("xoff_nic_rx_discards_phy_total", 7, port="eth9")
    clock = Reading.of("xoff_gpu_sm_clock_hertz", 1.98e9, gpu=0)
    exporter.on_round([Sample("gpu1", 1.0, (discards, clock))])
    got = scrape(exporter)
    host = {"device": "gpu1", "role": "gpu-host"}
    assert got[key("xoff_nic_rx_discards_phy_total", **host, network="storage", port="eth9")] == 7
    assert got[key("xoff_gpu_sm_clock_hertz", **host, network="", gpu="0")] == 1.98e9


def test_a_bad_listen_is_one_line_exit_2(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from xoff.cli.watch import app

    replay = Path(__file__).resolve().parents[1] / "fixtures" / "watch" / "quiet.jsonl"
    intent = Path(__file__).resolve().parents[2] / "inventory" / "lab-mini"
    result = CliRunner().invoke(app(), [str(intent), "--replay", str(replay), "--listen", "localhost"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == ["--listen localhost: expected HOST:PORT, e.g. 127.0.0.1:9108"]


def test_a_port_in_use_is_bad_input() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(InputError, match=f"--listen 127.0.0.1:{port}: "):
            serve(f"127.0.0.1:{port}", Exporter(WHO))
