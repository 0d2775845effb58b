"""The ConnectX NIC's own scheduler and receive buffers as ``mlnx_qos`` shows them (reference/lossless.md §4.1, §6)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xoff.contracts.observed import NicQos
from xoff.desired.models import Device, HostNic
from xoff.validate.checks.common import roce_networks
from xoff.validate.checks.rdma import compute_nics
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding, Severity
from xoff.validate.registry import Check, register


def qos_nics(ctx: CheckContext) -> Iterator[tuple[Device, HostNic, NicQos]]:
    """Intended RoCE NICs whose ``mlnx_qos`` was read."""
    roce = roce_networks(ctx.desired)
    for name, seen in sorted(ctx.snapshot.hosts.items()):
        dev = ctx.desired.devices.get(name)
        if dev is None:
            continue
        for nic in compute_nics(dev, roce):
            if nic.netdev in seen.nic_qos:
                yield dev, nic, seen.nic_qos[nic.netdev]


def _tc_problem(qos: NicQos, priority: int, min_bw: int) -> tuple[str, str] | None:
    """(problem, actual) when the priority's TC gets less than ``min_bw`` percent of ETS; None: fine or not shown."""
    tc = (qos.priority_to_tc or {}).get(priority)
    if tc is None or qos.tc_tsa is None:
        return None
    tsa = qos.tc_tsa.get(tc)
    bandwidth = (qos.tc_bandwidth or {}).get(tc)  # None: not printed, not judged (never 0)
    if tsa == "ets" and bandwidth is not None and bandwidth < min_bw:
        return f"on TC{tc}, which ETS starves", f"TC{tc} ets {bandwidth}%"
    return None


def _buffer_problem(qos: NicQos, priority: int, lossless: list[int]) -> tuple[str, str] | None:
    """(problem, actual) when the lossless priority's receive buffer is shared with a lossy one or has no size."""
    if qos.priority_to_buffer is None or priority not in qos.priority_to_buffer:
        return None
    buffer = qos.priority_to_buffer[priority]
    lossy = [p for p, b in sorted(qos.priority_to_buffer.items()) if b == buffer and p not in lossless]
    if lossy:
        return f"shares receive buffer {buffer} with lossy priorities", f"buffer {buffer}: priorities {lossy}"
    if qos.buffer_sizes is not None and buffer < len(qos.buffer_sizes) and qos.buffer_sizes[buffer] == 0:
        return f"on receive buffer {buffer}, which has no size", f"buffer {buffer}: 0 bytes"
    return None


def _judgeable(qos: NicQos) -> bool:
    """mlnx_qos showed what the check judges: ETS (priority -> TC, TSA, bandwidth) or the receive buffer map."""
    ets = None not in (qos.priority_to_tc, qos.tc_tsa, qos.tc_bandwidth)
    return ets or qos.priority_to_buffer is not None


@register
class NicLosslessTc(Check):
    """The NIC's own egress scheduler and receive buffers for the lossless class. A lossless or CNP priority
    mapped to a traffic class that ETS gives 0% (``mlnx_qos --tcbw``) is starved whenever other classes have
    traffic: the NIC's RoCE or its CNPs stall behind bulk traffic, and DCQCN reacts late. A lossless priority
    whose receive buffer (``--prio2buffer``) is shared with lossy priorities, or has no size, cannot be paused
    on its own: the NIC's PFC xoff for it fires on lossy traffic too, or never has headroom to absorb the
    in-flight bytes. Not judged: a TC in ``vendor`` or ``strict`` mode (the firmware default, and NVIDIA's
    CNP profile, §2), or a field this mlnx_qos release does not print."""

    class Params(CheckParams):
        min_bandwidth: int = 1  # percent of ETS a lossless or CNP traffic class must get

    id = "nic_qos.lossless_tc"
    tags = ("hosts", "lossless")
    title = "The NIC schedules the lossless and CNP priorities (ETS > 0%) and buffers lossless on its own"
    needs = frozenset({"observed"})
    hint = "mlnx_qos -i <netdev> --tcbw (bandwidth for the lossless TC) --prio2buffer (lossless on its own buffer)"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not any(_judgeable(qos) for _, _, qos in qos_nics(ctx)):
            return "no RoCE NIC's mlnx_qos was observed (ETS: priority -> TC, TSA and bandwidth; or prio2buffer)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        min_bw = ctx.params_as(self.Params).min_bandwidth
        for dev, nic, qos in qos_nics(ctx):
            lossless = ctx.desired.networks[nic.network].lossless_priorities
            cnp = [nic.cnp_priority] if nic.cnp_priority is not None and nic.cnp_priority not in lossless else []
            for priority in [*lossless, *cnp]:
                kind = "lossless" if priority in lossless else "CNP"
                problems = [_tc_problem(qos, priority, min_bw)]
                if priority in lossless:
                    problems.append(_buffer_problem(qos, priority, lossless))
                for found in problems:
                    if found is not None:
                        yield Finding(
                            dev.name,
                            f"{nic.netdev} priority {priority}",
                            f"{kind} priority {found[0]}",
                            "a TC with ETS bandwidth, a receive buffer of its own",
                            found[1],
                            port=nic.netdev,
                            priority=priority,
                        )


@register
class NicCableLength(Check):
    """The NIC sizes the xoff headroom of its lossless receive buffers for ``Cable len`` (``mlnx_qos
    --cable_len``, 7 m by default). A cable longer than that (the intent's link length to the leaf) leaves
    more bytes in flight after the NIC's PAUSE than the headroom holds: the NIC drops lossless traffic it has
    paused (reference §6 rule 4: cable length is an input of headroom; Cumulus: a wrong cable length causes
    drops or waste). A longer setting than the cable only wastes buffer, and is not reported."""

    id = "nic_qos.cable_length"
    tags = ("hosts", "lossless")
    title = "The NIC's cable length (mlnx_qos) covers the host link's length in the intent"
    severity = Severity.WARNING
    needs = frozenset({"observed"})
    hint = "mlnx_qos -i <netdev> --cable_len <the link's length in metres>"

    def _judged(self, ctx: CheckContext) -> Iterator[tuple[Device, HostNic, int, int]]:
        for dev, nic, qos in qos_nics(ctx):
            link = dev.interfaces.get(nic.netdev)
            if qos.cable_length_m is not None and link is not None and link.cable_m is not None:
                yield dev, nic, qos.cable_length_m, link.cable_m

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if any(True for _ in self._judged(ctx)):
            return None
        return "no RoCE NIC's cable length was observed (mlnx_qos) for a link whose length the intent gives"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for dev, nic, nic_m, link_m in self._judged(ctx):
            if nic_m < link_m:
                yield Finding(
                    dev.name,
                    f"{nic.netdev} cable length",
                    "NIC headroom is sized for a shorter cable than the link",
                    f">= {link_m} m",
                    f"{nic_m} m",
                    port=nic.netdev,
                    hint=f"mlnx_qos -i {nic.netdev} --cable_len {link_m}",
                )
