"""What must hold instead of DCQCN under the pfc-only and ecn-only congestion-control profiles (docs/designs.md)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.desired.models import FabricState, RoceAccl
from xoff.validate.checks.common import any_roce_networks, device_profile, lossless_queues, not_judged, profile_of
from xoff.validate.context import CheckContext
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


def _networks(desired: FabricState, pfc: bool, ecn: bool) -> set[str]:
    """The RoCE networks whose profile runs PFC and ECN as given."""
    out = set()
    for name in any_roce_networks(desired):
        cc = profile_of(desired, name)
        if cc is not None and cc.pfc == pfc and cc.ecn == ecn:
            out.add(name)
    return out


@register
class PfcOnlyNoEcn(Check):
    """A hop that still marks ECN on a lossless queue in a pfc-only network (Meta's design: PFC, no DCQCN,
    congestion left to the collective library's receiver-driven admission). With the NICs' DCQCN off no sender
    slows down for the marks, so a marking hop only signals the fabric is misconfigured; with DCQCN left on
    anywhere, that one hop cuts the rate of every flow crossing it. One hop is enough to fail."""

    id = "lossless.pfc_only_no_ecn"
    reads = ("qos.ecn", "qos.pfc_priority_to_queue", "qos.lossless_priorities")
    title = "pfc-only networks: no hop marks ECN on a lossless queue"
    hint = "remove ECN (WRED) from the lossless queues, or choose profile dcqcn"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not _networks(ctx.desired, pfc=True, ecn=False):
            return "no RoCE network runs PFC without ECN (congestion_control profile pfc-only or custom)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for dev in ctx.subject.devices.values():
            cc = device_profile(ctx.desired, dev.name)
            if dev.qos is None or cc is None or not cc.pfc or cc.ecn:
                continue
            for queue, prio in sorted(lossless_queues(dev.qos).items()):
                ecn = dev.qos.ecn.get(queue)
                if ecn is not None:
                    yield Finding(
                        dev.name,
                        f"queue {queue}",
                        f"marks ECN on a lossless queue under profile {cc.profile}",
                        "no ECN",
                        f"ECN {ecn.min_threshold}/{ecn.max_threshold} bytes",
                        priority=prio,
                    )


class _EcnOnly(Check):
    """A check of the networks that run ECN without PFC (lossy RoCE): skipped where there is none."""

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not _networks(ctx.desired, pfc=False, ecn=True):
            return "no RoCE network runs ECN without PFC (congestion_control profile ecn-only or custom)"
        return None


@register
class EcnOnlyNoPfc(_EcnOnly):
    """A port (switch or NIC) with PFC on any priority in an ecn-only network (lossy RoCE): the design reserves
    no headroom and runs no watchdog, so a pause there holds traffic the fabric never sized for, and spreads."""

    id = "lossless.ecn_only_no_pfc"
    reads = ("interfaces.*.pfc_priorities",)
    title = "ecn-only networks: PFC off on every priority of every switch port and NIC"
    hint = "disable PFC on the port (switch pfc_enable empty / mlnx_qos --pfc 0,0,0,0,0,0,0,0)"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        lossy = _networks(ctx.desired, pfc=False, ecn=True)
        for dev in ctx.subject.devices.values():
            for iface in dev.interfaces.values():
                if iface.network in lossy and iface.pfc_priorities:
                    yield Finding(
                        dev.name,
                        iface.name,
                        f"PFC on in ecn-only network {iface.network}",
                        "PFC off",
                        str(iface.pfc_priorities),
                        port=iface.name,
                        priority=min(iface.pfc_priorities),
                    )


@register
class EcnOnlyMarking(_EcnOnly):
    """A switch of an ecn-only network (lossy RoCE) with no ECN marking on the RoCE class's queue, or min >= max:
    with no PFC, ECN is the only brake, so the queue overflows and drops RoCE packets (go-back-N retransmits)."""

    id = "lossless.ecn_only_marking"
    reads = ("qos.ecn", "qos.dscp_to_tc", "qos.tc_to_queue")
    title = "ecn-only networks: ECN marking on the RoCE queue of every switch, min < max"
    hint = "enable ECN (WRED ecn_all) on the RoCE class's queue"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        lossy = _networks(ctx.desired, pfc=False, ecn=True)
        for dev in ctx.subject.devices.values():
            intended = ctx.desired.devices.get(dev.name)
            if dev.qos is None or intended is None or intended.network not in lossy:
                continue
            dscp = ctx.desired.networks[intended.network].roce_dscp
            if dscp is None or dscp not in dev.qos.dscp_to_tc:
                continue
            queue = dev.qos.tc_to_queue.get(dev.qos.dscp_to_tc[dscp], dev.qos.dscp_to_tc[dscp])
            ecn = dev.qos.ecn.get(queue)
            if ecn is None:
                yield Finding(dev.name, f"queue {queue}", f"RoCE queue (DSCP {dscp}) marks no ECN", "ECN on", "off")
            elif ecn.min_threshold >= ecn.max_threshold:
                yield Finding(
                    dev.name,
                    f"queue {queue}",
                    "ECN min >= max",
                    "min < max",
                    f"{ecn.min_threshold}/{ecn.max_threshold}",
                )


# The lossy-RoCE accelerations of a ConnectX NIC's ROCE_ACCL register (xoff.desired.builders.host.LOSSY_ROCE):
# adaptive retransmission and the TX window always, slow restart unless the NIC forces adaptive routing (NVIDIA's
# Spectrum-X settings turn it off there)
_ACCELERATIONS = {"adaptive_retransmission": "adaptive retransmission", "tx_window": "TX window"}


@register
class EcnOnlyNicAccelerations(_EcnOnly):
    """A RoCE NIC of an ecn-only network (lossy RoCE: no PFC) without the ConnectX lossy-RoCE accelerations on
    (``mlxreg --reg_name ROCE_ACCL``: ``roce_adp_retrans_en``, ``roce_tx_window_en``, ``roce_slow_restart_en``).
    Without PFC the fabric drops packets under congestion; without adaptive retransmission the NIC waits the
    full QP timeout before it resends, without the TX window it keeps sending past a loss, and without slow
    restart it resumes a flow that lost packets at full rate."""

    id = "lossless.ecn_only_nic_accelerations"
    reads = ("host.nics.*.roce_accl",)
    title = "ecn-only networks: the NICs' lossy-RoCE accelerations on (ROCE_ACCL)"
    hint = (
        "mlxreg -d <rdma> --reg_name ROCE_ACCL --set roce_adp_retrans_en=0x1,roce_tx_window_en=0x1,"
        "roce_slow_restart_en=0x1 --yes (xoff push sets it)"
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        lossy = _networks(ctx.desired, pfc=False, ecn=True)
        unread: set[str] = set()
        for dev in ctx.subject.devices.values():
            for nic in dev.host.nics.values() if dev.host is not None else []:
                if nic.network not in lossy or nic.roce_mode is None or nic.rdma is None:
                    continue
                yield from _accelerations(dev.name, nic.netdev, nic.roce_accl, unread)
        self.note = not_judged(ctx.chosen(unread), "the NIC's ROCE_ACCL register not read")


def _accelerations(device: str, netdev: str, accl: RoceAccl | None, unread: set[str]) -> Iterator[Finding]:
    if accl is None:
        yield Finding(device, netdev, "no lossy-RoCE accelerations", "on", "not set", port=netdev)
        return
    wanted = dict(_ACCELERATIONS)
    if not accl.adaptive_routing_forced:
        wanted["slow_restart"] = "slow restart"
    for attr, what in wanted.items():
        value = getattr(accl, attr)
        if value is None:
            unread.add(device)
        elif not value:
            yield Finding(device, netdev, f"{what} off (ROCE_ACCL)", "on", "off", port=netdev)
