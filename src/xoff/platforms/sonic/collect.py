"""Collect a SONiC switch: CONFIG_DB (``show runningconfiguration all``), FRR (BGP sessions, and its
running config inside the same dump as ``bgpraw``), lldpd, PFC and queue counters, PFC watchdog storms, buffer
watermarks (``counters``).

CONFIG_DB is read faithfully (``parse.read_config_db``): every table, key and field xoff does not model
(a running switch has dozens: FEATURE, MGMT_INTERFACE, PORT.fec, ...) is counted in
``DeviceObservation.unmodelled``; a malformed value of a modelled field is one located parse error and
its Device paths are left out of ``fields``; ports whose watchdog, DSCP map, schedulers or ECN differ
from the switch's most common value are ``port_settings``. A multi-ASIC switch prints one CONFIG_DB per
namespace (``{"localhost": ..., "asic0": ..., ...}``, sonic-utilities ``show runningconfiguration all``):
they are read as one switch. Counters and watermarks are text only: ``counters`` reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from xoff.collect.observe import (
    SWITCH_INTERFACE_FIELDS,
    dumped,
    interface_paths,
    observed_device,
    observed_interfaces,
    observed_static_routes,
    ordered_like,
)
from xoff.contracts.collect import Command, DeviceObservation, parse_error, read
from xoff.contracts.fib import as_routes
from xoff.desired.models import Bgp, Device, PfcWatchdog, Vrf
from xoff.platforms.frr.fib import parse_route_json
from xoff.platforms.frr.observe import FrrParseError, parse_bgp_summary
from xoff.platforms.lldpd.parse import LldpParseError, parse_neighbors
from xoff.platforms.sonic.counters import COMMANDS as COUNTER_COMMANDS
from xoff.platforms.sonic.counters import read_counters
from xoff.platforms.sonic.parse import ConfigDbParseError, ParsedSwitch
from xoff.platforms.sonic.running import RunningConfig, read_running_config

RUNNING = Command("show runningconfiguration all")
BGP = Command("vtysh -c 'show bgp summary json'")
FIB = Command("vtysh -c 'show ip route json'")  # FRR's installed routes: what fpmsyncd programs
LLDP = Command("lldpctl -f json")

LAB_ONLY = "PFC/ECN counters and buffer use: the lab's SONiC has no data plane (counters are what the emulator holds)"


def _name(value: Any) -> Any:
    return value["name"]


def _address(value: Any) -> Any:
    return value.address


def _watchdog(parsed: ParsedSwitch, desired: Device, unobserved: set[str]) -> dict[str, Any] | None:
    watchdog = parsed["pfc_watchdog"]
    if watchdog is None:
        return None
    data: dict[str, Any] = watchdog.model_dump()
    reference = desired.pfc_watchdog.ports if desired.pfc_watchdog is not None else list(desired.interfaces)
    data["ports"] = ordered_like(data["ports"], reference)
    if desired.pfc_watchdog is not None:  # a value not observed: desired's, so the model validates (never judged)
        for key in PfcWatchdog.model_fields:
            if f"pfc_watchdog.{key}" in unobserved:
                data[key] = getattr(desired.pfc_watchdog, key)
    return data


def _read_values(parsed: ParsedSwitch, unobserved: set[str]) -> dict[str, dict[str, Any]]:
    """Interface -> the values read (a value a located error left unread is not there: desired's stands in,
    and the path is not in ``fields``, so it is never judged)."""
    return {
        name: {k: v for k, v in values.items() if f"interfaces.{name}.{k}" not in unobserved}
        for name, values in parsed["interfaces"].items()
    }


def _observed_vrfs(
    parsed: ParsedSwitch, desired: Device, unobserved: set[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The VRF table's VRFs with their L3 VNI, the rest of each (tenant, networks: FRR's, not CONFIG_DB's) the
    intent's where it names the VRF; the field paths read (a malformed VNI: that VRF's is not judged)."""
    want = {v.name: v for v in desired.vrfs}
    out: list[dict[str, Any]] = []
    for name in parsed["vrfs"]:
        base = want.get(name) or Vrf(name=name, tenant="")
        vni = parsed["vrf_vnis"].get(name, base.vni)
        out.append(base.model_copy(update={"vni": vni}).model_dump(mode="json"))
    out = ordered_like(out, list(want), _name)
    bad = {p.split(".")[1] for p in unobserved if p.startswith("vrfs.")}
    vnis = [f"vrfs.{n}.vni" for n in parsed["vrfs"] if n not in bad] if bad else ["vrfs.*.vni"]
    return out, ["vrfs", *vnis]


