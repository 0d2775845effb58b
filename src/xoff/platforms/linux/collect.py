"""Collect a Linux GPU host: netdevs (``ip -j``), the NIC's QoS (``mlnx_qos``), RDMA-CM's RoCE mode
and ToS, the NIC's DCQCN sysfs (ECN notification/reaction points, CNP marking), the rail NICs' next
hops and the per-rail policy routing xoff renders (``ip -j route``, ``ip -j rule``), kernel modules, the IOMMU mode, the GPU/NIC PCIe topology, ACS on PCIe bridges,
and the NCCL environment file xoff installs. Text-only tools go through this package's TextFSM templates (``textfsm/``).

Files xoff installs are read under ``${XOFF_HOST_ROOT:-}`` (unset on a real host; the lab's hosts keep
their driver sysfs and /etc/xoff under a state root, see docs/lab.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import ValidationError

from xoff.collect.observe import interface_paths, observed_device, observed_interfaces
from xoff.collect.textfsm import parse_text
from xoff.contracts.collect import Command, DeviceObservation, parse_error, read
from xoff.contracts.observed import HostObserved, NicQos
from xoff.desired.builders.host import roce_active_mtu
from xoff.desired.models import Device, HostNic, HostSettings, Route, Rule
from xoff.platforms.infiniband import host as ib_host
from xoff.platforms.linux.builders import NCCL_ENV_PATH
from xoff.platforms.linux.gids import SHOW_GIDS, parse_show_gids
from xoff.platforms.linux.kernel import (
    IOMMU,
    ROUTES,
    RULES,
    ecn,
    gateway_of,
    parse_ecn,
    parse_gateways,
    parse_iommu,
    parse_routes,
    parse_rules,
)
from xoff.platforms.linux.nic_qos import parse_mlnx_qos
from xoff.platforms.linux.roce_accl import get_command, intended_only, parse_roce_accl
from xoff.platforms.linux.topo import parse_topo

TEXTFSM = Path(__file__).parent / "textfsm"
LINKS = Command("ip -j link show")
ADDRS = Command("ip -j -4 addr show")
LSMOD = Command("lsmod")
TOPO = Command("nvidia-smi topo -m")
LSPCI = Command("lspci -vvv")
NO_NCCL_ENV = "# xoff: no NCCL environment file"
# a host without the file (a factory host, or one where it was removed) is a state the checks judge,
# not a command that failed: the absence is said in the output, and parses as an empty environment
NCCL = Command(
    f'f="${{XOFF_HOST_ROOT:-}}{NCCL_ENV_PATH}"; if [ -e "$f" ]; then cat "$f"; else echo "{NO_NCCL_ENV}"; fi'
)
ACS_BITS = ("src_valid", "req_redir", "cmplt_redir", "upstream_fwd", "egress_ctrl", "direct_trans")
ROCE_MODES = {"RoCE v2": "RoCE v2"}
_ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
T = TypeVar("T")
LAB_ONLY = "NIC QoS, RoCE and GPU topology: the lab's hosts run NIC tool shims, not ConnectX NICs or GPUs"
LAB_ONLY_IPOIB = "IPoIB: the lab's InfiniBand host netdevs (ib0, ...) are ifb stand-ins; ibsim carries no IPoIB traffic"
LAB_ONLY_DCQCN = (
    "DCQCN: the lab's ConnectX ecn sysfs trees are files under each host's state root (read and written as on a "
    "real host); no NIC there sends or reacts to CNPs"
)
LAB_ONLY_IOMMU = (
    "IOMMU: the lab's /proc/cmdline and /sys/class/iommu are files the lab seeds under each host's state root, "
    "not the running kernel's; no IOMMU maps DMA there"
)


def mlnx_qos(netdev: str) -> Command:
    return Command(f"mlnx_qos -i {netdev}")


def roce_mode(rdma: str) -> Command:
    return Command(f"cma_roce_mode -d {rdma} -p 1")


def roce_tos(rdma: str) -> Command:
    return Command(f"cma_roce_tos -d {rdma} -p 1")


def _roce_nics(desired: Device) -> list[HostNic]:
    return [n for n in desired.host.nics.values() if n.trust is not None] if desired.host is not None else []


class Collector:
    platform: ClassVar[str] = "linux"

    def commands(self, desired: Device) -> list[Command]:
        out = [LINKS, ADDRS, ROUTES, RULES, LSMOD, LSPCI, NCCL]
        if desired.host is not None and desired.host.gpus:
            out.append(TOPO)
        if desired.host is not None and desired.host.gpudirect is not None:
            out.append(IOMMU)
        for nic in _roce_nics(desired):
            out += [mlnx_qos(nic.netdev), ecn(nic.netdev)]
            if nic.rdma is not None:
                out += [roce_mode(nic.rdma), roce_tos(nic.rdma)]
            if nic.rdma is not None and nic.roce_accl is not None:
                out.append(get_command(nic.rdma))
        if any(nic.rdma is not None for nic in _roce_nics(desired)):
            out.append(SHOW_GIDS)
        return out + ib_host.commands(desired)  # ibstat, sminfo on a host with an InfiniBand HCA

    def parse(self, outputs: Mapping[str, str], desired: Device) -> DeviceObservation:
        ipoib = any(i.kind == "infiniband" for i in desired.interfaces.values())
        gpudirect = desired.host is not None and desired.host.gpudirect is not None
        notes = [LAB_ONLY, *([LAB_ONLY_DCQCN] if _roce_nics(desired) else []), *([LAB_ONLY_IOMMU] if gpudirect else [])]
        obs = DeviceObservation(device=None, lab_only=[*notes, *([LAB_ONLY_IPOIB] if ipoib else [])])
        errors = obs.errors
        name = desired.name

        def attempt(command: Command, parse: Callable[[str], T]) -> T | None:
            # TextParseError is a ValueError; ip -j JSON is read by key
            return read(outputs, command, parse, name, errors, catch=(ValueError, KeyError, TypeError))

        links = attempt(LINKS, _links)
        addrs = attempt(ADDRS, _addresses)
        modules = attempt(LSMOD, _modules)
        bridges = attempt(LSPCI, _acs_enabled)
        nccl = attempt(NCCL, _nccl_env)
        gateways = attempt(ROUTES, parse_gateways)
        tables, priorities = _managed(desired.host)
        # the same output, read again for the rail tables once it is known to be ip's (one error for garbage)
        routes = attempt(ROUTES, lambda t: parse_routes(t, tables)) if gateways is not None else None
        rules = attempt(RULES, lambda t: parse_rules(t, tables, priorities))
        iommu = attempt(IOMMU, parse_iommu)
        paths = attempt(TOPO, parse_topo) if TOPO.text in outputs else []
        nics: dict[str, dict[str, Any]] = {}
        nic_qos: dict[str, NicQos] = {}
        forced: list[bool | None] = []  # adaptive_routing_forced_en of each NIC whose ROCE_ACCL was read
        for nic in _roce_nics(desired):
            values: dict[str, Any] = {}
            qos = attempt(mlnx_qos(nic.netdev), parse_mlnx_qos)
            if qos is not None:
                values.update(qos[0])
                nic_qos[nic.netdev] = qos[1]
            dcqcn = attempt(ecn(nic.netdev), parse_ecn)
            if dcqcn is not None:
                values.update(dcqcn)
            if nic.rdma is not None:
                values.update(_rdma_values(nic, nic.rdma, attempt, obs.unmodelled, forced))
            nics[nic.netdev] = values
        obs.host = HostObserved(
            modules=modules or [],
            acs_enabled_bridges=bridges or [],
            gpu_nic_paths=paths or [],
            gids=attempt(SHOW_GIDS, parse_show_gids),
            nic_qos=nic_qos,
        )
        ib_host.observe(outputs, desired, obs)  # HostObserved.ib_ports / sm_lid
        if links is None or addrs is None:
            return obs
        try:
            kernel = _Kernel(gateways, iommu, routes, rules, _adaptive_routing(forced))
            obs.device, obs.fields = _device(desired, links, addrs, nics, modules, bridges, nccl, kernel)
        except (ValidationError, ValueError) as exc:
            errors.append(parse_error(name, None, f"observed host state does not fit FabricState: {exc}"))
        return obs


def _rdma_values(
    nic: HostNic,
    rdma: str,
    attempt: Callable[[Command, Callable[[str], Any]], Any],
    unmodelled: dict[str, int],
    forced: list[bool | None],
) -> dict[str, Any]:
    """The RDMA device's RoCE mode, ToS and ROCE_ACCL fields (those the intent sets; the others counted as
    unmodelled); appends the register's adaptive-routing-forced bit to ``forced`` when the register was read."""
    values: dict[str, Any] = {}
    mode = attempt(roce_mode(rdma), _last_line)
    if mode is not None:
        values["roce_mode"] = ROCE_MODES.get(mode)
    tos = attempt(roce_tos(rdma), _last_line)
    if tos is not None:
        values["roce_tos"] = int(tos)
    accl = attempt(get_command(rdma), parse_roce_accl) if nic.roce_accl is not None else None
    if accl is not None and nic.roce_accl is not None:
        values["roce_accl"] = intended_only(accl.fields, nic.roce_accl).model_dump()
        forced.append(accl.fields.adaptive_routing_forced)
        for field in accl.unmodelled:
            unmodelled[f"ROCE_ACCL.{field}"] = unmodelled.get(f"ROCE_ACCL.{field}", 0) + 1
    return values


