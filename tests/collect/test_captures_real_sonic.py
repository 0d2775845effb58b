"""Issue 13's first "done when", end to end through the CLI an auditor runs: xoff's own CONFIG_DB with the
standard tables and fields a real SONiC image carries (sonic-utilities `tests/mock_tables/config_db.json`,
sonic-buildimage `init_cfg.json.j2`: see tests/fixtures/real/sonic/README.md) is read from a capture directory by
`xoff collect --from-captures` with no refusal and its unmodelled names listed; `xoff validate --snapshot` finds no
drift on it; with one port's PFC watchdog action changed it finds exactly that drift, naming device, port and field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.paths import INVENTORY, ROOT
from xoff.collect.captures import capture_path
from xoff.desired import build_fabric_state
from xoff.intent import load_intent
from xoff.platforms.sonic import collect as sonic
from xoff.platforms.sonic.config_db import build_config_db
from xoff.render import render_fabric

LAB_MINI = INVENTORY / "lab-mini"
LEAF = "leaf1"

# What a real image adds that xoff does not model (values of our own, tables and fields as the sources print them).
REAL_IMAGE_ROWS: dict[str, dict[str, dict[str, str]]] = {
    "FEATURE": {
        "bgp": {"state": "enabled", "auto_restart": "enabled", "delayed": "False", "has_per_asic_scope": "True"},
        "lldp": {"state": "enabled", "auto_restart": "enabled", "delayed": "True", "has_global_scope": "True"},
    },
    "FLEX_COUNTER_TABLE": {"PFCWD": {"FLEX_COUNTER_STATUS": "enable"}, "QUEUE": {"FLEX_COUNTER_STATUS": "enable"}},
    "CRM": {"Config": {"polling_interval": "300", "ipv4_route_threshold_type": "percentage"}},
    "SYSLOG_SERVER": {"198.18.200.5": {}},
    "NTP": {"global": {"src_intf": "eth0"}},
    "MGMT_PORT": {"eth0": {"alias": "eth0", "admin_status": "up"}},
    "KDUMP": {"config": {"enabled": "false", "num_dumps": "3", "memory": "0M-2G:256M"}},
    "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_1"}},
}
PER_PORT_FIELDS = {"fec": "rs", "pfc_asym": "off", "autoneg": "off", "tpid": "0x8100"}


def _real_image_db(state: Any) -> dict[str, Any]:
    db: dict[str, Any] = build_config_db(state.devices[LEAF], state)
    for port in db["PORT"].values():
        port.update(PER_PORT_FIELDS)
    for row in db.get("PFC_WD", {}).values():
        if "action" in row:
            row["pfc_stat_history"] = "disable"
    db.setdefault("PFC_WD", {}).setdefault("GLOBAL", {})["BIG_RED_SWITCH"] = "disable"
    db["DEVICE_METADATA"]["localhost"].update({"default_pfcwd_status": "disable", "timezone": "UTC"})
    db.update(REAL_IMAGE_ROWS)
    return db


def _xoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, cwd=ROOT, check=False)


def _audit(db: dict[str, Any], state: Any, folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """collect --from-captures then validate --snapshot: (snapshot JSON, drift.state's report rows (one per
    finding, or one for the result), collect's stdout)."""
    dump = {**db, "bgpraw": {f.name: f.content for f in render_fabric(state, devices=[LEAF])}["frr.conf"]}
    path = capture_path(folder / "captures", LEAF, sonic.RUNNING)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dump, indent=4))
    snap = folder / "snap.json"
    collected = _xoff("collect", str(LAB_MINI), "--from-captures", str(folder / "captures"), "-o", str(snap))
    assert collected.returncode == 0, collected.stderr
    report = _xoff("validate", str(LAB_MINI), "--snapshot", str(snap), "--format", "json")
    assert report.returncode in (0, 1), report.stderr
    drift = [r for r in json.loads(report.stdout)["results"] if r["check"] == "drift.state"]
    return json.loads(snap.read_text()), drift, collected.stdout


def test_real_image_config_db_from_captures_no_drift_then_exactly_one_port(tmp_path: Path) -> None:
    state = build_fabric_state(load_intent(LAB_MINI))
    db = _real_image_db(state)
    snapshot, drift, stdout = _audit(db, state, tmp_path / "clean")
    assert snapshot["errors"] == []
    assert LEAF in snapshot["observed"]["devices"]
    unmodelled = set(snapshot["unmodelled"][LEAF])
    assert {"FEATURE", "FLEX_COUNTER_TABLE", "CRM", "SYSLOG_SERVER", "NTP", "MGMT_PORT", "KDUMP"} <= unmodelled
    assert {"PORT.fec", "PORT.pfc_asym", "PORT.autoneg", "PFC_WD.pfc_stat_history", "PFC_WD.BIG_RED_SWITCH"} <= (
        unmodelled
    )
    assert "DEVICE_METADATA.default_pfcwd_status" in unmodelled
    assert any(line.startswith(f"{LEAF}: ") and "unmodelled" in line for line in stdout.splitlines()), stdout
    assert [r["status"] for r in drift] == ["success"], drift

    watchdog = state.devices[LEAF].pfc_watchdog
    assert watchdog is not None and watchdog.action == "drop"
    port = watchdog.ports[1]
    db["PFC_WD"][port]["action"] = "alert"
    snapshot, drift, _ = _audit(db, state, tmp_path / "one-port")
    assert snapshot["errors"] == []
    assert {r["status"] for r in drift} == {"failure"}
    found = [(f["device"], f["port"], f["object"], f["expected"], f["actual"]) for f in drift]
    assert found == [(LEAF, port, f"ports.{port}.watchdog_action", "drop", "alert")]
