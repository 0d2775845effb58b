"""Structured config for a Linux GPU host with ConnectX NICs: plain dicts and lists the templates print.

One builder per section of ``xoff-host-apply.sh`` (reference/lossless.md §4.1-4.5); together they are
``xoff-host-state.json``, the desired values the script applies, so collect and verify can compare.
Everything is read from ``Device.host`` and ``Device.interfaces``; nothing here talks to a host.

Every name printed into the script is checked against a strict pattern here, so the templates can
print values unquoted and a hostile intent cannot inject shell.
"""

from __future__ import annotations

import re
from typing import Any

from xoff.desired.models import Device, FabricState, HostNic, HostSettings
from xoff.platforms.linux import NETDEV_NAME, RDMA_NAME
from xoff.platforms.linux.roce_accl import register_values

STATE_SCHEMA = "xoff-host-state/1"
NCCL_ENV_PATH = "/etc/xoff/nccl.env"
# A ConnectX port in Ethernet mode is its own RDMA device (mlx5_N), so every rail is port 1 of its
# device; NCCL_IB_HCA names the same "<dev>:1" (reference §4.4).
RDMA_PORT = 1
# cma_roce_mode -m takes 1 (IB/RoCE v1) or 2 (RoCE v2) (reference §4.1, Mellanox/mlnx-tools cma_roce_mode).
ROCE_MODE_FLAG = {"IB/RoCE v1": 1, "RoCE v2": 2}
ROCE_TOOLS = ("ip", "mlnx_qos", "cma_roce_mode", "cma_roce_tos")