@dataclass(frozen=True)
class _Kernel:
    """What the kernel showed beyond the NIC tools (None: that command did not run or was unreadable)."""

    gateways: dict[str, list[str]] | None
    iommu: str | None
    routes: list[Route] | None
    rules: list[Rule] | None
    adaptive_routing: bool | None = None  # every NIC read forces adaptive routing (ROCE_ACCL); None: none read


def _adaptive_routing(forced: list[bool | None]) -> bool | None:
    """The host's NICs accept out-of-order RoCE when every NIC read shows adaptive routing forced; None when no NIC
    showed the field (not read, or firmware without it)."""
    shown = [f for f in forced if f is not None]
    return all(shown) if shown and len(shown) == len(forced) else (False if False in shown else None)


def _managed(host: HostSettings | None) -> tuple[set[int], set[int]]:
    """The policy routing xoff renders, as the host script owns it: its rail tables (routes in them, rules
    into them) and its rules' priorities (the script replaces whatever sits there)."""
    if host is None:
        return set(), set()
    tables = {r.table for r in host.routes} | {r.table for r in host.rules}
    return tables, {r.priority for r in host.rules}


def _intent_order(observed: list[T], intended: list[T], key: Callable[[T], Any]) -> list[T]:
    """``observed`` in the intent's order (drift compares lists whole where no field keys them), the rest
    after it in the order read."""
    rank = {key(item): i for i, item in enumerate(intended)}
    return sorted(observed, key=lambda item: rank.get(key(item), len(rank)))


