"""Collect a SONiC switch: CONFIG_DB (``show runningconfiguration all``), FRR (BGP sessions, and its
running config inside the same dump as ``bgpraw``), lldpd, PFC and queue counters, PFC watchdog storms, buffer
watermarks (``counters``).

CONFIG_DB is read by the strict parser of the render round trip (``parse.py``); tables it does not
model are skipped by name (a running switch has dozens: FEATURE, MGMT_INTERFACE, ...). Counters and
watermarks are text only: ``counters`` reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from xoff.collect.observe import (
    dumped,
    interface_paths,
    observed_device,
    observed_interfaces,
    observed_static_routes,
    ordered_like,
)
from xoff.contracts.collect import Command, DeviceObservation, read
from xoff.contracts.fib import as_routes
from xoff.desired.models import Bgp, Device
from xoff.platforms.frr.fib import parse_route_json
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary, parse_router_bgp
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors
from xoff.platforms.sonic.counters import COMMANDS as COUNTER_COMMANDS
from xoff.platforms.sonic.counters import read_counters
from xoff.platforms.sonic.parse import OWNED_TABLES, ConfigDbParseError, ParsedSwitch, parse_config_db

RUNNING = Command("show runningconfiguration all")
BGP = Command("vtysh -c 'show bgp summary json'")
FIB = Command("vtysh -c 'show ip route json'")  # FRR's installed routes: what fpmsyncd programs
LLDP = Command("lldpctl -f json")

INTERFACE_FIELDS = ("kind", "speed_mbps", "mtu", "admin_up", "addresses", "cable_m", "pfc_priorities", "pfc_watchdog")
LAB_ONLY = "PFC/ECN counters and buffer use: the lab's SONiC has no data plane (counters are what the emulator holds)"


def _name(value: Any) -> Any:
    return value["name"]


def _address(value: Any) -> Any:
    return value.address


def _watchdog(parsed: ParsedSwitch, desired: Device) -> dict[str, Any] | None:
    watchdog = parsed["pfc_watchdog"]
    if watchdog is None:
        return None
    data: dict[str, Any] = watchdog.model_dump()
    reference = desired.pfc_watchdog.ports if desired.pfc_watchdog is not None else list(desired.interfaces)
    data["ports"] = ordered_like(data["ports"], reference)
    return data


def _static_routes(table: Any) -> list[tuple[str, str, str | None]]:
    """STATIC_ROUTE rows of the default VRF (``prefix`` or ``default|prefix``): one entry per next hop;
    ``nexthop`` and ``ifname`` are parallel comma-separated lists (sonic-static-route.yang)."""
    if not isinstance(table, dict):
        raise ConfigDbParseError("STATIC_ROUTE: must map keys to fields")
    out: list[tuple[str, str, str | None]] = []
    for key, row in table.items():
        vrf, _, prefix = str(key).rpartition("|")
        if vrf not in {"", "default"}:
            continue
        if not isinstance(row, dict) or not isinstance(row.get("nexthop", ""), str):
            raise ConfigDbParseError(f"STATIC_ROUTE|{key}: nexthop must be a comma-separated string")
        hops = row.get("nexthop", "").split(",")
        ports = str(row.get("ifname", "")).split(",") if row.get("ifname") else []
        out += [(prefix, h.strip(), ports[i].strip() if i < len(ports) else None) for i, h in enumerate(hops)]
    return out


class Collector:
    platform: ClassVar[str] = "sonic"

    def commands(self, desired: Device) -> list[Command]:  # noqa: ARG002 (the same on every SONiC switch)
        return [RUNNING, BGP, FIB, LLDP, *COUNTER_COMMANDS]

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        obs = DeviceObservation(device=None, lab_only=[LAB_ONLY])
        name, errors = desired.name, obs.errors
        # ConfigDbParseError, FrrParseError, JSON and the model's ValidationError are all ValueErrors
        device = read(outputs, RUNNING, lambda text: self._device(text, desired), name, errors)
        if device is not None:
            obs.device, obs.fields = device
        obs.bgp_sessions = read(outputs, BGP, parse_bgp_summary, name, errors, catch=(FrrParseError,))
        # SONiC's port names are Linux's
        obs.fib = read(outputs, FIB, lambda text: as_routes(parse_route_json(text)), name, errors)
        obs.lldp = read(outputs, LLDP, parse_neighbors, name, errors, catch=(LldpParseError,))
        obs.counters, obs.buffer_pool_watermarks = read_counters(outputs, name, errors, obs.unmodelled)
        return obs

    # --- CONFIG_DB + FRR -> Device ---------------------------------------------------------------

    def _device(self, text: str, desired: Device) -> tuple[Device, list[str]]:
        try:
            dump: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigDbParseError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
        if not isinstance(dump, dict):
            raise ConfigDbParseError("show runningconfiguration all: expected a JSON object")
        bgpraw = dump.pop("bgpraw", "")
        parsed = parse_config_db(dump, ignore_tables=set(dump) - set(OWNED_TABLES))
        updates, fields = self._updates(parsed, desired, bgpraw if isinstance(bgpraw, str) else "")
        updates["static_routes"] = observed_static_routes(desired, _static_routes(dump.get("STATIC_ROUTE", {})))
        fields.append("static_routes")
        return observed_device(desired, updates), fields

    def _updates(self, parsed: ParsedSwitch, desired: Device, bgpraw: str) -> tuple[dict[str, Any], list[str]]:
        fields = ["name", "role", "hwsku", "interfaces", *interface_paths(INTERFACE_FIELDS), "pfc_watchdog"]
        updates: dict[str, Any] = {
            "name": parsed["name"],
            "role": parsed["role"],
            "hwsku": parsed["hwsku"],
            "interfaces": observed_interfaces(desired, {n: dict(i) for n, i in parsed["interfaces"].items()}),
            "pfc_watchdog": _watchdog(parsed, desired),
        }
        updates["bgp"], bgp_fields = self._bgp(parsed, desired, bgpraw)
        fields += bgp_fields
        qos = parsed["qos"]
        if qos is None:
            updates["qos"] = None
            fields.append("qos")
        else:
            updates["qos"] = dumped(dict(qos))
            fields += [f"qos.{k}" for k in qos]
        buffers = parsed["buffers"]
        if buffers is None:
            updates["buffers"] = None
            fields.append("buffers")
        else:
            data = dumped(dict(buffers))
            if "pools" in data and desired.buffers is not None:
                data["pools"] = ordered_like(data["pools"], [p.name for p in desired.buffers.pools], _name)
            if "profiles" in data:  # the lookup row a profile came from is intent's, not the switch's
                want = desired.buffers.profiles if desired.buffers is not None else {}
                for profile_name, profile in data["profiles"].items():
                    profile["source"] = want[profile_name].source if profile_name in want else "observed"
                fields += [f"buffers.profiles.*.{k}" for k in ("name", "pool", "xon", "xoff", "size")]
                fields += ["buffers.profiles.*.xon_offset", "buffers.profiles.*.dynamic_th", "buffers.profiles"]
            updates["buffers"] = data
            fields += [f"buffers.{k}" for k in data if k != "profiles"]
        return updates, fields

    @staticmethod
    def _bgp(parsed: ParsedSwitch, desired: Device, bgpraw: str) -> tuple[dict[str, Any] | None, list[str]]:
        config = parsed["bgp"]
        if config is None:
            return None, ["bgp"]
        want = (
            desired.bgp if desired.bgp is not None else Bgp(asn=0, router_id="", max_paths=0, neighbors=[], networks=[])
        )
        frr = parse_router_bgp(bgpraw)
        if frr is None:
            raise FrrParseError("bgpraw: no 'router bgp' block while CONFIG_DB has BGP neighbours")
        if frr["asn"] != config["asn"]:
            raise FrrParseError(f"bgpraw: router bgp {frr['asn']} differs from DEVICE_METADATA bgp_asn {config['asn']}")
        data: dict[str, Any] = {
            "asn": config["asn"],
            "neighbors": dumped(ordered_like(config["neighbors"], [n.address for n in want.neighbors], _address)),
            "max_paths": frr["max_paths"],
            "networks": ordered_like(frr["networks"], want.networks),
        }
        fields = ["bgp.asn", "bgp.neighbors", "bgp.max_paths", "bgp.networks"]
        if frr["router_id"] is not None:
            data["router_id"] = frr["router_id"]
            fields.append("bgp.router_id")
        if desired.bgp is None:  # observed BGP intent does not have: every required field must be read
            data.setdefault("router_id", "")
        return data, fields