_NETDEV = re.compile(NETDEV_NAME)  # the plan refuses other names (the record's render_limits); fullmatch below
_RDMA = re.compile(RDMA_NAME)
_IPV4_CIDR = re.compile(r"^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")
_PREFIX = re.compile(r"^(default|\d{1,3}(\.\d{1,3}){3}/\d{1,2})$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ENV_KEY = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_ENV_VALUE = re.compile(r"^[A-Za-z0-9_.,:=^/+@%-]*$")  # no quoting needed by sh, systemd or docker --env-file


def _checked(pattern: re.Pattern[str], value: str, what: str, device: str) -> str:
    if not pattern.fullmatch(value):
        raise ValueError(f"{device}: {what} {value!r} is not safe to print into a shell script")
    return value


def host_settings(device: Device) -> HostSettings:
    if device.host is None:
        raise ValueError(f"{device.name}: no host settings, so no host files to render")
    return device.host


def roce_nics(host: HostSettings) -> list[HostNic]:
    """NICs on a RoCE network: the ones with Ethernet QoS to apply. InfiniBand HCAs have roce_mode None."""
    return [n for n in host.nics.values() if n.roce_mode is not None]


def preflight(device: Device) -> dict[str, list[str]]:
    """Tools and devices the apply steps need; the script stops before changing anything if one is missing."""
    nics = roce_nics(host_settings(device))
    accl = ["mlxreg"] if any(n.roce_accl is not None and n.rdma for n in nics) else []
    return {
        "tools": [*ROCE_TOOLS, *accl] if nics else [],
        "netdevs": [_checked(_NETDEV, n.netdev, "netdev", device.name) for n in nics],
        "rdma": [_checked(_RDMA, n.rdma, "RDMA device", device.name) for n in nics if n.rdma],
    }


def links(device: Device) -> list[dict[str, Any]]:
    """Netdev MTU, admin state and IPv4 addresses of each RoCE NIC (§4.3). An empty address list = unmanaged."""
    out = []
    for nic in roce_nics(host_settings(device)):
        iface = device.interfaces.get(nic.netdev)
        addresses = list(iface.addresses) if iface is not None else ([nic.address] if nic.address else [])
        out.append(
            {
                "netdev": _checked(_NETDEV, nic.netdev, "netdev", device.name),
                "mtu": nic.mtu,
                "admin": "up" if iface is None or iface.admin_up else "down",
                "addresses": [_checked(_IPV4_CIDR, a, "address", device.name) for a in addresses],
            }
        )
    return out


def routing(device: Device) -> dict[str, Any]:
    """Per-rail policy routing: one table per RDMA NIC and a rule from the NIC's address into it."""
    host = host_settings(device)
    tables: dict[int, list[dict[str, str]]] = {}
    for r in host.routes:
        tables.setdefault(r.table, []).append(
            {
                "destination": _checked(_PREFIX, r.destination, "route destination", device.name),
                "via": _checked(_IPV4, r.via, "gateway", device.name),
                "device": _checked(_NETDEV, r.device, "netdev", device.name),
            }
        )
    rules = [
        {
            "priority": rule.priority,
            "source": _checked(_IPV4_CIDR, rule.source, "rule source", device.name),
            "table": rule.table,
        }
        for rule in host.rules
    ]
    return {
        "tables": [{"table": t, "routes": routes} for t, routes in tables.items()],
        "rules": rules,
    }


def qos(device: Device) -> list[dict[str, Any]]:
    """mlnx_qos per RoCE NIC: trust, the 8-flag PFC vector and DSCP -> priority (§4.1), and the cable length
    the NIC sizes its lossless buffers' headroom for (the host link's length in the intent; None: not given).

    The DSCP map only applies with trust dscp (mlnx_qos shows and uses it only then), so it is empty
    for a pcp-trusting NIC.
    """
    out = []
    for nic in roce_nics(host_settings(device)):
        if len(nic.pfc) != 8 or any(f not in (0, 1) for f in nic.pfc):
            raise ValueError(f"{device.name}: {nic.netdev} PFC vector {nic.pfc} is not 8 flags of 0/1")
        dscp = sorted(nic.dscp_to_priority.items()) if nic.trust == "dscp" else []
        out.append(
            {
                "netdev": nic.netdev,
                "trust": nic.trust,
                "pfc": list(nic.pfc),
                "dscp_to_priority": [{"dscp": d, "priority": p} for d, p in dscp],
                "cable_m": link.cable_m if (link := device.interfaces.get(nic.netdev)) is not None else None,
            }
        )
    return out


def roce(device: Device) -> list[dict[str, Any]]:
    """RDMA-CM default RoCE mode and ToS, and the MLNX_OFED global traffic class, per RDMA device (§4.1)."""
    out = []
    for nic in roce_nics(host_settings(device)):
        if not nic.rdma or nic.roce_mode is None:
            continue
        out.append(
            {
                "rdma": nic.rdma,
                "port": RDMA_PORT,
                "netdev": nic.netdev,
                "mode": nic.roce_mode,
                "mode_flag": ROCE_MODE_FLAG[nic.roce_mode],
                "tos": nic.roce_tos,
                "traffic_class": nic.roce_tos,
            }
        )
    return out


def ecn(device: Device) -> list[dict[str, Any]]:
    """DCQCN notification/reaction point per priority, and the CNP's DSCP and 802.1p priority (§4.2)."""
    out = []
    for nic in roce_nics(host_settings(device)):
        entry: dict[str, Any] = {
            "netdev": nic.netdev,
            "np_priorities": list(nic.ecn_np_priorities),
            "rp_priorities": list(nic.ecn_rp_priorities),
            "cnp_dscp": nic.cnp_dscp,
            "cnp_priority": nic.cnp_priority,
        }
        if not nic.ecn_np_priorities and not nic.ecn_rp_priorities:
            # DCQCN on no priority (profile pfc-only): ConnectX enables it on every priority by default
            # (ROCE_CC_PRIO_MASK 255), so the script turns both points off on all eight
            entry["off_priorities"] = list(range(8))
        out.append(entry)
    return out


def roce_accl(device: Device) -> list[dict[str, Any]]:
    """The ROCE_ACCL register fields the plan sets per RDMA device (adaptive routing, lossy RoCE): mlxreg."""
    return [
        {"rdma": nic.rdma, "netdev": nic.netdev, "fields": register_values(nic.roce_accl)}
        for nic in roce_nics(host_settings(device))
        if nic.rdma and nic.roce_accl is not None
    ]


def rdma_ports(device: Device) -> list[dict[str, Any]]:
    """Every RDMA port's link layer, verified only (changing it is mlxconfig LINK_TYPE plus a reboot)."""
    host = host_settings(device)
    return [
        {
            "rdma": _checked(_RDMA, nic.rdma, "RDMA device", device.name),
            "port": RDMA_PORT,
            "netdev": nic.netdev,
            "link_layer": "Ethernet" if nic.roce_mode is not None else "InfiniBand",
        }
        for nic in host.nics.values()
        if nic.rdma
    ]


def nccl(device: Device) -> dict[str, Any]:
    """The NCCL environment file (§4.4): sorted KEY=VALUE pairs, installed at ``NCCL_ENV_PATH``."""
    env = host_settings(device).nccl_env
    for key, value in env.items():
        _checked(_ENV_KEY, key, "NCCL variable name", device.name)
        _checked(_ENV_VALUE, value, f"value of {key}", device.name)
    return {"path": NCCL_ENV_PATH, "env": dict(sorted(env.items()))}


def gpudirect(device: Device) -> dict[str, Any] | None:
    """GPUDirect RDMA prerequisites to verify, never change (§4.5); None on hosts without GPUs."""
    gd = host_settings(device).gpudirect
    if gd is None:
        return None
    return {"nvidia_peermem": gd.nvidia_peermem, "acs_disabled": gd.acs_disabled, "iommu": gd.iommu}


def host_config(device: Device, fabric: FabricState) -> dict[str, Any]:
    """The whole structured config, in a fixed key order; it is also xoff-host-state.json."""
    host = host_settings(device)
    return {
        "schema": STATE_SCHEMA,
        "device": _checked(_NAME, device.name, "device name", device.name),
        "fabric": _checked(_NAME, fabric.fabric, "fabric name", device.name),
        "profile": _checked(_NAME, host.profile, "host profile", device.name),
        "preflight": preflight(device),
        "links": links(device),
        "routing": routing(device),
        "qos": qos(device),
        "roce": roce(device),
        "ecn": ecn(device),
        # only where the plan sets the register: the state file of every other host stays as it was
        **({"roce_accl": accl} if (accl := roce_accl(device)) else {}),
        "nccl": nccl(device),
        "rdma": rdma_ports(device),
        "gpudirect": gpudirect(device),
    }
