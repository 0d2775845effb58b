"""Host fault classes beyond the NIC's own settings: GPUDirect prerequisites (nvidia-peermem, ACS, the
GPU-NIC PCI path, the IOMMU), a rail's route and policy rule. Run on the host as an operator does, or,
where only the hardware or a reboot makes the fault (a BIOS reset, a re-seated card, a kernel command
line), changed behind the tool that shows it: the shims' state, files under the host's state root. The
steps first, then the fault records that name them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.nic import host_command, nic_of
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import DRIFT, Concern, Fault, Step, Steps, Target
from xoff.lab.shims._state import HostRoot
from xoff.lab.shims.seed import ACS_CTL_OFF, ACS_CTL_ON

# --- the hardware behind the tools: the shims' state ---------------------------------------------------


def _shim_state(change: Callable[[dict[str, Any], Lab, Target], None]) -> Step:
    """The hardware behind a NIC tool: the shims' state file, under their lock."""

    def step(lab: Lab, t: Target) -> None:
        with HostRoot(lab.device_dir(t.device) / "root").state(write=True) as state:
            change(state, lab, t)

    return step


def _acs(on: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    def change(state: dict[str, Any], _lab: Lab, _t: Target) -> None:
        for rec in state["pci"]:
            if rec.get("acs") is not None:
                rec["acs"]["ctl"] = ACS_CTL_ON if on else ACS_CTL_OFF

    return change


def _reseat(away: bool) -> Callable[[dict[str, Any], Lab, Target], None]:
    """The rail NIC moved to a slot under the other socket's root port (and back)."""

    def change(state: dict[str, Any], lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        rec = next(r for r in state["pci"] if r.get("rdma") == nic.rdma)
        if away:
            rec["seated"] = {k: rec[k] for k in ("switch", "host_bridge", "numa")}
            other = next(r for r in state["pci"] if r["role"] == "root_port" and r["numa"] != rec["numa"])
            rec.update(switch=None, host_bridge=other["host_bridge"], numa=other["numa"])
        elif "seated" in rec:
            rec.update(rec.pop("seated"))

    return change


# --- a rail's route, the kernel command line ---------------------------------------------------------


def _rail_route(stray: bool) -> Step:
    """The NIC's route to the loopbacks in its rail table, ``ip route replace``d via the next hop of another
    rail (``onlink``: it is not on the NIC's /31, as when a rail's lines are copied from rail 0), or back
    via the NIC's own gateway."""

    def step(lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        host = lab.connection.fabric.devices[t.device].host
        assert host is not None  # _nic found a NIC of it
        routes = [r for r in host.routes if r.device == nic.netdev]
        other = next((n.gateway for n in host.nics.values() if n.gateway not in (None, nic.gateway)), None)
        if not routes or other is None:
            raise SeedError(f"{t.device}: {nic.netdev} has no rail route, or no other rail's gateway to misroute to")
        route = routes[-1]
        via = f"{other} dev {nic.netdev} onlink" if stray else f"{route.via} dev {nic.netdev}"
        lab.run(t.device, f"ip route replace {route.destination} via {via} table {route.table}")

    return step


PASSTHROUGH_WORDS = ("iommu=pt", "iommu.passthrough=1")


def _kernel_cmdline(drop_passthrough: bool) -> Step:
    """The host rebooted without ``iommu=pt`` on its kernel command line (a GRUB or kernel update dropped
    it), so the IOMMU translates GPU/NIC DMA. Only a reboot changes /proc/cmdline: the lab changes the
    file under the host's state root, and the undo puts it back as it was."""

    def step(lab: Lab, t: Target) -> None:
        root = lab.device_dir(t.device) / "root"
        path = root / "proc" / "cmdline"
        backup = Path(HostRoot(root).state_path).with_name("cmdline.xoff-fault")
        if drop_passthrough:
            if not (root / "sys" / "class" / "iommu").is_dir():
                raise SeedError(f"{t.device}: no IOMMU unit under the state root, so nothing to translate DMA")
            text = path.read_text(encoding="utf-8")
            if not backup.exists():
                backup.write_text(text, encoding="utf-8")
            path.write_text(" ".join(w for w in text.split() if w not in PASSTHROUGH_WORDS) + "\n", encoding="utf-8")
        elif backup.exists():
            path.write_text(backup.read_text(encoding="utf-8"), encoding="utf-8")
            backup.unlink()

    return step


# --- a rail's policy rule ----------------------------------------------------------------------------


def _rail_rule(deleted: bool) -> Step:
    """The rule from the NIC's address into its rail table (the target's port, else the host's first RoCE
    NIC), ``ip rule del``eted as a hand-run cleanup or a network manager flushing policy routing does (the
    rail's traffic then leaves by the main table, through whichever port its route picks), or added back as
    the intent has it (deleted first, so the undo never leaves the rule twice)."""

    def step(lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        host = lab.connection.fabric.devices[t.device].host
        assert host is not None  # _nic found a NIC of it
        source = f"{nic.address.split('/')[0]}/32" if nic.address else None
        rule = next((r for r in host.rules if r.source == source), None)
        if rule is None:
            raise SeedError(f"{t.device}: {nic.netdev} has no policy rule in the intent")
        spec = f"from {rule.source} table {rule.table} priority {rule.priority}"
        lab.run(t.device, f"ip rule del {spec}" if deleted else f"ip rule del {spec} 2>/dev/null; ip rule add {spec}")

    return step


# --- the fault records (catalogue.py orders them) -----------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="peermem-unloaded",
        title="nvidia-peermem unloaded",
        how="host `modprobe -r nvidia_peermem`",
        check="gpudirect.peermem",
        concern=Concern.GPUDIRECT,
        target=Target("gpu2"),
        platform="linux",
        steps=Steps(seed=host_command("modprobe -r nvidia_peermem"), undo=host_command("modprobe nvidia_peermem")),
        names=("device",),
        also=(DRIFT,),
        why_also="the observed GPUDirect prerequisite differs",
    ),
    Fault(
        name="acs-enabled",
        title="ACS enabled on the GPU-NIC path",
        how="BIOS reset: ACSCtl on every bridge in the PCI config space (the shims' state; `lspci -vvv` shows it)",
        check="gpudirect.acs",
        concern=Concern.GPUDIRECT,
        target=Target("gpu3"),
        platform="linux",
        steps=Steps(seed=_shim_state(_acs(True)), undo=_shim_state(_acs(False))),
        names=("device",),
        also=(DRIFT,),
        why_also="the observed GPUDirect prerequisite differs",
    ),
    Fault(
        name="gpu-nic-far",
        title="GPU-NIC path not PIX/PXB",
        how="the rail NIC re-seated under the other socket (the shims' PCI topology; `nvidia-smi topo -m` shows SYS)",
        check="gpudirect.topology",
        concern=Concern.GPUDIRECT,
        target=Target("gpu4", "eth0"),
        platform="linux",
        steps=Steps(seed=_shim_state(_reseat(True)), undo=_shim_state(_reseat(False))),
        names=("device", "port"),
    ),
    Fault(
        name="nic-rail-gateway",
        title="A rail's route via another rail's gateway",
        how="host `ip route replace <loopbacks> via <rail 0's gateway> dev eth1 table 101 onlink`",
        check=DRIFT,
        concern=Concern.HOST_KERNEL,
        target=Target("gpu1", "eth1"),
        platform="linux",
        steps=Steps(seed=_rail_route(True), undo=_rail_route(False)),
        names=("device", "port"),
        mentions=("host.nics.eth1.gateway",),
    ),
    Fault(
        name="host-rule-missing",
        title="A rail's policy rule missing on a host (its traffic leaves by the main table)",
        how="host `ip rule del from <eth0's address>/32 table 100 priority 1000`",
        check=DRIFT,
        concern=Concern.HOST_KERNEL,
        target=Target("gpu3"),
        platform="linux",
        steps=Steps(seed=_rail_rule(True), undo=_rail_rule(False)),
        names=("device",),
        mentions=("host.rules.",),
    ),
    Fault(
        name="iommu-translated",
        title="IOMMU translates GPU/NIC DMA (no iommu=pt)",
        how="a reboot without `iommu=pt` on the kernel command line (the lab edits /proc/cmdline under the "
        "host's state root)",
        check=DRIFT,
        concern=Concern.HOST_KERNEL,
        target=Target("gpu4"),
        platform="linux",
        steps=Steps(seed=_kernel_cmdline(True), undo=_kernel_cmdline(False)),
        names=("device",),
        mentions=("host.gpudirect.iommu",),
    ),
)
