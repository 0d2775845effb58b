"""A containerlab topology (``.clab.yml``) from FabricState, for users with Docker and NOS images.

``export(fabric, lab_name)`` builds the topology as a dict (validated in tests against containerlab's
own JSON Schema, ``../shared/schemas/containerlab/clab.schema.json``); ``render_yaml`` and ``write``
print it with a header comment saying what was mapped and what was left out.

Each platform says how it runs under containerlab in its record (``Platform.clab``: kind, image,
interface names, startup files, see ``xoff.contracts.clab``), or why it cannot (``Platform.clab_skipped``:
its devices are left out). InfiniBand switches are left out, and so are links with an InfiniBand end: containerlab has
no InfiniBand kind (the embedded lab simulates that fabric with ibsim instead).

Management: the mgmt network is the prefix of the devices' management interfaces (``ipv4-subnet``);
switches get their intent address as ``mgmt-ipv4``; a kind with ``own_mgmt_link`` (hosts) runs with
``network-mode: none`` and its mgmt port becomes a ``mgmt-net`` link addressed by ``exec``.
Configuration: with ``config_dir`` (the relative path from the .clab.yml to an ``xoff render``
output), each node starts from its rendered files the way its kind can (the kind's ``startup``).
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from xoff.contracts.clab import ClabKind, ExportError
from xoff.desired.models import Device, FabricState
from xoff.platforms.registry import get_platform, platforms

_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9-._]*$")
_NODE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9-._|]*$")

__all__ = ["ExportError", "build", "export", "interface_map", "lab_name_for", "render_yaml", "write"]


def kind_of(platform: str) -> ClabKind:
    return get_platform(platform).clab_kind()


def _clab_platforms() -> list[str]:
    """The platforms containerlab can run, in registry order."""
    return [name for name, p in platforms().items() if p.clab is not None]


def _skipped_why(platform: str) -> str | None:
    record = platforms().get(platform)
    return record.clab_skipped if record is not None else None


def default_images() -> dict[str, str]:
    return {kind_of(p).kind: kind_of(p).image for p in _clab_platforms()}


@dataclass(frozen=True)
class Skipped:
    what: str
    why: str


def lab_name_for(fabric: FabricState) -> str:
    """The default lab name: the fabric name with characters containerlab refuses replaced by '-'."""
    name = re.sub(r"[^a-zA-Z0-9-._]", "-", fabric.fabric).lstrip("-._")
    return name or "xoff"


def interface_map(device: Device) -> dict[str, str]:
    """The device's front-panel ports -> the interface names its containerlab kind expects."""
    ports = [i.name for i in device.interfaces.values() if i.kind == "ethernet"]
    out = kind_of(device.platform).interfaces(ports, device.name)
    if len(set(out.values())) != len(out):
        raise ExportError(f"{device.name}: two ports map to one containerlab interface: {out}")
    return out


def _exported(device: Device) -> bool:
    return _skipped_why(device.platform) is None


def _mgmt_interface(device: Device) -> tuple[str, ipaddress.IPv4Interface] | None:
    for iface in device.interfaces.values():
        if iface.kind == "mgmt" and iface.addresses:
            return iface.name, ipaddress.IPv4Interface(iface.addresses[0])
    return None


def _mgmt_subnet(fabric: FabricState) -> ipaddress.IPv4Network:
    nets = set()
    for device in fabric.devices.values():
        if _exported(device):
            mgmt = _mgmt_interface(device)
            if mgmt is not None:
                nets.add(mgmt[1].network)
    if len(nets) != 1:
        found = ", ".join(sorted(map(str, nets))) or "none"
        raise ExportError(
            f"{fabric.fabric}: containerlab has one management network; the devices' mgmt prefixes are: {found}"
        )
    (net,) = nets
    for device in fabric.devices.values():
        if _exported(device) and ipaddress.IPv4Address(device.mgmt_address) not in net:
            raise ExportError(f"{device.name}: management address {device.mgmt_address} is outside {net}")
    return net


