"""RoCEv2 GIDs on the hosts and the GID index NCCL uses (reference/lossless.md §4.3, §4.4)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.contracts.observed import HostObserved, RoceGid
from xoff.desired.models import Device, HostNic
from xoff.validate.checks.common import not_judged, roce_networks
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.coverage import lacking
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register

NCCL_ENV = "host.nccl_env"
AUTO = ("", "-1")  # NCCL_IB_GID_INDEX unset or -1: NCCL chooses


def compute_nics(dev: Device, roce: set[str]) -> list[HostNic]:
    """The host's RDMA NICs on a RoCE network, by netdev."""
    if dev.host is None:
        return []
    return [n for _, n in sorted(dev.host.nics.items()) if n.network in roce and n.rdma is not None]


def gid_hosts(ctx: CheckContext) -> Iterator[tuple[Device, HostObserved, list[RoceGid]]]:
    """Intended RoCE hosts whose GID table was read (a host without ``show_gids`` output is not judged)."""
    roce = roce_networks(ctx.desired)
    for name, seen in sorted(ctx.snapshot.hosts.items()):
        dev = ctx.desired.devices.get(name)
        if dev is not None and compute_nics(dev, roce) and seen.gids is not None:
            yield dev, seen, seen.gids


def _routable(gids: list[RoceGid], nic: HostNic) -> list[RoceGid]:
    """The NIC's RoCE v2 GIDs for its IPv4 address (port 1)."""
    address = (nic.address or "").split("/")[0]
    return [g for g in gids if g.rdma == nic.rdma and g.port == 1 and g.version == "v2" and g.ipv4 == address]


def _shown(gids: list[RoceGid], rdma: str | None) -> str:
    mine = [f"{g.index}:{g.version or '?'}{'/' + g.ipv4 if g.ipv4 else ''}" for g in gids if g.rdma == rdma]
    return ", ".join(mine) or "no GID"


@register
class GidIndex(Check):
    """A RoCE NIC (compute or storage) without a RoCE v2 GID for its IPv4 address (the address is missing, or the kernel built
    only link-local or RoCE v1 entries): RoCEv2 traffic cannot be routed to it. Or an ``NCCL_IB_GID_INDEX``
    pinned to an index that is not that GID on every NIC: the RoCE v2 IPv4 GID sits at index 3 on one host,
    5 on another (an IPv6 address or a bond adds entries before it), and NCCL then sends RoCE v1 or link-local
    traffic, or fails to connect. Unset or -1 lets NCCL choose the RoCE v2 GID of ``NCCL_IB_ADDR_FAMILY`` per
    NIC itself: NCCL 2.21 and later (NVIDIA/nccl ``src/transport/net_ib``: ``IB_GID_INDEX`` defaults to -1;
    "Starting with NCCL 2.21, the GID index no longer needs to be specified manually", Juniper JVD AI data
    center, appendix "How to run NCCL tests using autoconfigured IPv6 address"); older NCCL uses index 0, the
    link-local RoCE v1 GID. ``nccl_auto_gid: false`` says the hosts run an NCCL older than 2.21."""

    class Params(CheckParams):
        nccl_auto_gid: bool = True  # the NCCL in use selects the GID itself (2.21 and later)

    id = "rdma.gid_index"
    tags = ("hosts",)
    title = "Every RoCE NIC has a RoCE v2 IPv4 GID, and NCCL_IB_GID_INDEX selects it (or is left to NCCL)"
    needs = frozenset({"observed"})
    # no ``reads``: the GID table (``Snapshot.hosts``) is judged on every host that showed it; the pinned index
    # only where the host's NCCL environment (``host.nccl_env``) was read, the others are named
    hint = "unset NCCL_IB_GID_INDEX (NCCL 2.21+ picks the RoCE v2 GID) or pin the index show_gids shows on every host"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if any(True for _ in gid_hosts(ctx)):
            return None
        return "no RoCE host's GID table was observed (show_gids)"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        auto = ctx.params_as(self.Params).nccl_auto_gid
        roce = roce_networks(ctx.desired)
        unread = []
        for dev, _seen, gids in gid_hosts(ctx):
            observed = ctx.snapshot.observed.devices.get(dev.name)
            host = observed.host if observed is not None else None
            # the NCCL file as the host showed it; not read: the GIDs are still judged, the pinned index is not
            if host is None or lacking(ctx.snapshot, observed or dev, [NCCL_ENV]):
                unread.append(dev.name)
                pinned = None
            else:
                pinned = host.nccl_env.get("NCCL_IB_GID_INDEX", "")
            for nic in compute_nics(dev, roce):
                yield from _nic(dev, nic, gids, pinned, auto)
        self.note = not_judged(ctx.chosen(unread), f"NCCL_IB_GID_INDEX ({NCCL_ENV}) not observed, the GIDs judged")


def _nic(dev: Device, nic: HostNic, gids: list[RoceGid], pinned: str | None, auto: bool) -> Iterator[Finding]:
    routable = _routable(gids, nic)
    address = (nic.address or "none").split("/")[0]
    if not routable:
        yield Finding(
            dev.name,
            f"{nic.rdma} ({nic.netdev})",
            "no RoCE v2 GID for the NIC's IPv4 address",
            f"RoCE v2 ::ffff:{address}",
            _shown(gids, nic.rdma),
            port=nic.netdev,
            hint=f"ip addr add {nic.address} dev {nic.netdev} (the kernel adds its GIDs)",
        )
        return
    indexes = sorted(g.index for g in routable)
    if pinned is None or (pinned in AUTO and auto):
        return
    if pinned in AUTO:
        yield Finding(
            dev.name,
            f"NCCL_IB_GID_INDEX on {nic.rdma}",
            "unset, and NCCL before 2.21 then uses index 0 (link-local RoCE v1)",
            str(indexes[0]),
            pinned or "unset",
            port=nic.netdev,
        )
    elif not pinned.lstrip("-").isdigit() or int(pinned) not in indexes:
        at = next((g for g in gids if g.rdma == nic.rdma and str(g.index) == pinned), None)
        what = f"{at.version or '?'} {at.ipv4 or at.gid}" if at is not None else "no GID"
        yield Finding(
            dev.name,
            f"NCCL_IB_GID_INDEX on {nic.rdma}",
            f"selects {what}, not the RoCE v2 IPv4 GID",
            "/".join(str(i) for i in indexes),
            pinned,
            port=nic.netdev,
        )
