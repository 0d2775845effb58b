"""A factory-fresh GPU host under a state root, built from the host's ``HostSettings``.

"Factory-fresh" is what a host looks like after OS and driver install, before xoff ran: ConnectX
NICs trusting PCP with PFC off and no DCQCN (firmware defaults, reference/lossless.md §4.2), RDMA-CM
at the kernel's defaults, MLNX_OFED's global traffic class unset. The GPUDirect prerequisites that
xoff only verifies (§4.5) are seeded as the intent wants them unless a test asks otherwise.

The PCI topology (for ``lspci`` and ``nvidia-smi topo -m``) gives every GPU its own PCIe switch under
its own root port, with the GPU's rail NICs (``GpuDirect.gpu_nic``, else ``HostNic.gpu``) on the same
switch (so GPU i and its rail NIC are ``PIX``); NICs without a GPU sit on a root port of their own.
GPUs are split over two NUMA nodes when there are two or more.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from xoff.desired.models import Device, HostNic, HostSettings
from xoff.lab.shims import mlxreg
from xoff.lab.shims._state import SCHEMA, STATE_DIR, STATE_FILE, dump_state
from xoff.lab.shims.hostcounters import seed_counters
from xoff.lab.shims.kmod import write_loaded
from xoff.lab.shims.nvml import write_facts

if TYPE_CHECKING:
    from xoff.lab.shims._state import State

Iommu = Literal["off", "passthrough", "translated"]

# PCI names as pciutils prints them from pci.ids (vendor 15b3 Mellanox, 10de NVIDIA, 1000 Broadcom / LSI).
NIC_PCI = {
    "connectx6": ("101b", "MT28908 Family [ConnectX-6]"),
    "connectx7": ("1021", "MT2910 Family [ConnectX-7]"),
    "connectx8": ("1023", "CX8 Family [ConnectX-8]"),
    "bluefield3": ("a2dc", "MT43244 BlueField-3 integrated ConnectX-7 network controller"),
}
# gpu model -> (nvidia-smi name, PCI device id, pci.ids name)
GPU_MODELS = {
    "H100": ("NVIDIA H100 80GB HBM3", "2330", "GH100[H100 SXM5 80GB]"),
    "H800": ("NVIDIA H800", "2324", "GH100 [H800]"),
}
NVLINKS = {"H100": 18, "H800": 8}  # bonded NVLinks between two GPUs of an HGX board (nvidia-smi "NV18")
CORES_PER_NODE = 32

# DCQCN sysfs defaults of ConnectX firmware (reference/lossless.md §4.2, mlxconfig defaults)
ECN_NP_DEFAULTS = {"cnp_dscp": 48, "cnp_802p_prio": 6, "min_time_between_cnps": 4}
ECN_RP_DEFAULTS = {
    "rpg_time_reset": 300,
    "rpg_byte_reset": 32767,
    "rpg_threshold": 1,
    "rpg_max_rate": 0,
    "rpg_ai_rate": 5,
    "rpg_hai_rate": 50,
    "rpg_gd": 11,
    "rpg_min_dec_fac": 50,
    "rpg_min_rate": 1,
    "rate_to_set_on_first_cnp": 0,
    "dce_tcp_g": 1019,
    "dce_tcp_rtt": 1,
    "rate_reduce_monitor_period": 4,
    "initial_alpha_value": 1023,
}

# Installed kernel modules: name -> (size, dependencies, path under /lib/modules/<release>, extra refs).
# Sizes are those of public lsmod captures of MLNX_OFED / NVIDIA 550 hosts; "refs" are references that
# are not modules (open device handles), which make a module "in use" for modprobe -r.
_MLX = "kernel/drivers/net/ethernet/mellanox/mlx5/core"
_IB = "kernel/drivers/infiniband"
MODULES_RDMA: dict[str, tuple[int, tuple[str, ...], str, int]] = {
    "mlxfw": (36864, (), "kernel/drivers/net/ethernet/mellanox/mlxfw/mlxfw.ko", 0),
    "psample": (20480, (), "kernel/net/psample/psample.ko", 0),
    "tls": (114688, (), "kernel/net/tls/tls.ko", 0),
    "pci_hyperv_intf": (16384, (), "kernel/drivers/pci/controller/pci-hyperv-intf.ko", 0),
    "mlx5_core": (2002944, ("mlxfw", "psample", "tls", "pci_hyperv_intf"), f"{_MLX}/mlx5_core.ko", 0),
    "ib_core": (471040, (), f"{_IB}/core/ib_core.ko", 0),
    "ib_uverbs": (200704, ("ib_core",), f"{_IB}/core/ib_uverbs.ko", 0),
    "mlx5_ib": (462848, ("mlx5_core", "ib_uverbs", "ib_core"), f"{_IB}/hw/mlx5/mlx5_ib.ko", 0),
    "iw_cm": (53248, ("ib_core",), f"{_IB}/core/iw_cm.ko", 0),
    "ib_cm": (131072, ("ib_core",), f"{_IB}/core/ib_cm.ko", 0),
    "rdma_cm": (139264, ("iw_cm", "ib_cm", "ib_core"), f"{_IB}/core/rdma_cm.ko", 0),
    "rdma_ucm": (32768, ("rdma_cm", "ib_uverbs", "ib_core"), f"{_IB}/core/rdma_ucm.ko", 0),
    "ib_umad": (40960, ("ib_core",), f"{_IB}/core/ib_umad.ko", 0),
    "ib_ipoib": (151552, ("ib_cm", "ib_core"), f"{_IB}/ulp/ipoib/ib_ipoib.ko", 0),
}
MODULES_GPU: dict[str, tuple[int, tuple[str, ...], str, int]] = {
    "nvidia": (54292480, (), "updates/dkms/nvidia.ko", 60),
    "nvidia_uvm": (4956160, ("nvidia",), "updates/dkms/nvidia-uvm.ko", 0),
    "nvidia_modeset": (1355776, ("nvidia",), "updates/dkms/nvidia-modeset.ko", 0),
    "nvidia_drm": (122880, ("nvidia_modeset",), "updates/dkms/nvidia-drm.ko", 0),
    "nvidia_peermem": (16384, ("nvidia", "ib_uverbs", "ib_core"), "updates/dkms/nvidia-peermem.ko", 0),
}
TAINTED = ("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nvidia_peermem")  # out-of-tree, unsigned: (OE)


@dataclass(frozen=True)
class SeedOptions:
    """What is not in HostSettings; the defaults give a host that meets the intent's prerequisites."""

    nvidia_peermem: bool = True  # the module is loaded (GPU hosts only; it is always installed there)
    acs_enabled: bool | None = None  # None: as GpuDirect.acs_disabled wants it (enabled on hosts without GPUs)
    iommu: Iommu | None = None  # None: GpuDirect.iommu, or "off" on hosts without GPUs
    gpu_model: str = "H100"
    driver_version: str = "550.90.07"
    kernel_release: str = "6.1.0-18-amd64"