def _infiniband_end(fabric: FabricState, device: str, port: str) -> bool:
    d = fabric.devices[device]
    iface = d.interfaces.get(port)
    return _skipped_why(d.platform) is not None or (iface is not None and iface.kind == "infiniband")


def mgmt_host_interface(lab_name: str, node: str, port: str) -> str:
    """The root-namespace end of a host's mgmt-net link: unique per lab, node and port, 10 characters."""
    return "xc" + hashlib.sha256(f"{lab_name}/{node}/{port}".encode()).hexdigest()[:8]


def _node(device: Device, lab_name: str, config_dir: str | None, links: list[dict[str, Any]]) -> dict[str, Any]:
    kind = kind_of(device.platform)
    node: dict[str, Any] = {"kind": kind.kind, "group": device.role}
    mgmt = _mgmt_interface(device)
    if kind.own_mgmt_link and mgmt is not None:
        port, address = mgmt
        node["network-mode"] = "none"
        node["exec"] = [f"ip link set {port} up", f"ip addr add {address.with_prefixlen} dev {port}"]
        links.append(
            {"endpoints": [f"{device.name}:{port}", f"mgmt-net:{mgmt_host_interface(lab_name, device.name, port)}"]}
        )
    else:
        node["mgmt-ipv4"] = device.mgmt_address
    if config_dir:
        node.update(kind.startup(f"{config_dir.rstrip('/')}/{device.name}"))
    return node


@dataclass(frozen=True)
class Export:
    topology: dict[str, Any]
    skipped: list[Skipped]
    renamed: dict[str, dict[str, str]]  # node -> intent port -> containerlab interface (only the renamed)


def build(
    fabric: FabricState, lab_name: str, *, images: Mapping[str, str] | None = None, config_dir: str | None = None
) -> Export:
    """The topology, what was left out, and the interface renames (for the header comment)."""
    if not _NAME.fullmatch(lab_name):
        raise ExportError(f"lab name {lab_name!r}: containerlab names are letters, digits and -._ (not first)")
    unknown = sorted({d.platform for d in fabric.devices.values()} - set(platforms()))
    if unknown:
        raise ExportError(
            f"{fabric.fabric}: no containerlab kind for platform(s) {', '.join(unknown)} (known: {', '.join(_clab_platforms())})"
        )
    defaults = default_images()
    image_of = {**defaults, **(images or {})}
    bad = sorted(set(image_of) - set(defaults))
    if bad:
        raise ExportError(f"images for unknown kind(s) {', '.join(bad)} (kinds: {', '.join(defaults)})")
    subnet = _mgmt_subnet(fabric)
    skipped = [Skipped(d.name, str(_skipped_why(d.platform))) for d in fabric.devices.values() if not _exported(d)]
    maps: dict[str, dict[str, str]] = {}
    for name, device in fabric.devices.items():
        if not _NODE.fullmatch(name):
            raise ExportError(f"{name}: containerlab node names are letters, digits and -._|")
        if _exported(device):
            maps[name] = interface_map(device)
    mgmt_links: list[dict[str, Any]] = []
    nodes = {
        name: _node(device, lab_name, config_dir, mgmt_links)
        for name, device in fabric.devices.items()
        if _exported(device)
    }
    links: list[dict[str, Any]] = []
    left_out = 0
    for link in fabric.links:
        ends = (link.a, link.b)
        if any(e.device not in maps or e.port not in maps[e.device] for e in ends):
            if not any(_infiniband_end(fabric, e.device, e.port) for e in ends):
                raise ExportError(
                    f"{link.a.device}:{link.a.port} -- {link.b.device}:{link.b.port}: no front-panel port to export"
                )
            left_out += 1
            continue
        entry: dict[str, Any] = {"endpoints": [f"{e.device}:{maps[e.device][e.port]}" for e in ends]}
        mtus = [fabric.devices[e.device].interfaces[e.port].mtu for e in ends]
        if all(m is not None for m in mtus):
            entry["mtu"] = max(m for m in mtus if m is not None)  # one MTU per veth pair: the larger end's
        links.append(entry)
    if left_out:
        skipped.append(Skipped(f"{left_out} links", "with an InfiniBand end"))
    kinds_used = list(dict.fromkeys(node["kind"] for node in nodes.values()))
    topology: dict[str, Any] = {
        "name": lab_name,
        "mgmt": {"network": f"{lab_name}-mgmt", "ipv4-subnet": str(subnet)},
        "topology": {
            "kinds": {kind: {"image": image_of[kind]} for kind in kinds_used},
            "nodes": nodes,
            "links": links + mgmt_links,
        },
    }
    used = {(e.device, e.port) for link in fabric.links for e in (link.a, link.b)}
    renamed = {n: {p: c for p, c in m.items() if p != c and (n, p) in used} for n, m in maps.items()}
    return Export(topology, skipped, {n: m for n, m in renamed.items() if m})