def _device(
    desired: Device,
    links: dict[str, Any],
    addrs: dict[str, list[str]],
    nics: dict[str, dict[str, Any]],
    modules: list[str] | None,
    bridges: list[str] | None,
    nccl: dict[str, str] | None,
    kernel: _Kernel,
) -> tuple[Device, list[str]]:
    seen = _seen_interfaces(desired, links, addrs, nics)
    fields = ["interfaces", *interface_paths(("mtu", "admin_up", "addresses"))]
    updates: dict[str, Any] = {"interfaces": observed_interfaces(desired, seen)}
    if nics:
        fields.append("interfaces.*.pfc_priorities")
    host = desired.host
    if host is not None:
        data = host.model_dump()
        _observe_nics(data["nics"], seen, nics, kernel)
        fields += ["host.nics.*.mtu", "host.nics.*.address"]
        if kernel.gateways is not None:
            fields.append("host.nics.*.gateway")
        if kernel.routes is not None:
            routes = _intent_order(kernel.routes, host.routes, lambda r: (r.table, r.destination))
            data["routes"] = [r.model_dump() for r in routes]
            fields.append("host.routes")
        if kernel.rules is not None:
            rules = _intent_order(kernel.rules, host.rules, lambda r: (r.priority, r.source))
            data["rules"] = [r.model_dump() for r in rules]
            fields.append("host.rules")
        fields += sorted({f"host.nics.*.{k}" for v in nics.values() for k in v})
        if nccl is not None:
            data["nccl_env"] = nccl
            fields.append("host.nccl_env")
        # never the intent's copy: what the NICs' ROCE_ACCL showed, or not observed
        data["roce_adaptive_routing"] = kernel.adaptive_routing
        if kernel.adaptive_routing is not None:
            fields.append("host.roce_adaptive_routing")
        if data["gpudirect"] is not None:
            fields += _observe_gpudirect(data["gpudirect"], modules, bridges, kernel)
        updates["host"] = data
    return observed_device(desired, updates), fields