def host_settings(device: Device) -> HostSettings:
    if device.kind != "host" or device.host is None:
        raise ValueError(f"{device.name}: not a host with host settings, so no NIC tool shims")
    return device.host


def seed(root: Path, device: Device, options: SeedOptions) -> None:
    """Write the factory-fresh host into ``root`` (which must not hold a host yet)."""
    host = host_settings(device)
    state: State = {
        "schema": SCHEMA,
        "device": device.name,
        "kernel_release": options.kernel_release,
        "dcb": {},
        "rdma_cm": {},
        "roce_accl": {},  # RDMA device -> ROCE_ACCL fields (mlxreg)
        "gpus": [],
        "nvlinks": 0,
        "driver_version": options.driver_version,
        "modules": {},
        "pci": [],
    }
    for nic in host.nics.values():
        _seed_nic(root, state, nic)
    _seed_pci(state, device.name, host, options)
    seed_counters(state, host, options.gpu_model)
    _seed_modules(root, state, host, options)
    gd = host.gpudirect
    iommu = options.iommu or (gd.iommu if gd is not None else "off")
    cmdline = f"BOOT_IMAGE=/boot/vmlinuz-{options.kernel_release} root=/dev/nvme0n1p2 ro quiet"
    if iommu == "passthrough":
        cmdline += " intel_iommu=on iommu=pt"
    elif iommu == "translated":
        cmdline += " intel_iommu=on"
    _write(root / "proc/cmdline", cmdline + "\n")
    if iommu != "off":
        (root / "sys/class/iommu/dmar0").mkdir(parents=True, exist_ok=True)
    (root / "sys/kernel/config/rdma_cm").mkdir(parents=True, exist_ok=True)  # configfs with rdma_cm loaded
    (root / "etc").mkdir(parents=True, exist_ok=True)
    state_dir = root / STATE_DIR
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / "lock").touch()
    (state_dir / STATE_FILE).write_text(dump_state(state), encoding="utf-8")
    write_facts(root, state)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def factory_dcb() -> dict[str, Any]:
    """A ConnectX port's DCB state after driver load (mlnx_qos -i shows it; see mlnx_qos.py)."""
    return {
        "dcbx": "os",
        "apps": [],  # [selector, priority, protocol], newest first: the kernel's dcb_app list order
        "fw_dscp2prio": [d >> 3 for d in range(64)],  # the firmware's map, used while trust is dscp
        "pfc_en": 0,
        "pfc_delay": 7,  # "Cable len"
        "prio_tc": [1, 0, 2, 3, 4, 5, 6, 7],  # firmware default: priority 0 -> tc 1, 1 -> tc 0
        "tsa": [255] * 8,  # vendor
        "tc_bw": [0] * 8,
        "maxrate": [0] * 8,
        "buffer_auto": True,
        "prio2buffer": [0] * 8,
        "buffer_size": [524160, 0, 0, 0, 0, 0, 0, 0],
        "max_buffer_size": 4151520,
    }


