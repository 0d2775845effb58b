"""The InfiniBand fabric of a FabricState as an ibsim topology, and how to run ibsim and its clients.

ibsim (Debian ``ibsim-utils``) reads the ibnetdiscover text format (its ``net-examples``): a node
record is a header line ``Switch <ports> "<id>" # "<description>"`` or ``Ca <ports> "<id>" # ...``
followed by one ``[<port>] "<remote id>"[<remote port>]`` line per cabled port and ended by a blank
line. ibsim gives nodes GUIDs from a counter per node type, which a ``switchguid=`` / ``caguid=``
line sets for the next node: a switch's node and port GUIDs are that value, a CA's port *n* GUID is
that value + *n*. So every record here is preceded by the line that gives it the GUID FabricState
says it has (``Device.guid`` for switches, the HCA port GUIDs OpenSM's partitions and CN file use).

Clients (OpenSM, infiniband-diags) reach ibsim through ``LD_PRELOAD=libumad2sim.so``. ibsim talks to
them over *abstract* unix sockets with fixed names (``sim:ctl``, ``sim:out<n>``), which exist per
network namespace: :func:`ibsim_argv` starts ibsim in a namespace of its own (``unshare --net``,
nothing on any network, not even loopback) and :func:`client_argv` runs a client inside it, so two
simulated fabrics on one machine never meet. Link speeds are not modelled: ibsim knows SDR/DDR/QDR
only, and OpenSM's routing, partitions and QoS do not depend on the speed.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field

from xoff.desired.ib_guids import IB_NETWORK, hca_port_guids
from xoff.desired.models import Device, FabricState, HostNic

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
IBSIM = "ibsim"
HCA_PORT = 1  # every HCA is a one-port CA (ConnectX-7 in InfiniBand mode: one netdev, one mlx5 device)
# Per-lane rate (Mb/s) of each InfiniBand generation; links are 4x.
_GENERATIONS = ((100_000, "NDR"), (50_000, "HDR"), (25_000, "EDR"), (14_000, "FDR"), (10_000, "QDR"), (5_000, "DDR"))
# ibsim 0.10 (Debian 12) parses SDR..HDR in a port line's "lid <n> 4x<speed>"; NDR came in 0.11.
IBSIM_FASTEST = "HDR"


@dataclass(frozen=True)
class IbsimTopology:
    text: str = field(repr=False)
    sm_node: str  # ibsim node id of the subnet manager's HCA: SIM_HOST for OpenSM and the diags
    sm_port_guid: str
    node_ids: dict[str, str]  # switch name or "host:netdev" -> ibsim node id


@dataclass
class _Node:
    kind: str  # "Switch" | "Ca"
    node_id: str
    guid_line: str
    ports: int
    description: str
    cabled: dict[int, tuple[str, int, str, str]] = field(default_factory=dict)  # port -> (node, port, desc, speed)


def _hex(guid: str | int) -> int:
    return guid if isinstance(guid, int) else int(guid, 16)


def _switch_ports(device: Device) -> int:
    numbers = []
    for name in device.interfaces:
        if not name.isdigit():
            raise ValueError(f"{device.name}: InfiniBand port {name!r} is not a port number")
        numbers.append(int(name))
    if not numbers:
        raise ValueError(f"{device.name}: an InfiniBand switch without ports")
    return max(numbers)


def link_speed(speed_mbps: int, fastest: str = IBSIM_FASTEST) -> str:
    """ibnetdiscover's width and speed for a 4x link, e.g. 400G -> ``4xNDR``, capped at ``fastest``."""
    names = [name for _, name in _GENERATIONS]
    lane = speed_mbps // 4
    name = next((n for rate, n in _GENERATIONS if lane >= rate), "SDR")
    if name in names and names.index(name) < names.index(fastest):
        name = fastest
    return f"4x{name}"


def _hca_description(host: str, nic: HostNic) -> str:
    return f"{host} {nic.rdma or nic.netdev}"  # what rdma-ndd sets: "<hostname> <HCA>"


