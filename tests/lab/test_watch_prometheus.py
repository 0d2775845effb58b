"""Issue 18 item 4, end to end: a real Prometheus (Debian's binary, on loopback, its own temp dir, ended by its PID)
scrapes ``xoff watch --lab NAME --listen`` over a running lab-mini; the seeded ``pause-storm`` fault (counters that
move in the SONiC emulator) fires exactly ``XoffPauseStorm`` on its port, read from Prometheus' ``/api/v1/alerts``,
and the alert goes away after the undo. The dashboard's queries run against the same server.

The rules are xoff's own (``xoff.watch.alerts``) with short windows and ``for: 0s`` for the test only; Prometheus
scrapes and evaluates every second. Every wait is on a condition with a deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from tests.support.paths import ROOT
from xoff.lab import netns
from xoff.lab.faults import FAULTS, Lab
from xoff.lab.lab import LabError, up
from xoff.lab.teardown import down
from xoff.watch.alerts import Windows, render
from xoff.watch.dashboard import dashboard, queries

pytestmark = pytest.mark.lab
INTENT = ROOT / "inventory" / "lab-mini"
LAB = f"wp{os.getpid()}"
WATCHED = (
    "leaf1",
    "leaf2",
    "spine1",
)  # the storm's switch and two quiet ones: small, and 'no other alert' means something
STORM = FAULTS["pause-storm"]
RATE_S = 6  # the rules' window here: a few of xoff watch's rounds (1 s apart, each a few hundred ms of SSH)
RATE = f"{RATE_S}s"
T = TypeVar("T")
# deadlines, not waits: on an idle machine each condition holds in seconds; under a loaded CI machine an SSH round
# of the lab's emulators can take several seconds
READY_S, FIRE_S = 150.0, 90.0


@dataclass
class Running:
    lab: Lab
    prometheus: str  # http://127.0.0.1:PORT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for(what: str, check: Callable[[], T | None], deadline_s: float = 60.0) -> T:
    """Poll ``check`` until it returns something truthy; fail naming ``what`` at the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            pytest.fail(f"not within {deadline_s:.0f} s: {what}")
        time.sleep(0.25)  # the polling interval of a condition wait


