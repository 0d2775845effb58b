"""A CONFIG_DB rendered by xoff, with the standard tables and fields of real SONiC images added, is read with no
refusal: what xoff does not model is listed as unmodelled, validation finds no drift, and one port's watchdog
changed is exactly one drift finding naming the device, the port, the field and both values.

The additions follow real images' CONFIG_DB (values of our own): sonic-buildimage
``files/build_templates/init_cfg.json.j2`` (FEATURE, FLEX_COUNTER_TABLE, CRM, SYSLOG_CONFIG, NTP, KDUMP,
PASSW_HARDENING, ...) and sonic-utilities ``tests/mock_tables/config_db.json`` (PORT fec/pfc_asym/autoneg,
PFC_WD pfc_stat_history and BIG_RED_SWITCH, DEVICE_METADATA default_pfcwd_status, BGP_NEIGHBOR timers,
MGMT_PORT, MGMT_INTERFACE, LOOPBACK_INTERFACE IPv6, a WRED profile with only some thresholds).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sonic_cases import sonic_switches

from tests.support.paths import ROOT
from xoff.api import ValidateOptions, validate
from xoff.collect.engine import DeviceRun, assemble
from xoff.connect.targets import Target
from xoff.desired.models import Device, FabricState
from xoff.platforms.frr.render import render_frr_conf
from xoff.platforms.sonic.collect import RUNNING, Collector
from xoff.platforms.sonic.config_db import build_config_db
from xoff.validate import run_checks
from xoff.validate.model import Status

Db = dict[str, Any]


def _ports(db: Db) -> list[str]:
    return sorted(db["PORT"])


def _each_port(table: str, fields: dict[str, str]) -> Callable[[Db], None]:
    def apply(db: Db) -> None:
        for port in _ports(db):
            if table != "PFC_WD" or port in db.get("PFC_WD", {}):
                db.setdefault(table, {}).setdefault(port, {}).update(fields)

    return apply


def _row(table: str, key: str, fields: dict[str, str]) -> Callable[[Db], None]:
    def apply(db: Db) -> None:
        db.setdefault(table, {}).setdefault(key, {}).update(fields)

    return apply


def _bgp_timers(db: Db) -> None:
    for row in db.get("BGP_NEIGHBOR", {}).values():
        row.update({"admin_status": "up", "holdtime": "180", "keepalive": "60", "nhopself": "0", "rrclient": "0"})


# (what a real image has that xoff does not model, the unmodelled names it gives)
ADDITIONS: list[tuple[Callable[[Db], None], set[str]]] = [
    (_each_port("PORT", {"fec": "rs"}), {"PORT.fec"}),
    (_each_port("PORT", {"pfc_asym": "off"}), {"PORT.pfc_asym"}),
    (_each_port("PORT", {"autoneg": "off"}), {"PORT.autoneg"}),
    (_each_port("PORT", {"tpid": "0x8100", "parent_port": "x"}), {"PORT.tpid", "PORT.parent_port"}),
    (_each_port("PFC_WD", {"pfc_stat_history": "disable"}), {"PFC_WD.pfc_stat_history"}),
    (_row("PFC_WD", "GLOBAL", {"BIG_RED_SWITCH": "disable"}), {"PFC_WD.BIG_RED_SWITCH"}),
    (
        _row("DEVICE_METADATA", "localhost", {"default_pfcwd_status": "disable"}),
        {"DEVICE_METADATA.default_pfcwd_status"},
    ),
    (
        _row("DEVICE_METADATA", "localhost", {"synchronous_mode": "enable", "timezone": "UTC", "region": "None"}),
        {"DEVICE_METADATA.synchronous_mode", "DEVICE_METADATA.timezone", "DEVICE_METADATA.region"},
    ),
    (_row("WRED_PROFILE", "AZURE_LOSSY", {"red_max_threshold": "2097152"}), set()),
    (
        _row("FEATURE", "bgp", {"state": "enabled", "auto_restart": "enabled", "has_timer": "False"}),
        {"FEATURE"},
    ),
    (_row("FLEX_COUNTER_TABLE", "PFCWD", {"FLEX_COUNTER_STATUS": "enable"}), {"FLEX_COUNTER_TABLE"}),
    (_row("CRM", "Config", {"polling_interval": "300", "acl_table_threshold_type": "percentage"}), {"CRM"}),
    (_row("SYSLOG_SERVER", "198.18.200.5", {}), {"SYSLOG_SERVER"}),
    (_row("NTP", "global", {"src_intf": "eth0"}), {"NTP"}),
    (_row("MGMT_PORT", "eth0", {"alias": "eth0", "admin_status": "up"}), {"MGMT_PORT"}),
    (_row("MGMT_INTERFACE", "eth0|198.18.200.10/24", {"gwaddr": "198.18.200.1"}), {"MGMT_INTERFACE"}),
    (_row("LOOPBACK_INTERFACE", "Loopback0|fc00:1::32/128", {}), {"LOOPBACK_INTERFACE|IPv6 address"}),
    (_row("KDUMP", "config", {"enabled": "false", "num_dumps": "3", "memory": "0M-2G:256M"}), {"KDUMP"}),
    (_row("VERSIONS", "DATABASE", {"VERSION": "version_4_0_1"}), {"VERSIONS"}),
    (
        _bgp_timers,
        {"BGP_NEIGHBOR.admin_status", "BGP_NEIGHBOR.holdtime", "BGP_NEIGHBOR.keepalive", "BGP_NEIGHBOR.nhopself"}
        | {"BGP_NEIGHBOR.rrclient"},
    ),
]


@pytest.fixture(scope="module")
def fabric(lab_mini_state: Any) -> FabricState:
    state: FabricState = lab_mini_state[1]
    return state


def _leaf(fabric: FabricState) -> Device:
    return next(d for d in sonic_switches(fabric) if d.pfc_watchdog is not None and len(d.pfc_watchdog.ports) > 2)


def _dump(db: Db, device: Device, fabric: FabricState) -> str:
    return json.dumps({**db, "bgpraw": render_frr_conf(device, fabric)}, indent=4)


def _with(db: Db, chosen: list[int]) -> tuple[Db, set[str]]:
    out, names = copy.deepcopy(db), set()
    for index in chosen:
        apply, unmodelled = ADDITIONS[index]
        apply(out)
        names |= unmodelled
    return out, names


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=st.sets(st.integers(0, len(ADDITIONS) - 1)))
def test_any_mix_of_real_tables_is_read(fabric: FabricState, chosen: set[int]) -> None:
    device = _leaf(fabric)
    db, names = _with(build_config_db(device, fabric), sorted(chosen))
    obs = Collector().parse({RUNNING.text: _dump(db, device, fabric)}, device)
    assert obs.errors == []
    assert obs.device is not None
    assert set(obs.unmodelled) == names
    assert obs.port_settings == {}


def _validate(tmp_path: Path, fabric: FabricState, dump: str) -> Any:
    device = _leaf(fabric)
    target = Target(device.name, "sonic", "switch", device.role, device.network, "198.18.0.1")
    obs = Collector().parse({RUNNING.text: dump}, device)
    snapshot = assemble(fabric, [DeviceRun(target=target, observation=obs)])
    path = tmp_path / "snap.json"
    path.write_text(snapshot.model_dump_json())
    result = validate(ROOT / "inventory" / "lab-mini", ValidateOptions(snapshot=path))
    (drift,) = [r for r in result.validation.results if r.id == "drift.state"]
    return snapshot, drift


def test_all_real_tables_no_drift_then_one_port_watchdog(tmp_path: Path, fabric: FabricState) -> None:
    device = _leaf(fabric)
    db, names = _with(build_config_db(device, fabric), list(range(len(ADDITIONS))))
    snapshot, drift = _validate(tmp_path, fabric, _dump(db, device, fabric))
    assert set(snapshot.unmodelled[device.name]) == names
    assert snapshot.errors == []
    assert drift.status is Status.SUCCESS, drift.findings

    assert device.pfc_watchdog is not None and device.pfc_watchdog.action == "drop"
    port = device.pfc_watchdog.ports[1]
    db["PFC_WD"][port]["action"] = "alert"
    snapshot, drift = _validate(tmp_path, fabric, _dump(db, device, fabric))
    assert snapshot.port_settings[device.name][port].watchdog_action == "alert"
    assert drift.status is Status.FAILURE
    assert [(f.device, f.port, f.object, f.expected, f.actual) for f in drift.findings] == [
        (device.name, port, f"ports.{port}.watchdog_action", "drop", "alert")
    ]


def _set(table: str, key: str, field: str, value: Any) -> Callable[[Db], None]:
    def apply(db: Db) -> None:
        db[table][key][field] = value

    return apply


def _drop(table: str, key: str, field: str) -> Callable[[Db], None]:
    def apply(db: Db) -> None:
        del db[table][key][field]

    return apply


def _rename_dscp_map(port: str) -> Callable[[Db], None]:
    def apply(db: Db) -> None:
        (name, row), *_ = db["DSCP_TO_TC_MAP"].items()
        db["DSCP_TO_TC_MAP"]["OTHER"] = {**row, "26": "0"}
        db["PORT_QOS_MAP"][port]["dscp_to_tc_map"] = "OTHER"
        assert name != "OTHER"

    return apply


# (malformed value of a modelled field, the located error, the field path no longer read, the path still read)
MALFORMED = [
    (
        _set("PORT", "Ethernet8", "mtu", "9k"),
        "PORT|Ethernet8 mtu: '9k' is not an integer",
        "interfaces.Ethernet8.mtu",
        "interfaces.Ethernet0.mtu",
    ),
    (
        _set("PORT", "Ethernet0", "speed", 400000),
        "PORT|Ethernet0 speed: must be a string",
        "interfaces.Ethernet0.speed_mbps",
        "interfaces.Ethernet8.speed_mbps",
    ),
    (
        _set("PFC_WD", "GLOBAL", "POLL_INTERVAL", "fast"),
        "PFC_WD|GLOBAL POLL_INTERVAL: 'fast' is not an integer",
        "pfc_watchdog.poll_interval_ms",
        "pfc_watchdog.action",
    ),
    (
        _set("DEVICE_METADATA", "localhost", "bgp_asn", "AS65001"),
        "DEVICE_METADATA|localhost bgp_asn: 'AS65001' is not an integer",
        "bgp.asn",
        "qos.dscp_to_tc",
    ),
    (
        _set("QUEUE", "Ethernet0|3", "scheduler", "[WRED_PROFILE|WRED_Q3]"),
        "QUEUE|Ethernet0|3 scheduler: '[WRED_PROFILE|WRED_Q3]' is not a reference to SCHEDULER",
        "qos.schedulers",
        "qos.ecn",
    ),
    (
        _set("SCHEDULER", "scheduler.0", "type", "WRR"),
        "SCHEDULER|scheduler.0 type: 'WRR' is not one of STRICT, DWRR",
        "qos.schedulers",
        "pfc_watchdog",
    ),
]


@pytest.mark.parametrize(("mutate", "error", "unread", "read"), MALFORMED, ids=[m[1] for m in MALFORMED])
def test_a_malformed_value_is_one_located_error(
    fabric: FabricState, mutate: Callable[[Db], None], error: str, unread: str, read: str
) -> None:
    device = _leaf(fabric)
    db = copy.deepcopy(build_config_db(device, fabric))
    mutate(db)
    obs = Collector().parse({RUNNING.text: _dump(db, device, fabric)}, device)
    assert [(e.kind, e.command, e.message.startswith(error)) for e in obs.errors] == [("parse", RUNNING.text, True)]
    assert obs.device is not None
    assert unread not in obs.fields
    assert read in obs.fields or read.replace("Ethernet0", "*").replace("Ethernet8", "*") in obs.fields
    target = Target(device.name, "sonic", "switch", device.role, device.network, "198.18.0.1")
    (drift,) = run_checks(
        fabric, ["drift.state"], observed=assemble(fabric, [DeviceRun(target=target, observation=obs)])
    )
    assert drift.status is Status.SUCCESS, drift.findings  # what could not be read is not judged


# (a port that differs from the switch, the PortSettings it gets)
VARIETY = [
    (_set("PFC_WD", "Ethernet16", "action", "forward"), "Ethernet16", {"watchdog_action": "forward"}),
    (_set("PFC_WD", "Ethernet24", "detection_time", "400"), "Ethernet24", {"watchdog_detection_ms": 400}),
    (_set("PFC_WD", "Ethernet24", "restoration_time", "800"), "Ethernet24", {"watchdog_restoration_ms": 800}),
    (_rename_dscp_map("Ethernet8"), "Ethernet8", "dscp_to_tc"),
    (_set("QUEUE", "Ethernet8|6", "scheduler", "scheduler.0"), "Ethernet8", "schedulers"),
    (_drop("QUEUE", "Ethernet16|3", "wred_profile"), "Ethernet16", "ecn"),
]


@pytest.mark.parametrize(("mutate", "port", "want"), VARIETY, ids=[f"{p}-{w}" for _, p, w in VARIETY])
def test_per_port_variety_is_port_settings_and_drift(
    fabric: FabricState, mutate: Callable[[Db], None], port: str, want: Any
) -> None:
    device = _leaf(fabric)
    db = copy.deepcopy(build_config_db(device, fabric))
    mutate(db)
    obs = Collector().parse({RUNNING.text: _dump(db, device, fabric)}, device)
    assert obs.errors == []
    assert list(obs.port_settings) == [port]
    got = obs.port_settings[port].model_dump(exclude_none=True)
    if isinstance(want, dict):
        assert got == want
    else:
        assert list(got) == [want]
    target = Target(device.name, "sonic", "switch", device.role, device.network, "198.18.0.1")
    snapshot = assemble(fabric, [DeviceRun(target=target, observation=obs)])
    (drift,) = run_checks(fabric, ["drift.state"], observed=snapshot)
    assert drift.status is Status.FAILURE
    assert {(f.device, f.port) for f in drift.findings} == {(device.name, port)}
    assert all(f.object.startswith(f"ports.{port}.{next(iter(got))}") for f in drift.findings)


def test_multi_asic_namespaces_are_one_switch(fabric: FabricState) -> None:
    """A multi-ASIC dump (host + asic0 + asic1): the ports of both ASICs are one switch's; a modelled field two
    namespaces disagree on is one located error, an unmodelled table that differs per namespace is none."""
    from xoff.platforms.sonic.running import read_running_config

    device = _leaf(fabric)
    db = build_config_db(device, fabric)
    ports = _ports(db)
    half = set(ports[: len(ports) // 2])

    def namespace(mine: set[str], feature: str) -> Db:
        out = copy.deepcopy(db)
        for table in ("PORT", "PORT_QOS_MAP", "PFC_WD", "CABLE_LENGTH"):
            rows = out.get(table, {})
            for key in [k for k in rows if k in set(ports) - mine]:
                del rows[key]
        for key, row in out.get("CABLE_LENGTH", {}).items():
            out["CABLE_LENGTH"][key] = {p: v for p, v in row.items() if p in mine}
        out["FEATURE"] = {"bgp": {"state": "enabled", "has_per_asic_scope": feature}}
        return out

    host = {"DEVICE_METADATA": db["DEVICE_METADATA"], "FEATURE": {"bgp": {"state": "enabled"}}}
    dump = {"localhost": host, "asic0": namespace(half, "True"), "asic1": namespace(set(ports) - half, "False")}
    running = read_running_config(json.dumps(dump))
    assert running.errors == []
    assert sorted(running.reading.switch["interfaces"]) == sorted([*ports, "Loopback0"])
    dump["asic1"]["PFC_WD"]["GLOBAL"]["POLL_INTERVAL"] = "400"
    running = read_running_config(json.dumps(dump))
    assert running.errors == [
        "asic1: PFC_WD|GLOBAL POLL_INTERVAL: differs from another namespace's (the first is read)"
    ]
