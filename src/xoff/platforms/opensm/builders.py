"""Structured config for OpenSM: plain dicts and lists the templates only print.

One builder per rendered file, all from ``Device.subnet_manager`` (reference/lossless.md §5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xoff.desired.ib_guids import IB_NETWORK
from xoff.desired.models import Device, FabricState, SubnetManager

HcaGuids = dict[tuple[str, str], str]  # (host, netdev) -> port GUID, from guids.hca_port_guids

DEFAULT_CONFIG_DIR = "/etc/opensm"  # Debian's OPENSM_CONFIG_DIR (§5.1, §5.4)
OPENSM_CONF = "opensm.conf"
PARTITIONS_CONF = "partitions.conf"
QOS_POLICY_CONF = "qos-policy.conf"
ROOT_GUIDS = "root_guids.txt"
CN_GUIDS = "cn_guids.txt"

# Engines that read the root GUID file (-a) and the compute-node GUID file (-u), per opensm(8).
USES_ROOT_GUIDS = frozenset({"updn", "dnup", "ftree"})
USES_CN_GUIDS = frozenset({"ftree", "dfsssp", "sssp"})

DEFAULT_PKEY = 0x7FFF
# The default partition: every port a limited member, the SM's own port full. This is what OpenSM
# itself does when partitions.conf exists without a Default rule (§5.4), so ports reach the SM/SA
# but talk to each other only in partitions that make them full members; `ipoib` keeps the IPoIB
# broadcast group, which OpenSM creates for the default partition only without a config file.
DEFAULT_PARTITION_MEMBERS = ("ALL=limited", "SELF=full")


@dataclass(frozen=True)
class Paths:
    """Where the files live on the SM host; opensm.conf names the other four by these paths."""

    config_dir: str = DEFAULT_CONFIG_DIR

    def of(self, name: str) -> str:
        return f"{self.config_dir.rstrip('/')}/{name}"


def subnet_manager(device: Device) -> SubnetManager:
    if device.subnet_manager is None:
        raise ValueError(f"{device.name}: no subnet_manager state, so no OpenSM configuration to render")
    return device.subnet_manager


def _vlarb(entries: list[tuple[int, int]]) -> str:
    # An empty table is all-zero weights: OpenSM fills entries missing from the string with 0:0,
    # whereas leaving the key out would give its built-in default (VL0 weight 4 in the high table).
    return ",".join(f"{vl}:{weight}" for vl, weight in entries) or "0:0"


def opensm_conf(sm: SubnetManager, paths: Paths) -> list[dict[str, Any]]:
    """Sections of opensm.conf: (title, reference, [key, value] pairs)."""
    engines = list(sm.routing_engine) + (["no_fallback"] if sm.no_fallback else [])
    routing: list[list[str]] = [["routing_engine", ",".join(engines)]]
    if sm.root_guids and USES_ROOT_GUIDS.intersection(sm.routing_engine):
        routing.append(["root_guid_file", paths.of(ROOT_GUIDS)])
    if sm.compute_node_guids and USES_CN_GUIDS.intersection(sm.routing_engine):
        routing.append(["cn_guid_file", paths.of(CN_GUIDS)])
    routing.append(["lmc", str(sm.lmc)])
    return [
        {
            "title": "Routing: engines tried in order; no_fallback forbids the minhop fallback",
            "cite": "§5.2",
            "options": routing,
        },
        {
            "title": "Subnet manager: priority among SMs (15 = master) and sweep interval in seconds",
            "cite": "§5, opensm(8)",
            "options": [["sm_priority", str(sm.sm_priority)], ["sweep_interval", str(sm.sweep_interval_s)]],
        },
        {
            "title": "Partitions",
            "cite": "§5.4",
            "options": [["partition_config_file", paths.of(PARTITIONS_CONF)]],
        },
        {
            "title": "QoS: SL to VL map and VL arbitration on every port",
            "cite": "§5.1",
            "options": [
                ["qos", "TRUE"],
                ["qos_policy_file", paths.of(QOS_POLICY_CONF)],
                ["qos_max_vls", str(sm.max_vls)],
                ["qos_high_limit", str(sm.high_limit)],
                ["qos_vlarb_high", _vlarb(sm.vlarb_high)],
                ["qos_vlarb_low", _vlarb(sm.vlarb_low)],
                ["qos_sl2vl", ",".join(str(vl) for vl in sm.sl2vl)],
            ],
        },
    ]


def partitions(sm: SubnetManager, hcas: HcaGuids) -> list[dict[str, Any]]:
    """One entry per partition, Default first; members are the port GUIDs of the member hosts' HCAs.

    Each member host gets a definition line of its own (OpenSM merges definitions of one PKey, §5.4):
    lines stay far below OpenSM's 4096-byte line buffer at any fabric size, and each names its host.
    The partition's flags (ipoib) go on its first line, the membership on every line.
    """
    by_host: dict[str, list[str]] = {}
    for (host, _netdev), guid in hcas.items():
        by_host.setdefault(host, []).append(guid)
    out: list[dict[str, Any]] = [
        {
            "name": "Default",
            "pkey": f"0x{DEFAULT_PKEY:04x}",
            "comment": "every port limited, the SM full: ports meet only in the partitions below",
            "lines": [{"flags": ["ipoib"], "members": list(DEFAULT_PARTITION_MEMBERS), "host": None}],
        }
    ]
    by_nic = {(host, netdev): guid for (host, netdev), guid in hcas.items()}
    for p in sm.partitions:
        lines: list[dict[str, Any]] = []
        for host in p.members:
            if host not in by_host:
                raise ValueError(f"partition {p.name}: member {host} has no HCA on the {IB_NETWORK} network")
            flags = (["ipoib"] if p.ipoib and not lines else []) + [f"defmember={p.membership}"]
            guids = [by_nic[(host, n)] for n in p.nics[host]] if host in p.nics else by_host[host]
            lines.append({"flags": flags, "members": guids, "host": host})
        ports = sum(len(line["members"]) for line in lines)
        out.append(
            {
                "name": p.name,
                "pkey": f"0x{p.pkey:04x}",
                "comment": f"{len(lines)} hosts, {ports} HCA ports, {p.membership} members",
                "lines": lines,
            }
        )
    return out


def qos_policy(sm: SubnetManager) -> dict[str, Any]:
    """The simplified qos-ulps policy: everything on the intent's service level (NCCL_IB_SL), a tenant's
    partition on its own SL where it names one."""
    # a tenant partition's SL: "any, pkey" matches every QoS request of that partition (lossless.md §5.1)
    tenants = [[f"any, pkey 0x{p.pkey:04x}", p.service_level] for p in sm.partitions if p.service_level is not None]
    return {"ulps": [["default", sm.service_level], *tenants]}


def guid_file(what: str, guids: list[str], names: dict[str, str]) -> list[list[str]]:
    """``[guid, name]`` rows; OpenSM reads one GUID a line and ignores ``#`` comments."""
    unknown = [g for g in guids if g not in names]
    if unknown:
        raise ValueError(f"{what}: no device has GUID {', '.join(unknown)}")
    return [[g, names[g]] for g in guids]


def switch_names(fabric: FabricState) -> dict[str, str]:
    return {d.guid: d.name for d in fabric.devices.values() if d.kind == "ib_switch" and d.guid}


def hca_names(hcas: HcaGuids) -> dict[str, str]:
    return {guid: f"{host} {netdev}" for (host, netdev), guid in hcas.items()}


def check_compute_nodes(device: Device, sm: SubnetManager, hcas: HcaGuids) -> None:
    """The desired state's CN list must be the HCAs of every host but the SM's: the same numbering."""
    derived = [g for (host, _), g in hcas.items() if host != device.name]
    if derived != sm.compute_node_guids:
        raise ValueError(
            f"{device.name}: subnet_manager.compute_node_guids does not match the host HCA numbering "
            f"({len(sm.compute_node_guids)} vs {len(derived)} GUIDs)"
        )
