"""Every watch signal fires on its hand-made replay and stays quiet on the others (tests/fixtures/watch/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff import api
from xoff.exitcodes import ExitCode
from xoff.validate.model import Status
from xoff.watch.file_source import sample_to_json
from xoff.watch.report import WatchReport
from xoff.watch.sample import Sample
from xoff.watch.signals import SIGNAL_IDS

SAMPLES = ROOT / "tests" / "fixtures" / "watch"
INTENT = ROOT / "inventory" / "lab-mini"
FIRES = sorted(p.stem for p in SAMPLES.glob("*.jsonl") if p.stem != "quiet")


def _watch(path: Path, *overrides: str) -> WatchReport:
    return api.watch(INTENT, api.WatchOptions(replay=path, interval_s=10, window_s=60, thresholds=overrides))


def test_every_signal_has_a_firing_sample() -> None:
    assert sorted(f"watch.{n}" for n in FIRES) == sorted(SIGNAL_IDS)


def test_quiet_fabric_every_signal_judged_and_quiet() -> None:
    report = _watch(SAMPLES / "quiet.jsonl")
    assert {r.id: r.status for r in report.results} == dict.fromkeys(SIGNAL_IDS, Status.SUCCESS)
    assert report.exit_code() is ExitCode.OK


@pytest.mark.parametrize("name", FIRES)
def test_signal_fires_alone(name: str) -> None:
    report = _watch(SAMPLES / f"{name}.jsonl")
    statuses = {r.id: r.status for r in report.results}
    assert statuses.pop(f"watch.{name}") is Status.FAILURE
    assert set(statuses.values()) == {Status.SUCCESS}
    (result,) = [r for r in report.results if r.id == f"watch.{name}"]
    (finding,) = result.findings
    assert finding.device in ("leaf1", "gpu2", "gpu3") and finding.expected and finding.actual
    assert result.hint_for(finding)
    assert report.exit_code() is ExitCode.FINDINGS
    (judged,) = [j for j in report.judgements if j.signal.id == f"watch.{name}"]
    assert judged.traces[0] and judged.traces[0][0].points  # the series that triggered it, for the plot


@pytest.mark.parametrize(
    ("name", "port", "priority"),
    [("pause_storm", "Ethernet0", 3), ("slow_drain", "Ethernet0", 3), ("lossless_drop", "Ethernet0", 3)],
)
def test_findings_name_port_and_priority(name: str, port: str, priority: int) -> None:
    (finding,) = next(r for r in _watch(SAMPLES / f"{name}.jsonl").results if r.id == f"watch.{name}").findings
    assert (finding.port, finding.priority) == (port, priority)


def test_a_host_nic_sending_a_storm(tmp_path: Path) -> None:
    """gpu1's NIC sends 3,000 pause frames/s on its PFC priority 3 (mlnx_qos flags in the plan): a storm at the host."""
    lines = []
    for line in (SAMPLES / "quiet.jsonl").read_text().splitlines():
        raw = json.loads(line)
        if raw["device"] == "gpu1":
            total = 30000 * ((raw["at"] - 1764680000.0) // 10)
            nic = {"port": "eth0", "priority": "3"}
            raw["readings"].append({"metric": "xoff_nic_pfc_tx_pause_frames_total", "labels": nic, "value": total})
        lines.append(json.dumps(raw))
    path = tmp_path / "nic.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (finding,) = next(r for r in _watch(path).results if r.id == "watch.pause_storm").findings
    assert (finding.device, finding.port, finding.priority, finding.actual) == ("gpu1", "eth0", 3, "3000 frames/s")


def test_threshold_override_silences_the_storm() -> None:
    report = _watch(SAMPLES / "pause_storm.jsonl", "pause_storm_pps=5000")
    assert next(r for r in report.results if r.id == "watch.pause_storm").status is Status.SUCCESS


def _only(tmp_path: Path, devices: set[str]) -> Path:
    lines = [
        line for line in (SAMPLES / "quiet.jsonl").read_text().splitlines() if json.loads(line)["device"] in devices
    ]
    out = tmp_path / "part.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out


def test_nothing_observed_is_skipped_with_the_reason(tmp_path: Path) -> None:
    """Hosts only: the switch signals have nothing to judge; skipped, never a success."""
    report = _watch(_only(tmp_path, {"gpu1", "gpu2", "gpu3"}))
    statuses = {r.id: r for r in report.results}
    for sid in ("watch.pause_storm", "watch.slow_drain", "watch.lossless_drop", "watch.ecn_ratio", "watch.fec_ber"):
        assert statuses[sid].status is Status.SKIPPED
        assert "nothing observed to judge" in (statuses[sid].message or "")
    assert statuses["watch.nic_discards"].status is Status.SUCCESS


def test_one_host_is_no_straggler_verdict(tmp_path: Path) -> None:
    report = _watch(_only(tmp_path, {"gpu1"}))
    result = next(r for r in report.results if r.id == "watch.gpu_straggler")
    assert result.status is Status.SKIPPED and "needs peers" in (result.message or "")


def test_a_gap_is_not_quiet(tmp_path: Path) -> None:
    """Values not observed (null) give no rate: the storm's counters as N/A leave pause_storm with nothing to judge
    on leaf1's priority 3 (skipped), never a success."""
    lines = []
    for line in (SAMPLES / "pause_storm.jsonl").read_text().splitlines():
        raw = json.loads(line)
        for r in raw["readings"]:
            if r["metric"].startswith(("xoff_pfc_",)):
                r["value"] = None
        lines.append(json.dumps(raw))
    path = tmp_path / "gaps.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = next(r for r in _watch(path).results if r.id == "watch.pause_storm")
    assert result.status is Status.SKIPPED


def test_no_device_read_exits_4(tmp_path: Path) -> None:
    path = tmp_path / "down.jsonl"
    rows = [
        Sample(d, 1764680000.0 + 10 * k, error="ssh: connection refused") for k in range(2) for d in ("leaf1", "gpu1")
    ]
    path.write_text("".join(json.dumps(sample_to_json(s)) + "\n" for s in rows))
    report = _watch(path)
    assert report.exit_code() is ExitCode.NOT_COLLECTED
    assert report.not_read["leaf1"] == "ssh: connection refused"
    assert {r.status for r in report.results} == {Status.SKIPPED}


def test_straggler_without_max_clocks_compares_with_the_fastest(tmp_path: Path) -> None:
    """No host reported its maximum SM clock: the fastest clock seen stands in for "full clock"."""
    lines = []
    for line in (SAMPLES / "gpu_straggler.jsonl").read_text().splitlines():
        raw = json.loads(line)
        raw["readings"] = [r for r in raw["readings"] if r["metric"] != "xoff_gpu_max_sm_clock_hertz"]
        lines.append(json.dumps(raw))
    path = tmp_path / "nomax.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (finding,) = next(r for r in _watch(path).results if r.id == "watch.gpu_straggler").findings
    assert finding.device == "gpu3" and finding.actual == "795 MHz"


def _drain(tmp_path: Path, device: str, port: str, priority: int, fills: list[tuple[str, dict[str, str]]]) -> Path:
    """Three rounds of ``device``: rx pause at 800/s on ``port``/``priority`` and each of ``fills`` (a gauge and its
    labels) growing by 8 KiB a round; the rest of the fabric quiet."""
    lines = (SAMPLES / "quiet.jsonl").read_text().splitlines()
    for k in range(3):
        pause = {"metric": "xoff_pfc_rx_pause_frames_total", "value": 8000.0 * k}
        pause["labels"] = {"port": port, "priority": str(priority)}
        grown = [{"metric": m, "labels": {"port": port, **lab}, "value": 65536.0 + 8192 * k} for m, lab in fills]
        lines.append(json.dumps({"device": device, "at": 1764680000.0 + 10 * k, "readings": [pause, *grown]}))
    path = tmp_path / f"{device}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("device", "port", "priority", "fills", "what"),
    [
        ("spine2", "Ethernet2/1", 3, [("xoff_queue_length_bytes", {"queue": "3"})], "egress queue"),
        ("sleaf1", "swp4", 4, [("xoff_pg_shared_watermark_bytes", {"pg": "4"})], "PG shared watermark"),
    ],
    ids=["eos-lanz-queue", "cumulus-pg"],
)
def test_slow_drain_on_eos_and_cumulus(
    tmp_path: Path, device: str, port: str, priority: int, fills: list[tuple[str, dict[str, str]]], what: str
) -> None:
    """EOS reports no PG watermark: its LANZ queue length on the priority's egress queue stands in; Cumulus its PG's
    peak buffer use. A queue that LANZ keeps reporting at one length (a stale report) is not a slow drain."""
    result = next(
        r for r in _watch(_drain(tmp_path, device, port, priority, fills)).results if r.id == "watch.slow_drain"
    )
    (finding,) = result.findings
    assert (finding.device, finding.port, finding.priority) == (device, port, priority)
    assert what in finding.problem and finding.actual == "watermark 65536 -> 81920 B"
    flat = _drain(tmp_path, device, port, priority, fills)
    flat.write_text(flat.read_text().replace("73728.0", "65536.0").replace("81920.0", "65536.0"))
    result = next(r for r in _watch(flat).results if r.id == "watch.slow_drain")
    assert result.status is Status.SUCCESS and not result.findings