def api(base: str, path: str, **params: str) -> Any:
    url = f"{base}{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _start_prometheus(work: Path, target: str, port: int) -> subprocess.Popen[bytes]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.fail("prometheus not found: install Debian package prometheus (make system-deps)")
    (work / "rules.yml").write_text(render(windows=Windows(window_s=RATE_S, scrape_s=1)), encoding="utf-8")
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "rule_files": ["rules.yml"],
        "scrape_configs": [{"job_name": "xoff", "static_configs": [{"targets": [target]}]}],
    }
    (work / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    args = [
        binary,
        f"--config.file={work / 'prometheus.yml'}",
        f"--storage.tsdb.path={work / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}",
    ]
    return subprocess.Popen(args, cwd=work, stdout=subprocess.DEVNULL, stderr=(work / "prometheus.log").open("wb"))


def _start_watch(listen: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    limits = [arg for device in WATCHED for arg in ("--limit", device)]
    args = [sys.executable, "-m", "xoff", "watch", str(INTENT), "--lab", LAB, "--interval", "1", "--window", "20"]
    args += [*limits, "--listen", listen, "--quiet"]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def _stop(process: subprocess.Popen[bytes], sig: int) -> None:
    if process.poll() is None:
        os.kill(process.pid, sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    root = Path(tempfile.mkdtemp(prefix="xwp-", dir="/tmp"))  # short: unix socket paths live under it
    root.chmod(0o755)  # FRR runs as user frr
    work = root / "prometheus"
    work.mkdir()
    old = os.environ.get("XOFF_LAB_DIR")
    os.environ["XOFF_LAB_DIR"] = str(root)
    processes: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        up(INTENT, LAB, remap_addresses=True)
        listen, prom_port = f"127.0.0.1:{free_port()}", free_port()
        processes.append((_start_watch(listen, root / "watch.log"), signal.SIGINT))
        processes.append((_start_prometheus(work, listen, prom_port), signal.SIGTERM))
        base = f"http://127.0.0.1:{prom_port}"
        wait_for("Prometheus ready", lambda: _ok(f"{base}/-/ready"), 30)
        yield Running(Lab(LAB), base)
    finally:
        for process, sig in reversed(processes):
            _stop(process, sig)
        with contextlib.suppress(LabError):
            down(LAB)
        assert netns.names(f"xl-{LAB}-") == []
        shutil.rmtree(root, ignore_errors=True)
        if old is None:
            os.environ.pop("XOFF_LAB_DIR", None)
        else:
            os.environ["XOFF_LAB_DIR"] = old


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def alerts(base: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = api(base, "/api/v1/alerts")["data"]["alerts"]
    return found


def _evaluated_after(base: str, moment: float) -> bool:
    groups = api(base, "/api/v1/rules")["data"]["groups"]
    stamps = [g.get("lastEvaluation", "") for g in groups]
    return bool(stamps) and all(_unix(s) > moment for s in stamps)


def _unix(stamp: str) -> float:
    """Prometheus' RFC 3339 time with nanoseconds (``2026-12-02T15:06:01.123456789Z``) as Unix seconds."""
    match = re.fullmatch(r"(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)", stamp)
    assert match is not None, stamp
    zone = "+00:00" if match[3] == "Z" else match[3]
    return datetime.fromisoformat(match[1] + zone).timestamp() + float(match[2] or 0)


def _rates_ready(base: str) -> bool:
    """Every watched switch up, and its pause counters with enough points in the rules' rate window."""
    up_ = api(base, "/api/v1/query", query="sum(xoff_up)")["data"]["result"]
    full = api(base, "/api/v1/query", query=f"count(count_over_time(xoff_pfc_rx_pause_frames_total[{RATE}]) >= 3)")
    return bool(up_) and float(up_[0]["value"][1]) == len(WATCHED) and bool(full["data"]["result"])


def test_a_seeded_storm_fires_exactly_its_alert(running: Running) -> None:
    base = running.prometheus
    wait_for("the watched switches read and scraped long enough for a rate", lambda: _rates_ready(base), READY_S)
    ready_at = time.time()
    wait_for("a rule evaluation after that", lambda: _evaluated_after(base, ready_at), 15)
    assert alerts(base) == [], "an alert before any fault was seeded"

    STORM.seed(running.lab, STORM.target)
    try:
        firing = wait_for(
            "XoffPauseStorm firing",
            lambda: [
                a for a in alerts(base) if a["state"] == "firing" and a["labels"]["alertname"] == "XoffPauseStorm"
            ],
            FIRE_S,
        )
        everything = alerts(base)
        assert {a["labels"]["alertname"] for a in everything} == {"XoffPauseStorm"}, everything
        for alert in firing:
            labels = alert["labels"]
            assert (labels["device"], labels["port"], labels["signal"]) == ("leaf1", "Ethernet8", "watch.pause_storm")
            assert labels["network"] == "compute" and labels["role"] == "leaf"
        assert {a["labels"].get("priority") for a in firing} - {None} == {str(STORM.target.priority)}
    finally:
        STORM.undo(running.lab, STORM.target)
    wait_for("no alert once the storm is undone", lambda: alerts(base) == [] or None, FIRE_S)


def test_the_dashboards_queries_run(running: Running) -> None:
    base = running.prometheus
    wait_for("the watched switches scraped", lambda: _rates_ready(base), READY_S)
    answered = {}
    for expr in queries(dashboard()):
        if expr.startswith("label_values("):
            continue
        query = expr.replace("$__rate_interval", RATE).replace("$device", "leaf1").replace("$port", ".*")
        reply = api(base, "/api/v1/query", query=query)
        assert reply["status"] == "success", (query, reply)
        answered[expr] = bool(reply["data"]["result"])
    assert answered["sum(xoff_up)"]
    assert any(v for k, v in answered.items() if "xoff_pfc_rx_pause_frames_total" in k)
