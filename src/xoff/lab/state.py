"""``lab.json``: what a lab consists of (namespaces, links, bridge, processes with their PIDs and
command lines), written atomically after every step of ``lab up`` so that ``lab down`` can remove
exactly what exists, even after a crash half way.

A process is identified by its PID *and* its start time (``/proc/<pid>/stat`` field 22), so a PID
that the kernel has since given to another program is never signalled.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from xoff import atomic

STATE_FILE = "lab.json"
FABRIC_FILE = "fabric.json"  # the FabricState the lab was built from (remapped, if --remap)
STATE_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProcessRecord(_Model):
    key: str  # "<device>/<role>" or "lab/<role>"
    role: str  # zebra, bgpd, staticd, lldpd, sshd, switch-ssh, ibsim, opensm
    device: str | None
    netns: str | None
    pid: int
    start_ticks: int  # /proc/<pid>/stat starttime: with the PID, the process's identity
    argv: list[str]  # the program's own command line (what was exec'd in the namespace)
    log: str | None = None
    started_at: float = 0.0


class DeviceRecord(_Model):
    name: str
    kind: Literal["switch", "host", "ib_switch"]
    platform: str
    role: str
    netns: str
    mgmt_port: str  # intent name of the management port
    mgmt_ifname: str
    mgmt_address: str  # address/prefix length on the management port
    root_veth: str
    dir: str  # the device's directory in the lab dir


class LinkRecord(_Model):
    a_device: str
    a_port: str  # intent port name
    a_ifname: str  # Linux name in a_device's namespace
    b_device: str
    b_port: str
    b_ifname: str
    network: str


class IbRecord(_Model):
    sm_host: str
    sm_node: str  # ibsim node id where clients attach (SIM_HOST)
    netfile: str
    scratch: str
    opensm_log: str


class LabState(_Model):
    version: int = STATE_VERSION
    name: str
    fabric: str
    intent: str
    intent_digest: str  # sha256 of the FabricState planned from the intent (before --remap)
    lab_dir: str
    bridge: str
    controller_address: str  # address/prefix length on the bridge
    mgmt_prefix: str
    devices: dict[str, DeviceRecord] = Field(default_factory=dict)
    links: list[LinkRecord] = Field(default_factory=list)
    processes: dict[str, ProcessRecord] = Field(default_factory=dict)
    ib: IbRecord | None = None
    remap: list[tuple[str, str]] = Field(default_factory=list, description="source block -> lab block, if --remap")
    warnings: list[str] = Field(default_factory=list)
    created_at: float = 0.0

    @property
    def dir(self) -> Path:
        return Path(self.lab_dir)

    def ifname_to_port(self, device: str) -> dict[str, str]:
        """Linux interface name -> intent port name, for one device's cabled ports and mgmt port."""
        out: dict[str, str] = {}
        record = self.devices.get(device)
        if record is not None:
            out[record.mgmt_ifname] = record.mgmt_port
        for link in self.links:
            if link.a_device == device:
                out[link.a_ifname] = link.a_port
            if link.b_device == device:
                out[link.b_ifname] = link.b_port
        return out


def write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    """``text`` to ``path`` whole or not at all (``xoff.atomic``): the lab's files live in /run."""
    atomic.write_atomic(path, text, mode)


def save(state: LabState) -> None:
    write_atomic(state.dir / STATE_FILE, state.model_dump_json(indent=2) + "\n")


def load(lab_dir: Path) -> LabState | None:
    path = lab_dir / STATE_FILE
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"{path}: lab state version {data.get('version')} (this xoff reads {STATE_VERSION})")
    return LabState.model_validate(data)