def _seed_nic(root: Path, state: State, nic: HostNic) -> None:
    if not nic.rdma:
        return
    ib = root / "sys/class/infiniband" / nic.rdma
    _write(ib / "ports/1/link_layer", "Ethernet\n" if nic.roce_mode else "InfiniBand\n")
    _write(ib / "ports/1/state", "4: ACTIVE\n")
    (ib / "device/net" / nic.netdev).mkdir(parents=True, exist_ok=True)
    ethernet = nic.roce_mode is not None
    # the kernel's RDMA-CM default is RoCE v2 where the port supports it (cma.c CMA_PREFERRED_ROCE_GID_TYPE)
    state["rdma_cm"][nic.rdma] = {
        "ports": {"1": {"default_roce_mode": "RoCE v2" if ethernet else "IB/RoCE v1", "default_roce_tos": 0}}
    }
    if not ethernet:
        return
    _write(ib / "tc/1/traffic_class", "")  # MLNX_OFED: empty while no global traffic class is set
    ecn = root / "sys/class/net" / nic.netdev / "ecn"
    for point in ("roce_np", "roce_rp"):
        for prio in range(8):
            _write(ecn / point / "enable" / str(prio), "0\n")
    for name, value in ECN_NP_DEFAULTS.items():
        _write(ecn / "roce_np" / name, f"{value}\n")
    for name, value in ECN_RP_DEFAULTS.items():
        _write(ecn / "roce_rp" / name, f"{value}\n")
    state["dcb"][nic.netdev] = factory_dcb()
    state["roce_accl"][nic.rdma] = mlxreg.factory()


def _gpu_of(host: HostSettings) -> dict[str, int]:
    """RDMA device -> the GPU it serves."""
    if host.gpudirect is not None and host.gpudirect.gpu_nic:
        return {rdma: gpu for gpu, rdma in host.gpudirect.gpu_nic.items()}
    return {n.rdma: n.gpu for n in host.nics.values() if n.rdma and n.gpu is not None and n.gpu < host.gpus}