def topology(fabric: FabricState, sm_host: str | None = None) -> IbsimTopology:  # noqa: C901, PLR0912 -- the net file in one pass (switches, HCAs with the SM's first, cables), each part with its own refusal
    """The InfiniBand network of ``fabric`` as an ibsim net file; ``sm_host`` defaults to the device
    that carries ``subnet_manager``. Its HCA is the first record, ibsim's default attachment point."""
    if sm_host is None:
        sm_host = next((d.name for d in fabric.devices.values() if d.subnet_manager is not None), None)
        if sm_host is None:
            raise ValueError(f"{fabric.fabric}: no device runs the subnet manager")
    nodes: dict[str, _Node] = {}  # by "switch" or "host:netdev"
    for d in fabric.devices.values():
        if d.kind == "ib_switch":
            if d.guid is None:
                raise ValueError(f"{d.name}: InfiniBand switch without a GUID")
            g = _hex(d.guid)
            nodes[d.name] = _Node("Switch", f"S-{g:016x}", f"switchguid=0x{g:016x}", _switch_ports(d), d.name)
    guids = hca_port_guids(fabric)
    for (host, netdev), port_guid in guids.items():
        settings = fabric.devices[host].host
        assert settings is not None  # hca_port_guids only lists hosts with host settings
        node_guid = _hex(port_guid) - HCA_PORT
        nodes[f"{host}:{netdev}"] = _Node(
            "Ca",
            f"H-{node_guid:016x}",
            f"caguid=0x{node_guid:016x}",
            1,
            _hca_description(host, settings.nics[netdev]),
        )
    sm_keys = [k for k in nodes if k.startswith(f"{sm_host}:")]
    if not sm_keys:
        raise ValueError(f"{sm_host}: the subnet manager host has no HCA on the {IB_NETWORK} network")

    def end(device: str, port: str) -> tuple[_Node, int]:
        if device in nodes:
            return nodes[device], int(port)
        key = f"{device}:{port}"
        if key not in nodes:
            raise ValueError(f"link end {device}:{port} is neither an InfiniBand switch port nor a host HCA")
        return nodes[key], HCA_PORT

    for link in fabric.links:
        if link.network != IB_NETWORK or fabric.networks[link.network].kind != "infiniband":
            continue
        (na, pa), (nb, pb) = end(link.a.device, link.a.port), end(link.b.device, link.b.port)
        for node, port, other, other_port in ((na, pa, nb, pb), (nb, pb, na, pa)):
            if not 1 <= port <= node.ports:
                raise ValueError(f"{node.description}: port {port} outside 1..{node.ports}")
            if port in node.cabled:
                raise ValueError(f"{node.description}: port {port} cabled twice")
            node.cabled[port] = (other.node_id, other_port, other.description, link_speed(link.speed_mbps))

    order = sm_keys[:1] + [k for k in nodes if k != sm_keys[0]]
    lines = [
        f"# ibsim topology of {fabric.fabric} (network {IB_NETWORK}), generated by xoff from FabricState.",
        "# ibnetdiscover format; switchguid=/caguid= set the next node's GUID (a CA's port 1 is that + 1).",
        f"# The first record, {sm_host}'s HCA, is where the subnet manager attaches.",
    ]
    for key in order:
        n = nodes[key]
        lines += ["", n.guid_line, f'{n.kind}\t{n.ports} "{n.node_id}"\t\t# "{n.description}"']
        for port in sorted(n.cabled):
            rid, rport, rdesc, speed = n.cabled[port]
            # "lid 0": no LID yet (the SM assigns them); ibsim reads the width and speed after it
            lines.append(f'[{port}]\t"{rid}"[{rport}]\t\t# "{rdesc}" lid 0 {speed}')
    sm_key = sm_keys[0]
    return IbsimTopology(
        text="\n".join(lines) + "\n",
        sm_node=nodes[sm_key].node_id,
        sm_port_guid=guids[(sm_host, sm_key.split(":", 1)[1])],
        node_ids={k: n.node_id for k, n in nodes.items()},
    )


def ibsim_argv(netfile: str) -> list[str]:
    """ibsim in a network namespace of its own, fabric started (-s), no console (-n)."""
    return ["unshare", "--net", "--", IBSIM, "-s", "-n", netfile]


def client_argv(ibsim_pid: int, argv: list[str]) -> list[str]:
    """Run ``argv`` in ibsim's network namespace, where its abstract sockets are."""
    return ["nsenter", f"--net=/proc/{ibsim_pid}/ns/net", "--", *argv]


def client_env(base: Mapping[str, str], sim_host: str, scratch: str) -> dict[str, str]:
    """Environment for an ibsim client: umad2sim preloaded, attached at ``sim_host``, OpenSM's
    cache and temporary files in ``scratch``."""
    env = dict(base)
    env.update(
        LD_PRELOAD=UMAD2SIM,
        SIM_HOST=sim_host,
        OSM_TMP_DIR=scratch,
        OSM_CACHE_DIR=scratch,
    )
    return env


# The infiniband-diags a host runs on itself (``platforms/infiniband/host.py``: ibstat, sminfo).
HOST_DIAGS = ("ibstat", "sminfo")


def host_diag_wrappers(netns_path: str, node_id: str, host: str) -> dict[str, str]:
    """``tool -> sh script``: the real infiniband-diags tool, attached through umad2sim at the host's HCA
    (ibsim node ``node_id``) in the network namespace where ibsim's abstract sockets are (``netns_path``,
    the SM host's). Installed first on the host's PATH, so ``ibstat`` over the host's sshd prints what the
    real ibstat prints for that HCA. ibsim attaches a client to one CA: a host shows its first HCA only."""
    out: dict[str, str] = {}
    for tool in HOST_DIAGS:
        real = shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin") or f"/usr/sbin/{tool}"
        out[tool] = (
            "#!/bin/sh\n"
            f"# {tool} of lab host {host}: written by xoff lab up. The real infiniband-diags {tool}, attached\n"
            f"# through ibsim's umad2sim at this host's HCA (ibsim node {node_id}), in ibsim's namespace.\n"
            f"exec nsenter --net={shlex.quote(netns_path)} -- env LD_PRELOAD={UMAD2SIM} "
            f'SIM_HOST={shlex.quote(node_id)} {shlex.quote(real)} "$@"\n'
        )
    return out


def host_nodes(topo: IbsimTopology) -> dict[str, str]:
    """host -> the ibsim node id of its first HCA (the one its diags attach at)."""
    out: dict[str, str] = {}
    for key, node_id in topo.node_ids.items():
        host, sep, _netdev = key.partition(":")
        if sep and host not in out:
            out[host] = node_id
    return out