def _seen_interfaces(
    desired: Device, links: dict[str, Any], addrs: dict[str, list[str]], nics: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The desired Ethernet and InfiniBand interfaces the host has: their MTU, state, addresses, PFC."""
    seen: dict[str, dict[str, Any]] = {}
    for name, interface in desired.interfaces.items():
        link = links.get(name)
        # an InfiniBand HCA's netdev is its IPoIB interface: ip shows its MTU, state and addresses as well
        if interface.kind not in ("ethernet", "infiniband") or link is None:
            continue
        values: dict[str, Any] = {
            "mtu": link["mtu"],
            "admin_up": link["admin_up"],
            "addresses": addrs.get(name, []),
        }
        if name in nics and "pfc" in nics[name]:
            values["pfc_priorities"] = [p for p, on in enumerate(nics[name]["pfc"]) if on]
        seen[name] = values
    return seen


def _observe_nics(
    data_nics: dict[str, dict[str, Any]],
    seen: dict[str, dict[str, Any]],
    nics: dict[str, dict[str, Any]],
    kernel: _Kernel,
) -> None:
    """Overwrite each intent NIC (``host.model_dump()``'s) with what the host shows."""
    for netdev, nic in data_nics.items():
        nic["mtu"] = seen[netdev]["mtu"] if netdev in seen else nic["mtu"]
        if nic["roce_mode"] is not None:  # the kernel derives it from the netdev MTU (iboe_get_mtu)
            nic["roce_active_mtu"] = roce_active_mtu(nic["mtu"])
        address = seen.get(netdev, {}).get("addresses", [])
        nic["address"] = address[0] if address else None
        if kernel.gateways is not None:
            nic["gateway"] = gateway_of(kernel.gateways.get(netdev, []))
        nic.update(nics.get(netdev, {}))


def _observe_gpudirect(
    gpudirect: dict[str, Any], modules: list[str] | None, bridges: list[str] | None, kernel: _Kernel
) -> list[str]:
    """Fill the GPUDirect facts the host showed; the fields observed."""
    fields = []
    if modules is not None:
        gpudirect["nvidia_peermem"] = "nvidia_peermem" in modules
        fields.append("host.gpudirect.nvidia_peermem")
    if bridges is not None:
        gpudirect["acs_disabled"] = not bridges
        fields.append("host.gpudirect.acs_disabled")
    if kernel.iommu is not None:
        gpudirect["iommu"] = kernel.iommu
        fields.append("host.gpudirect.iommu")
    return fields


def _links(text: str) -> dict[str, dict[str, Any]]:
    """``ip -j link show`` -> netdev -> its MTU and administrative state (the UP flag)."""
    out: dict[str, dict[str, Any]] = {}
    for item in json.loads(text):
        out[item["ifname"]] = {"mtu": int(item["mtu"]), "admin_up": "UP" in item.get("flags", [])}
    return out


def _addresses(text: str) -> dict[str, list[str]]:
    """``ip -j -4 addr show`` -> netdev -> its IPv4 addresses. iproute2 prints ``{}`` for every link the ``-4``
    filter leaves out (``[{},{},{"ifindex":3,...}]``): those are not links without a name, they are skipped."""
    out: dict[str, list[str]] = {}
    for item in json.loads(text):
        if not item:
            continue
        for info in item.get("addr_info", []):
            if info.get("family") == "inet":
                out.setdefault(item["ifname"], []).append(f"{info['local']}/{info['prefixlen']}")
    return out


def _modules(text: str) -> list[str]:
    lines = text.splitlines()
    if not lines or lines[0].split()[:3] != ["Module", "Size", "Used"]:
        raise ValueError("lsmod: no 'Module Size Used by' header")
    names = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) < 3 or not parts[1].isdigit():
            raise ValueError(f"lsmod: unreadable line {line!r}")
        names.append(parts[0])
    return sorted(names)


def _acs_enabled(text: str) -> list[str]:
    if "Capabilities: <access denied>" in text:  # lspci run without root hides every extended capability
        raise ValueError("lspci -vvv: capabilities <access denied> (not run as root), ACS not shown")
    rows = parse_text(TEXTFSM, "linux", LSPCI.text, text)
    if text.strip() and not re.search(r"^[0-9a-f]{2,4}:[0-9a-f]{2}", text, re.M):
        raise ValueError("lspci -vvv: no PCI function in the output")
    return sorted(str(r["slot"]) for r in rows if any(r[bit] == "+" for bit in ACS_BITS))


def _nccl_env(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _ENV_LINE.match(line)
        if match is None:
            raise ValueError(f"line {number}: not KEY=VALUE: {line[:80]!r}")
        env[match[1]] = match[2]
    return dict(sorted(env.items()))


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("empty output")
    return lines[-1].strip()
