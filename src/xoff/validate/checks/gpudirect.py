"""GPUDirect RDMA on the hosts: peer-memory module, ACS, and GPU-to-rail-NIC PCIe distance (reference §4.5)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.contracts.observed import HostObserved
from xoff.desired.models import Device, GpuDirect
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _hosts(ctx: CheckContext) -> Iterator[tuple[Device, GpuDirect, HostObserved]]:
    for name, seen in sorted(ctx.snapshot.hosts.items()):
        dev = ctx.desired.devices.get(name)
        if dev is not None and dev.host is not None and dev.host.gpudirect is not None:
            yield dev, dev.host.gpudirect, seen


def _no_hosts(ctx: CheckContext) -> str | None:
    return None if any(True for _ in _hosts(ctx)) else "no observed GPU host with GPUDirect in the snapshot"


@register
class PeerMem(Check):
    """nvidia-peermem not loaded: NCCL falls back to staging through host memory (no GPUDirect RDMA)."""

    class Params(CheckParams):
        modules: tuple[str, ...] = ("nvidia_peermem", "nv_peer_mem")  # any of these

    id = "gpudirect.peermem"
    title = "GPU hosts have the nvidia-peermem module loaded"
    needs = frozenset({"observed"})
    hint = "modprobe nvidia-peermem (and load it at boot)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        wanted = ctx.params_as(self.Params).modules
        for dev, gd, seen in _hosts(ctx):
            if gd.nvidia_peermem and not set(wanted) & set(seen.modules):
                yield Finding(dev.name, "nvidia-peermem", "module not loaded", " or ".join(wanted), "not in lsmod")


@register
class AcsDisabled(Check):
    """ACS source validation/redirect on a PCIe bridge: GPU-NIC peer traffic is redirected to the root
    complex, GPUDirect RDMA slows down or hangs (NCCL's IBV_WC_LOC_PROT_ERR hint)."""

    id = "gpudirect.acs"
    title = "ACS disabled on the PCIe bridges of GPU hosts"
    needs = frozenset({"observed"})
    hint = "disable ACS in the BIOS (VT-d / IO virtualization) or per bridge with setpci ECAP_ACS+0x6.w=0000"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for dev, gd, seen in _hosts(ctx):
            if gd.acs_disabled:
                for bridge in seen.acs_enabled_bridges:
                    yield Finding(dev.name, f"PCI bridge {bridge}", "ACS enabled", "ACSCtl SrcValid-", "SrcValid+")


@register
class GpuNicTopology(Check):
    """A GPU whose rail NIC is further than a PCIe switch away (NODE, SYS, PHB): NCCL disables GPUDirect
    RDMA for that pair under its default GDR level (PXB), so the rail runs through host memory."""

    class Params(CheckParams):
        allowed: tuple[str, ...] = ("PIX", "PXB")

    id = "gpudirect.topology"
    title = "Each GPU's rail NIC is PIX or PXB (nvidia-smi topo -m)"
    needs = frozenset({"observed"})
    hint = "seat the NIC under the GPU's PCIe switch, or map the GPU to the NIC that is (NCCL_IB_HCA order)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        allowed = ctx.params_as(self.Params).allowed
        for dev, gd, seen in _hosts(ctx):
            assert dev.host is not None
            netdev = {n.rdma: n.netdev for n in dev.host.nics.values() if n.rdma}
            paths = {(p.gpu, p.nic): p.relation for p in seen.gpu_nic_paths}
            for gpu, nic in sorted(gd.gpu_nic.items()):
                rel = paths.get((gpu, nic))
                if rel not in allowed:
                    yield Finding(
                        dev.name,
                        f"GPU{gpu} - {nic}",
                        "rail NIC too far for GPUDirect RDMA" if rel else "GPU-NIC path not reported",
                        "/".join(allowed),
                        rel or "none",
                        port=netdev.get(nic),
                    )
