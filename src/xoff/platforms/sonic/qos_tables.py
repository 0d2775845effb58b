"""QoS tables of CONFIG_DB from Device.qos, and PFC_WD from Device.pfc_watchdog.

reference/lossless.md §1.1 (syntax: maps, PORT_QOS_MAP, SCHEDULER, QUEUE, WRED_PROFILE, PFC_WD),
§1.2 (what the generic template binds per port, PFC_PRIORITY_TO_PRIORITY_GROUP_MAP on
Mellanox/Barefoot only, ``ecn_all`` WRED with all three colours enabled), §1.5 (watchdog).
The whole 64-entry DSCP map is written, so no DSCP falls back to SONiC's stock map (§1.2: DSCP 26
-> lossy TC1).
"""

from __future__ import annotations

from xoff.desired.models import Device, Qos
from xoff.platforms.sonic.names import (
    GLOBAL_QOS_KEY,
    MAP_NAME,
    PFC_TO_PG_VENDORS,
    WATCHDOG_GLOBAL_KEY,
    scheduler_name,
    wred_profile_name,
)
from xoff.platforms.sonic.tables import Fields, Tables, cabled_ports


def _map(values: dict[int, int]) -> dict[str, Fields]:
    return {MAP_NAME: {str(k): str(v) for k, v in sorted(values.items())}}


def build(device: Device, vendor: str | None) -> Tables:
    qos = device.qos
    if qos is None:
        return {}
    pfc_to_pg = vendor in PFC_TO_PG_VENDORS and bool(qos.pfc_priority_to_priority_group)
    out: Tables = {
        "DSCP_TO_TC_MAP": _map(qos.dscp_to_tc),
        "TC_TO_PRIORITY_GROUP_MAP": _map(qos.tc_to_priority_group),
        "TC_TO_QUEUE_MAP": _map(qos.tc_to_queue),
        "MAP_PFC_PRIORITY_TO_QUEUE": _map(qos.pfc_priority_to_queue),
    }
    if pfc_to_pg:
        out["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"] = _map(qos.pfc_priority_to_priority_group)
    out["PORT_QOS_MAP"] = _port_qos_map(device, pfc_to_pg)
    schedulers = _schedulers(qos)
    if schedulers:
        out["SCHEDULER"] = dict(schedulers.values())
    queues = _queues(device, qos, {q: name for q, (name, _) in schedulers.items()})
    if queues:
        out["QUEUE"] = queues
    if qos.ecn:
        out["WRED_PROFILE"] = {
            wred_profile_name(q): _wred(ecn.min_threshold, ecn.max_threshold, ecn.probability)
            for q, ecn in qos.ecn.items()
        }
    return out


def _port_qos_map(device: Device, pfc_to_pg: bool) -> dict[str, Fields]:
    out: dict[str, Fields] = {GLOBAL_QOS_KEY: {"dscp_to_tc_map": MAP_NAME}}
    watched = set(device.pfc_watchdog.ports) if device.pfc_watchdog is not None else set()
    for iface in cabled_ports(device):
        fields: Fields = {
            "dscp_to_tc_map": MAP_NAME,
            "tc_to_queue_map": MAP_NAME,
            "tc_to_pg_map": MAP_NAME,
            "pfc_to_queue_map": MAP_NAME,
        }
        if pfc_to_pg:
            fields["pfc_to_pg_map"] = MAP_NAME
        if iface.pfc_priorities:
            fields["pfc_enable"] = ",".join(str(p) for p in sorted(iface.pfc_priorities))
        if device.pfc_watchdog is not None and iface.name in watched:
            fields["pfcwd_sw_enable"] = ",".join(str(q) for q in sorted(device.pfc_watchdog.queues))
        out[iface.name] = fields
    return out


def _schedulers(qos: Qos) -> dict[int, tuple[str, Fields]]:
    """Queue -> (name, fields); one SCHEDULER per distinct (type, weight), numbered in queue order."""
    by_value: dict[tuple[str, int | None], str] = {}
    out: dict[int, tuple[str, Fields]] = {}
    for queue, sched in sorted(qos.schedulers.items()):
        key = (sched.type, sched.weight)
        name = by_value.setdefault(key, scheduler_name(len(by_value)))
        fields: Fields = {"type": "STRICT" if sched.type == "strict" else "DWRR"}
        if sched.weight is not None:
            fields["weight"] = str(sched.weight)
        out[queue] = (name, fields)
    return out


def _queues(device: Device, qos: Qos, scheduler_of: dict[int, str]) -> dict[str, Fields]:
    out: dict[str, Fields] = {}
    for iface in cabled_ports(device):
        for queue in sorted(set(scheduler_of) | set(qos.ecn)):
            fields: Fields = {}
            if queue in scheduler_of:
                fields["scheduler"] = scheduler_of[queue]
            if queue in qos.ecn:
                fields["wred_profile"] = wred_profile_name(queue)
            out[f"{iface.name}|{queue}"] = fields
    return out


def _wred(minimum: int, maximum: int, probability: int) -> Fields:
    """ECN marking on every colour, as the generic AZURE_LOSSLESS profile does (§1.2)."""
    fields: Fields = {}
    for colour in ("green", "yellow", "red"):
        fields[f"{colour}_min_threshold"] = str(minimum)
        fields[f"{colour}_max_threshold"] = str(maximum)
        fields[f"{colour}_drop_probability"] = str(probability)
    for colour in ("green", "yellow", "red"):
        fields[f"wred_{colour}_enable"] = "true"
    fields["ecn"] = "ecn_all"
    return fields


def watchdog(device: Device) -> Tables:
    """PFC_WD|<port> with the timers and action, and PFC_WD|GLOBAL with POLL_INTERVAL (§1.1, §1.5)."""
    wd = device.pfc_watchdog
    if wd is None:
        return {}
    out: dict[str, Fields] = {WATCHDOG_GLOBAL_KEY: {"POLL_INTERVAL": str(wd.poll_interval_ms)}}
    for port in wd.ports:
        out[port] = {
            "action": wd.action,
            "detection_time": str(wd.detection_ms),
            "restoration_time": str(wd.restoration_ms),
        }
    return {"PFC_WD": out}