def _narrow(fields: list[str], unobserved: set[str], interfaces: list[str]) -> list[str]:
    """``fields`` without the paths a located parse error left unread (``interfaces.*.mtu`` becomes the
    other interfaces' paths where one port's mtu was malformed; ``pfc_watchdog`` its read parts)."""
    out: list[str] = []
    for path in fields:
        if any(path == u or path.startswith(u + ".") for u in unobserved):
            continue
        if path.startswith("interfaces.*."):
            leaf = path.removeprefix("interfaces.*.")
            bad = {n for n in interfaces if f"interfaces.{n}.{leaf}" in unobserved}
            out += [f"interfaces.{n}.{leaf}" for n in interfaces if n not in bad] if bad else [path]
        elif path == "pfc_watchdog" and any(u.startswith("pfc_watchdog.") for u in unobserved):
            out += [f"{path}.{k}" for k in PfcWatchdog.model_fields if f"{path}.{k}" not in unobserved]
        else:
            out.append(path)
    return out


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
        device = read(outputs, RUNNING, lambda text: self._device(text, desired, obs), name, errors)
        if device is not None:
            obs.device, obs.fields = device
        obs.bgp_sessions = read(outputs, BGP, parse_bgp_summary, name, errors, catch=(FrrParseError,))
        # SONiC's port names are Linux's
        obs.fib = read(outputs, FIB, lambda text: as_routes(parse_route_json(text)), name, errors)
        obs.lldp = read(outputs, LLDP, parse_neighbors, name, errors, catch=(LldpParseError,))
        obs.counters, obs.buffer_pool_watermarks = read_counters(outputs, name, errors, obs.unmodelled)
        return obs

    # --- CONFIG_DB + FRR -> Device ---------------------------------------------------------------

    def _device(self, text: str, desired: Device, obs: DeviceObservation) -> tuple[Device, list[str]]:
        running = read_running_config(text)
        reading = running.reading
        updates, fields = self._updates(running, desired)
        for message in running.errors:
            obs.errors.append(parse_error(desired.name, RUNNING.text, message))
        obs.unmodelled = reading.unmodelled
        obs.port_settings = reading.port_settings
        routes: list[tuple[str, str, str | None]] = []
        try:
            routes = _static_routes(running.config_db.get("STATIC_ROUTE", {}))
            fields.append("static_routes")
        except ConfigDbParseError as exc:
            obs.errors.append(parse_error(desired.name, RUNNING.text, str(exc)))
        updates["static_routes"] = observed_static_routes(desired, routes)
        return observed_device(desired, updates), _narrow(
            fields, reading.unobserved, list(reading.switch["interfaces"])
        )

    def _updates(self, running: RunningConfig, desired: Device) -> tuple[dict[str, Any], list[str]]:
        reading = running.reading
        parsed = reading.switch
        fields = ["hwsku", "interfaces", *interface_paths(SWITCH_INTERFACE_FIELDS), "pfc_watchdog"]
        updates: dict[str, Any] = {
            "hwsku": parsed["hwsku"],
            "interfaces": observed_interfaces(desired, _read_values(parsed, reading.unobserved)),
            "pfc_watchdog": _watchdog(parsed, desired, reading.unobserved),
        }
        for key in ("name", "role"):  # None: not observed (the reading says why); desired's stands in, unjudged
            if parsed[key] is not None:
                updates[key] = parsed[key]
                fields.append(key)
        updates["vrfs"], vrf_fields = _observed_vrfs(parsed, desired, reading.unobserved)
        fields += vrf_fields
        updates["bgp"], bgp_fields = self._bgp(parsed, desired, running)
        fields += bgp_fields
        qos = parsed["qos"]
        if qos is None:
            updates["qos"] = None
            fields.append("qos")
        else:
            updates["qos"] = dumped(dict(qos))
            fields += [f"qos.{k}" for k in qos]
        updates["buffers"], buffer_fields = self._buffers(parsed, desired)
        return updates, fields + buffer_fields

    @staticmethod
    def _buffers(parsed: ParsedSwitch, desired: Device) -> tuple[dict[str, Any] | None, list[str]]:
        buffers = parsed["buffers"]
        if buffers is None:
            return None, ["buffers"]
        fields: list[str] = []
        data = dumped(dict(buffers))
        if "pools" in data and desired.buffers is not None:
            data["pools"] = ordered_like(data["pools"], [p.name for p in desired.buffers.pools], _name)
        if "profiles" in data:  # the lookup row a profile came from is intent's, not the switch's
            want = desired.buffers.profiles if desired.buffers is not None else {}
            for profile_name, profile in data["profiles"].items():
                profile["source"] = want[profile_name].source if profile_name in want else "observed"
            fields += [f"buffers.profiles.*.{k}" for k in ("name", "pool", "xon", "xoff", "size")]
            fields += ["buffers.profiles.*.xon_offset", "buffers.profiles.*.dynamic_th", "buffers.profiles"]
        return data, fields + [f"buffers.{k}" for k in data if k != "profiles"]

    @staticmethod
    def _bgp(parsed: ParsedSwitch, desired: Device, running: RunningConfig) -> tuple[dict[str, Any] | None, list[str]]:
        config = parsed["bgp"]
        if config is None:
            return None, ["bgp"]
        want = (
            desired.bgp if desired.bgp is not None else Bgp(asn=0, router_id="", max_paths=0, neighbors=[], networks=[])
        )
        frr = running.frr
        if running.bgpraw and frr is None:
            running.errors.append("bgpraw: no 'router bgp' block while CONFIG_DB has BGP neighbours")
        elif frr is not None and frr["asn"] != config["asn"]:
            running.errors.append(
                f"bgpraw: router bgp {frr['asn']} differs from DEVICE_METADATA bgp_asn {config['asn']}"
            )
            frr = None
        if frr is None:  # CONFIG_DB's BGP is still read; FRR's part is not observed
            partial: dict[str, Any] = {
                "asn": config["asn"],
                "neighbors": dumped(ordered_like(config["neighbors"], [n.address for n in want.neighbors], _address)),
            }
            if desired.bgp is None:
                partial.update(router_id="", max_paths=0, networks=[])  # required by the model, never judged
            return partial, ["bgp.asn", "bgp.neighbors"]
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