ACS_CTL_ON = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"  # Linux's default
ACS_CTL_OFF = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
ACS_CAP_ROOT_PORT = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"
ACS_CAP_SWITCH_PORT = "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+"
ROOT_PORT = ("8086:352a", "Intel Corporation Device 352a", "04")  # pci.ids has no name for it: "Device 352a"
SWITCH_PORT = ("1000:c030", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch", "b0")


class _Layout:
    """PCI records, one group per root port: bus numbers 0x10 * (group + 1) onwards."""

    def __init__(self, acs_ctl: str) -> None:
        self.records: list[dict[str, Any]] = []
        self.acs_ctl = acs_ctl
        self.iommu_group = 10

    def _add(self, rec: dict[str, Any]) -> dict[str, Any]:
        rec["iommu_group"] = self.iommu_group
        self.iommu_group += 1
        self.records.append(rec)
        return rec

    def bridge(self, bdf: str, role: str, bus: tuple[int, int, int], numa: int, group: int, switch: int | None) -> None:
        pci_id, name, rev = ROOT_PORT if role == "root_port" else SWITCH_PORT
        cap = {"root_port": ACS_CAP_ROOT_PORT, "switch_down": ACS_CAP_SWITCH_PORT}.get(role)
        self._add({
            "bdf": bdf, "role": role, "class": "PCI bridge", "class_id": "0604", "id": pci_id, "name": name,
            "rev": rev, "subsystem": None, "bus": list(bus), "numa": numa, "host_bridge": group, "switch": switch,
            "acs": None if cap is None else {"cap": cap, "ctl": self.acs_ctl},
            "driver": "pcieport", "modules": [],
        })  # fmt: skip

    def endpoint(self, bdf: str, numa: int, group: int, switch: int | None, **rec: Any) -> None:
        self._add({"bdf": bdf, "numa": numa, "host_bridge": group, "switch": switch, "bus": None, "acs": None, **rec})


def _seed_pci(state: State, name: str, host: HostSettings, options: SeedOptions) -> None:
    gpu_of = _gpu_of(host)
    gpu_name, gpu_devid, gpu_pci = GPU_MODELS.get(
        options.gpu_model, (f"NVIDIA {options.gpu_model}", "2330", "Device 2330")
    )
    nic_devid, nic_pci = NIC_PCI.get(host.nic_model, NIC_PCI["connectx7"])
    gd = host.gpudirect
    acs_on = options.acs_enabled if options.acs_enabled is not None else not (gd is not None and gd.acs_disabled)
    nodes = 2 if host.gpus >= 2 else 1
    groups: list[tuple[int | None, list[HostNic]]] = [
        (g, [n for n in host.nics.values() if n.rdma and gpu_of.get(n.rdma) == g]) for g in range(host.gpus)
    ]
    groups += [(None, [n]) for n in host.nics.values() if n.rdma and n.rdma not in gpu_of]
    if len(groups) > 14:
        raise ValueError(f"{name}: {len(groups)} PCIe groups (GPUs + NICs without a GPU); the shim lays out at most 14")
    layout = _Layout(ACS_CTL_ON if acs_on else ACS_CTL_OFF)
    for k, (gpu, nics) in enumerate(groups):
        base = 0x10 * (k + 1)
        numa = gpu * nodes // host.gpus if gpu is not None else 0
        switch = k if gpu is not None else None
        count = len(nics) + (gpu is not None)
        last_bus = base + (2 if switch is not None else 0) + count
        layout.bridge(f"{base:02x}:01.0", "root_port", (base, base + 1, last_bus), numa, base, None)
        bus = base + 1
        if switch is not None:  # root port -> switch upstream port -> one downstream port per endpoint
            layout.bridge(f"{base + 1:02x}:00.0", "switch_up", (base + 1, base + 2, last_bus), numa, base, switch)
            for j in range(count):
                layout.bridge(
                    f"{base + 2:02x}:{j:02x}.0",
                    "switch_down",
                    (base + 2, base + 3 + j, base + 3 + j),
                    numa,
                    base,
                    switch,
                )
            bus = base + 3
        if gpu is not None:
            bdf = f"{bus:02x}:00.0"
            bus += 1
            state["gpus"].append(
                {"index": gpu, "name": gpu_name, "uuid": _gpu_uuid(name, gpu), "bdf": bdf, "numa": numa}
            )
            layout.endpoint(bdf, numa, base, switch, role="gpu", gpu=gpu, **{"class": "3D controller"},
                            class_id="0302", id=f"10de:{gpu_devid}", name=f"NVIDIA Corporation {gpu_pci}", rev="a1",
                            subsystem="NVIDIA Corporation Device 16c1", driver="nvidia",
                            modules=["nvidiafb", "nouveau", "nvidia_drm", "nvidia"])  # fmt: skip
        for nic in nics:
            ethernet = nic.roce_mode is not None
            layout.endpoint(f"{bus:02x}:00.0", numa, base, switch, role="nic", rdma=nic.rdma, netdev=nic.netdev,
                            **{"class": "Ethernet controller" if ethernet else "Infiniband controller"},
                            class_id="0200" if ethernet else "0207", id=f"15b3:{nic_devid}",
                            name=f"Mellanox Technologies {nic_pci}", rev=None,
                            subsystem="Mellanox Technologies Device 0051", driver="mlx5_core", modules=["mlx5_core"])  # fmt: skip
            bus += 1
    state["pci"] = layout.records
    state["gpus"].sort(key=lambda g: g["index"])
    state["nvlinks"] = NVLINKS.get(options.gpu_model, 0) if host.gpus >= 2 else 0
    state["cores_per_node"] = CORES_PER_NODE
    state["numa_nodes"] = nodes


def _gpu_uuid(host: str, index: int) -> str:
    return f"GPU-{uuid.uuid5(uuid.NAMESPACE_URL, f'xoff-lab:{host}:gpu{index}')}"


def _seed_modules(root: Path, state: State, host: HostSettings, options: SeedOptions) -> None:
    catalog = dict(MODULES_RDMA)
    if host.gpus > 0:
        catalog.update(MODULES_GPU)
    state["modules"] = {
        name: {"size": size, "deps": list(deps), "path": path, "refs": refs, "taint": "OE" if name in TAINTED else ""}
        for name, (size, deps, path, refs) in catalog.items()
    }
    infiniband = any(n.rdma and n.roce_mode is None for n in host.nics.values())
    loaded = [m for m in MODULES_RDMA if m != "ib_ipoib" or infiniband]
    if host.gpus > 0:
        loaded += [m for m in MODULES_GPU if m != "nvidia_peermem" or options.nvidia_peermem]
    write_loaded(root, state, loaded)
