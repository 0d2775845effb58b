"""GPUDirect RDMA on the hosts: peer-memory module, ACS, and GPU-to-rail-NIC PCIe distance (reference §4.5)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.contracts.observed import HostObserved
from xoff.desired.models import Device, GpuDirect
from xoff.validate.checks.common import not_judged
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _gpu_hosts(ctx: CheckContext) -> set[str]:
    return {
        n
        for n, d in ctx.desired.devices.items()
        if d.host is not None and d.host.gpudirect is not None and ctx.selects(n)
    }


def _hosts(ctx: CheckContext, paths: bool = False) -> Iterator[tuple[Device, GpuDirect, HostObserved]]:
    """The GPU hosts to judge: observed (their facts read: the subject keeps only the hosts whose collector read
    the check's ``reads``), with the GPU-NIC paths when ``paths`` (an empty ``nvidia-smi topo -m``: not read)."""
    for name, seen in sorted(ctx.snapshot.hosts.items()):
        dev = ctx.desired.devices.get(name)
        if name not in ctx.subject.devices or (paths and not seen.gpu_nic_paths):
            continue
        if dev is not None and dev.host is not None and dev.host.gpudirect is not None:
            yield dev, dev.host.gpudirect, seen


def _no_hosts(ctx: CheckContext, paths: bool = False) -> str | None:
    if any(True for _ in _hosts(ctx, paths)):
        return None
    return not_judged(_gpu_hosts(ctx), "not observed") or "no observed GPU host with GPUDirect in the snapshot"


def _unread(ctx: CheckContext, paths: bool = False) -> str | None:
    """The note naming the GPU hosts that were not read (the runner names those whose fields were not)."""
    judged = {dev.name for dev, _, _ in _hosts(ctx, paths)}
    left = {n for n in _gpu_hosts(ctx) - judged if n in ctx.subject.devices or n not in ctx.snapshot.observed_fields}
    return not_judged(left, "GPU-NIC paths (nvidia-smi topo -m) not observed" if paths else "host not observed")


@register
class PeerMem(Check):
    """nvidia-peermem not loaded: NCCL falls back to staging through host memory (no GPUDirect RDMA)."""

    class Params(CheckParams):
        modules: tuple[str, ...] = ("nvidia_peermem", "nv_peer_mem")  # any of these

    id = "gpudirect.peermem"
    tags = ("hosts",)
    reads = ("host.gpudirect.nvidia_peermem",)
    title = "GPU hosts have the nvidia-peermem module loaded"
    needs = frozenset({"observed"})
    hint = "modprobe nvidia-peermem (and load it at boot)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        wanted = ctx.params_as(self.Params).modules
        self.note = _unread(ctx)
        for dev, gd, seen in _hosts(ctx):
            if gd.nvidia_peermem and not set(wanted) & set(seen.modules):
                yield Finding(dev.name, "nvidia-peermem", "module not loaded", " or ".join(wanted), "not in lsmod")


@register
class AcsDisabled(Check):
    """ACS source validation/redirect on a PCIe bridge: GPU-NIC peer traffic is redirected to the root
    complex, GPUDirect RDMA slows down or hangs (NCCL's IBV_WC_LOC_PROT_ERR hint)."""

    id = "gpudirect.acs"
    tags = ("hosts",)
    reads = ("host.gpudirect.acs_disabled",)
    title = "ACS disabled on the PCIe bridges of GPU hosts"
    needs = frozenset({"observed"})
    hint = "disable ACS in the BIOS (VT-d / IO virtualization) or per bridge with setpci ECAP_ACS+0x6.w=0000"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        self.note = _unread(ctx)
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
    tags = ("hosts",)
    title = "Each GPU's rail NIC is PIX or PXB (nvidia-smi topo -m)"
    needs = frozenset({"observed"})
    hint = "seat the NIC under the GPU's PCIe switch, or map the GPU to the NIC that is (NCCL_IB_HCA order)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        return _no_hosts(ctx, paths=True)

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        allowed = ctx.params_as(self.Params).allowed
        self.note = _unread(ctx, paths=True)
        for dev, gd, seen in _hosts(ctx, paths=True):
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