def export(
    fabric: FabricState, lab_name: str, *, images: Mapping[str, str] | None = None, config_dir: str | None = None
) -> dict[str, Any]:
    """The containerlab topology of ``fabric`` as a dict (what ``yaml.safe_load`` of the file gives).

    ``images``: kind -> image, over each kind's default image. ``config_dir``: path of an ``xoff render``
    output relative to the .clab.yml; without it, nodes boot their images' default configuration.
    Raises ExportError when the fabric cannot be expressed (see the module docstring).
    """
    return build(fabric, lab_name, images=images, config_dir=config_dir).topology


class _Flow(list[str]):
    """A list YAML prints inline: ``endpoints: ["leaf1:eth1", "spine1:eth1"]``."""


class _Quoted(str):
    __slots__ = ()


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _Flow, lambda dumper, data: dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)
)
_Dumper.add_representer(_Quoted, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"'))


def render_yaml(
    fabric: FabricState, lab_name: str, *, images: Mapping[str, str] | None = None, config_dir: str | None = None
) -> str:
    """The .clab.yml text: a header comment (source, mappings, what was left out), then the topology."""
    result = build(fabric, lab_name, images=images, config_dir=config_dir)
    data = result.topology
    printable = {**data, "topology": {**data["topology"], "links": [
        {**link, "endpoints": _Flow(_Quoted(e) for e in link["endpoints"])} for link in data["topology"]["links"]
    ]}}  # fmt: skip
    header = [
        f"# containerlab topology of fabric {fabric.fabric}: exported by xoff (xoff lab export). Do not edit.",
        "# Kinds and interface names, per platform:",
        *(
            f"#   {kind_of(p).header}"
            for p in sorted({d.platform for d in fabric.devices.values()} & set(_clab_platforms()))
        ),
    ]
    if config_dir:
        header.append(
            f"# Startup configuration from the xoff render output in {config_dir}/ (per kind: see xoff.lab.clab)."
        )
    for node, ports in result.renamed.items():
        pairs = ", ".join(f"{p}={c}" for p, c in ports.items())
        header.append(f"# {node}: {pairs}")
        device = fabric.devices[node]
        header.extend(f"# {note}" for note in kind_of(device.platform).notes(device, ports))
    for s in result.skipped:
        header.append(f"# left out: {s.what} ({s.why})")
    body = yaml.dump(printable, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=1000)
    return "\n".join(header) + "\n" + body


def write(
    path: Path,
    fabric: FabricState,
    lab_name: str,
    *,
    images: Mapping[str, str] | None = None,
    config_dir: str | None = None,
) -> Path:
    """Write ``render_yaml`` to ``path`` (conventionally ``<name>.clab.yml``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_yaml(fabric, lab_name, images=images, config_dir=config_dir), encoding="utf-8")
    return path
