"""What an EOS switch holds per port and can differ between ports: QoS trust, tx-queue scheduling and ECN,
and the PFC watchdog's action and timers (the global ``priority-flow-control pause watchdog default ...``
values, overridden on a port by ``priority-flow-control pause watchdog port action|timer ...``).

The observed Device carries the most common value of each among the ports that have it; each port whose
value differs goes into ``PortSettings`` with the fields that differ, so drift names the port.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from xoff.contracts.observed import PortSettings
from xoff.desired.models import Device
from xoff.platforms.eos.parse import EosConfig, EosInterface
from xoff.platforms.eos.qos import bandwidth_percents

TRUST = {"dscp": "dscp", "cos": "pcp"}
# EOS's watchdog actions -> FabricState's; errdisable has no FabricState equivalent (not observed)
WATCHDOG_ACTIONS = {"drop": "drop", "notify-only": "alert"}
PER_PORT = (
    "trust",
    "schedulers",
    "ecn",
    "watchdog_action",
    "watchdog_detection_ms",
    "watchdog_restoration_ms",
    "watchdog_poll_ms",
)


def _ms(value: str) -> int:
    return round(float(value) * 1000)


def _schedulers(iface: EosInterface, desired: Device) -> dict[int, dict[str, Any]]:
    queues = iface.tx_queues
    percents = {q: int(str(v["percent"])) for q, v in queues.items() if v.get("type") == "dwrr" and "percent" in v}
    same_shares = desired.qos is not None and percents == bandwidth_percents(desired.qos)
    weights = {q: s.weight for q, s in desired.qos.schedulers.items() if s.type == "dwrr"} if desired.qos else {}
    return {
        q: {"type": v["type"], "weight": weights.get(q) if same_shares else percents.get(q)}
        for q, v in queues.items()
        if "type" in v
    }


def _ecn(iface: EosInterface) -> dict[int, dict[str, int]]:
    out = {}
    for q, v in iface.tx_queues.items():
        ecn = v.get("ecn")
        if isinstance(ecn, tuple):
            out[q] = {"min_threshold": ecn[0], "max_threshold": ecn[1], "probability": ecn[2]}
    return out


def _watchdog(iface: EosInterface, config: EosConfig) -> dict[str, Any]:
    """This port's watchdog (its own settings over the global defaults); only what the switch shows."""
    if not (iface.pfc_on and iface.pfc_watchdog):
        return {}
    return watchdog_settings({**config.watchdog, **iface.watchdog})


def watchdog_settings(wd: dict[str, str]) -> dict[str, Any]:
    """EOS watchdog words (``action``, ``timeout``, ``recovery-time``, ``polling-interval``) -> PortSettings names."""
    out: dict[str, Any] = {}
    if wd.get("action") in WATCHDOG_ACTIONS:
        out["watchdog_action"] = WATCHDOG_ACTIONS[wd["action"]]
    if "timeout" in wd:
        out["watchdog_detection_ms"] = _ms(wd["timeout"])
    if "recovery-time" in wd:
        out["watchdog_restoration_ms"] = _ms(wd["recovery-time"])
    if wd.get("polling-interval", "auto") != "auto":
        out["watchdog_poll_ms"] = _ms(wd["polling-interval"])
    return out


def port_values(config: EosConfig, desired: Device) -> dict[str, dict[str, Any]]:
    """Port -> the per-port settings it shows (a field it does not show is absent)."""
    out: dict[str, dict[str, Any]] = {}
    for name, iface in config.interfaces.items():
        values: dict[str, Any] = {}
        if iface.trust is not None:
            values["trust"] = TRUST[iface.trust]
        if iface.tx_queues:
            values["schedulers"] = _schedulers(iface, desired)
            if "qos.ecn" not in config.unread:
                values["ecn"] = _ecn(iface)
        values.update(_watchdog(iface, config))
        if values:
            out[name] = values
    return out


def intended(desired: Device) -> dict[str, Any]:
    """The per-port values the intent means (only to break a tie between values the switch shows)."""
    out: dict[str, Any] = {}
    if desired.qos is not None:
        out["trust"] = desired.qos.trust
        out["schedulers"] = {q: s.model_dump() for q, s in desired.qos.schedulers.items()}
        out["ecn"] = {q: e.model_dump() for q, e in desired.qos.ecn.items()}
    wd = desired.pfc_watchdog
    if wd is not None:
        out |= {"watchdog_action": wd.action, "watchdog_detection_ms": wd.detection_ms}
        out |= {"watchdog_restoration_ms": wd.restoration_ms, "watchdog_poll_ms": wd.poll_interval_ms}
    return out


def most_common(ports: dict[str, dict[str, Any]], prefer: dict[str, Any] | None = None) -> dict[str, Any]:
    """Field -> the value most ports show; on a tie, the one of ``prefer`` (the intent's) if the switch shows
    it, else the first port's in the switch's order. Always a value the switch showed."""
    out: dict[str, Any] = {}
    prefer = prefer or {}
    for name in PER_PORT:
        values = [v[name] for v in ports.values() if name in v]
        if values:
            counts = Counter(_key(v) for v in values)
            top = max(counts.values())
            tied = [v for v in values if counts[_key(v)] == top]
            out[name] = next((v for v in tied if name in prefer and _key(v) == _key(prefer[name])), tied[0])
    return out


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def differing(ports: dict[str, dict[str, Any]], common: dict[str, Any]) -> dict[str, PortSettings]:
    """The ports whose settings differ from the device's (most common) ones: each with what differs."""
    out: dict[str, PortSettings] = {}
    for port, values in ports.items():
        diff = {k: v for k, v in values.items() if k in common and _key(v) != _key(common[k])}
        diff.pop("watchdog_poll_ms", None)  # PortSettings has no poll interval (the device holds one)
        if diff:
            out[port] = PortSettings.model_validate(diff)
    return out
