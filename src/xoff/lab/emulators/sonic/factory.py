"""The CONFIG_DB a switch has before anything is pushed to it, as a real SONiC image ships it.

The tables every image writes at first boot come from sonic-buildimage ``files/build_templates/init_cfg.json.j2``
(DEVICE_METADATA defaults, CRM, FLEX_COUNTER_TABLE, BGP_DEVICE_GLOBAL, FEATURE, AUTO_TECHSUPPORT, SYSLOG_CONFIG,
SYSLOG_CONFIG_FEATURE, PASSW_HARDENING, KDUMP, NTP; NTP's ``src_intf`` is left out: init_cfg writes it as a
string where sonic-ntp.yang has a leaf-list) and the platform's port table (``port_config.ini`` /
``platform.json``: alias, lanes, index, speed); ``fec``, ``autoneg``, ``pfc_asym`` and ``tpid`` are set as
sonic-utilities' ``tests/mock_tables/config_db.json`` shows a running switch carrying them.

The lab brings switches up provisioned for the underlay (docs/lab.md): cabled ports up with the intent's MTU
and addresses, the loopback, and BGP running in FRR; CONFIG_DB says the same (PORT, INTERFACE,
LOOPBACK_INTERFACE, BGP_NEIGHBOR with the timers an image's minigraph writes) and holds nothing of the lossless
plan (no QoS maps, PFC, ECN, buffers or watchdog): that is what a push brings. Built here from the lab's
FabricState Device (the intent), never by xoff's renderer. Without a FabricState: a virtual switch's
DEVICE_METADATA and the init_cfg tables.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from typing import Any

from xoff.desired.models import Device, Interface
from xoff.lab.emulators.base import EmulatorContext

ConfigDb = dict[str, dict[str, dict[str, Any]]]

VS_HWSKU = "Force10-S6000"  # what SONiC's virtual switch reports
VS_PLATFORM = "x86_64-kvm_x86_64-r0"
# sonic-device_metadata.yang ``type`` of each intent role
_TYPES = {"leaf": "LeafRouter", "spine": "SpineRouter", "super-spine": "UpperSpineRouter"}
# the platform string an image reports for a HWSKU (device/<vendor>/<platform>/<hwsku>/ in sonic-buildimage)
_PLATFORMS = {
    "ACS-MSN2700": "x86_64-mlnx_msn2700-r0",
    "ACS-MSN4700": "x86_64-mlnx_msn4700-r0",
    "ACS-SN5600": "x86_64-nvidia_sn5600-r0",
    "Mellanox-SN5600-V256": "x86_64-nvidia_sn5600-r0",
}
# xoff's FRR runs a complete frr.conf, so bgpcfgd must not write one (sonic-device_metadata.yang)
_ROUTING_MODE = "split-unified"
_FEATURES = ("bgp", "database", "dhcp_relay", "lldp", "pmon", "snmp", "swss", "syncd", "teamd")
_ETHERNET = re.compile(r"^Ethernet(\d+)$")


def factory_config_db(ctx: EmulatorContext) -> ConfigDb:
    device = ctx.desired_device()
    out = _init_cfg()
    if device is not None and device.kind == "switch":
        out["DEVICE_METADATA"] = {"localhost": {**out["DEVICE_METADATA"]["localhost"], **_metadata(device)}}
        out.update(_ports(device))
        out.update(_neighbors(device))
    else:
        out["DEVICE_METADATA"]["localhost"].update(
            hostname=ctx.device, hwsku=VS_HWSKU, mac=_mac(ctx.device), platform=VS_PLATFORM, type="LeafRouter"
        )
    return {table: rows for table, rows in out.items() if rows}


def _init_cfg() -> ConfigDb:
    """The tables init_cfg.json.j2 writes on first boot (a community build's defaults)."""
    crm = {"polling_interval": "300"}
    for resource in ("ipv4_route", "ipv6_route", "ipv4_nexthop", "ipv6_nexthop", "ipv4_neighbor", "ipv6_neighbor"):
        crm |= {
            f"{resource}_threshold_type": "percentage",
            f"{resource}_low_threshold": "70",
            f"{resource}_high_threshold": "85",
        }
    flex = {"PORT", "RIF", "QUEUE", "PFCWD", "PG_WATERMARK", "PG_DROP", "QUEUE_WATERMARK", "BUFFER_POOL_WATERMARK"}
    return {
        "DEVICE_METADATA": {
            "localhost": {
                "buffer_model": "traditional",
                "default_bgp_status": "up",
                "default_pfcwd_status": "disable",
                "timezone": "UTC",
            }
        },
        "CRM": {"Config": crm},
        "FLEX_COUNTER_TABLE": {name: {"FLEX_COUNTER_STATUS": "enable"} for name in sorted(flex)},
        "BGP_DEVICE_GLOBAL": {
            # (init_cfg's originate_bandwidth is newer than the sonic-bgp-device-global.yang the lab validates with)
            "STATE": {"tsa_enabled": "false", "idf_isolation_state": "unisolated"}
        },
        "FEATURE": {name: _feature(name) for name in _FEATURES},
        "AUTO_TECHSUPPORT": {
            "GLOBAL": {
                "state": "disabled",
                "rate_limit_interval": "180",
                "max_techsupport_limit": "10.0",
                "max_core_limit": "5.0",
                "available_mem_threshold": "10.0",
                "min_available_mem": "200",
                "since": "2 days ago",
            }
        },
        "SYSLOG_CONFIG": {"GLOBAL": {"rate_limit_interval": "0", "rate_limit_burst": "0"}},
        "SYSLOG_CONFIG_FEATURE": {n: {"rate_limit_interval": "300", "rate_limit_burst": "20000"} for n in _FEATURES},
        "PASSW_HARDENING": {
            "POLICIES": {
                "state": "disabled",
                "expiration": "180",
                "expiration_warning": "15",
                "history_cnt": "10",
                "len_min": "8",
                "reject_user_passw_match": "true",
                "lower_class": "true",
                "upper_class": "true",
                "digits_class": "true",
                "special_class": "true",
            }
        },
        "KDUMP": {
            "config": {"enabled": "false", "memory": "0M-2G:256M,2G-4G:320M,4G-8G:384M,8G-:448M", "num_dumps": "3"}
        },
        "NTP": {
            "global": {
                "authentication": "disabled",
                "dhcp": "enabled",
                "server_role": "disabled",
                "admin_state": "enabled",
                "vrf": "default",
            }
        },
    }


def _feature(name: str) -> dict[str, str]:
    row = {
        "state": "always_enabled" if name == "database" else "disabled" if name == "dhcp_relay" else "enabled",
        "delayed": "True" if name in ("lldp", "snmp") else "False",
        "has_global_scope": "False" if name == "bgp" else "True",
        "has_per_asic_scope": "True" if name in ("bgp", "database", "swss", "syncd", "teamd") else "False",
        "auto_restart": "enabled",
        "support_syslog_rate_limit": "true",
        "high_mem_alert": "disabled",
    }
    if name in ("bgp", "swss", "pmon"):
        row["check_up_status"] = "false"
    return row


def _mac(hostname: str) -> str:
    """A stable, locally administered unicast base MAC (an image reads it from the platform EEPROM)."""
    digest = bytearray(hashlib.sha256(hostname.encode()).digest()[:6])
    digest[0] = (digest[0] | 0x02) & 0xFE
    return ":".join(f"{b:02x}" for b in digest)


def _metadata(device: Device) -> dict[str, str]:
    meta = {"hostname": device.name, "mac": _mac(device.name), "type": _TYPES.get(device.role, "LeafRouter")}
    if device.hwsku is not None:
        meta["hwsku"] = device.hwsku
        if device.hwsku in _PLATFORMS:
            meta["platform"] = _PLATFORMS[device.hwsku]
    if device.bgp is not None:
        meta["bgp_asn"] = str(device.bgp.asn)
        meta["docker_routing_config_mode"] = _ROUTING_MODE
    return meta


def _lanes(names: list[str]) -> dict[str, list[int]]:
    """SerDes lanes as a port_config.ini numbers them: ``EthernetN`` starts at lane N, as many lanes as the
    gap to the next port (at most 8); other names 8 lanes each, in order."""
    numbers = {n: int(m[1]) for n in names if (m := _ETHERNET.match(n))}
    if len(numbers) != len(names):
        return {n: list(range(8 * i, 8 * i + 8)) for i, n in enumerate(names)}
    firsts = sorted(numbers.values())
    width = min([b - a for a, b in itertools.pairwise(firsts)] + [8])
    return {n: list(range(numbers[n], numbers[n] + width)) for n in names}


def _ports(device: Device) -> ConfigDb:
    ethernet = [i for i in device.interfaces.values() if i.kind == "ethernet" and i.speed_mbps is not None]
    lanes = _lanes([i.name for i in ethernet])
    order = {n: k for k, n in enumerate(sorted(lanes, key=lambda p: lanes[p][0]), start=1)}
    port: dict[str, dict[str, Any]] = {}
    for iface in ethernet:
        row = {
            "admin_status": "up" if iface.admin_up else "down",
            "alias": f"etp{order[iface.name]}",
            "autoneg": "off",
            "description": f"{iface.peer.device}:{iface.peer.port}"
            if iface.peer is not None
            else f"etp{order[iface.name]}",
            "fec": "rs",
            "index": str(order[iface.name]),
            "lanes": ",".join(map(str, lanes[iface.name])),
            "mtu": str(iface.mtu or 9100),
            "pfc_asym": "off",
            "speed": str(iface.speed_mbps),
            "tpid": "0x8100",
        }
        port[iface.name] = row
    loopbacks = [i for i in device.interfaces.values() if i.kind == "loopback"]
    return {"PORT": port, "INTERFACE": _addressed(ethernet), "LOOPBACK_INTERFACE": _addressed(loopbacks)}


def _addressed(interfaces: list[Interface]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for iface in interfaces:
        if iface.addresses:
            out[iface.name] = {}
            out.update({f"{iface.name}|{address}": {} for address in iface.addresses})
    return out


def _neighbors(device: Device) -> ConfigDb:
    if device.bgp is None:
        return {}
    rows: dict[str, dict[str, Any]] = {}
    for nbr in device.bgp.neighbors:
        iface = device.interfaces.get(nbr.interface)
        mine = next((a.split("/")[0] for a in iface.addresses), None) if iface is not None else None
        if mine is None:
            continue
        rows[nbr.address] = {
            "admin_status": "up",
            "asn": str(nbr.remote_asn),
            "holdtime": "180",
            "keepalive": "60",
            "local_addr": mine,
            "name": nbr.peer,
            "nhopself": "0",
            "rrclient": "0",
        }
    return {"BGP_NEIGHBOR": rows}
