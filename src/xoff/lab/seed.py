"""Named fault classes, seeded into a running lab the way an operator's mistake happens.

Each fault goes through the device's own interface over the lab's SSH: SONiC ``sudo config ...`` /
``config apply-patch``, EOS ``configure`` (a shell without a terminal, as ``ssh -T switch < file``),
NVUE ``nv set ... && nv config apply -y``, FRR ``vtysh``, the host's NIC tools (``mlnx_qos``,
``cma_roce_tos``, ``ip link``, ``modprobe``), an edited file on the host. Where nothing but the
hardware can make the fault (a PCIe re-seat, a BIOS reset, a counter the ASIC raises, a cable
re-plugged), the lab changes the state behind the tool that shows it: the NIC shims' state, the
SONiC, EOS and Cumulus emulators' counters, the veths. ``undo`` reverses exactly what ``seed`` did, by the same means.

The registry (``FAULTS``) is what ``xoff lab fault``, the lab fault-injection suite and the table in
docs/faults.md are made from: per fault, the check id that must catch it, the checks that rightly
fail with it (``also``, with why), and what its findings must name. Its entries live by area, each
beside its steps (``AREAS``); a new fault class is one entry in its area's module plus its step.
"""

from __future__ import annotations

from xoff.lab import seed_counters, seed_host, seed_ib, seed_nic, seed_routing, seed_switch
from xoff.lab.seed_steps import Fault, Lab, SeedError, Target

__all__ = ["FAULTS", "Fault", "Lab", "SeedError", "Target", "fault", "seed", "undo"]

AREAS: tuple[tuple[Fault, ...], ...] = (
    seed_switch.FAULTS,  # QoS maps, PFC, ECN, buffers, the CNP scheduler, the PFC watchdog, MTU
    seed_nic.FAULTS,  # a host NIC's QoS, DCQCN, MTU; NCCL_IB_TC
    seed_host.FAULTS,  # GPUDirect prerequisites, a rail's route and rule, the kernel command line
    seed_routing.FAULTS,  # cabling, BGP, the FIB
    seed_counters.FAULTS,  # what the ASIC raises: PFC storms, lossless drops
    seed_ib.FAULTS,  # InfiniBand (the ib-ring lab)
)

# The order docs/faults.md lists the fault classes in and the lab fault suite packs its rounds in (greedily,
# so the order decides the rounds): as it was when the registry was one list. A fault class not named here
# comes after these, in AREAS order.
ORDER = (
    "pfc-off-one-end",
    "dscp-map-one-hop",
    "nic-trust-pcp",
    "nic-pfc-vector",
    "nic-dscp2prio",
    "roce-tos-no-ect",
    "nccl-ib-tc",
    "ecn-off",
    "ecn-min-ge-max",
    "ecn-max-above-trigger",
    "headroom-short",
    "headroom-over-pool",
    "lossless-class-limit",
    "cnp-dwrr",
    "watchdog-off-port",
    "watchdog-off-nvue",
    "watchdog-action-forward",
    "mtu-mismatch",
    "host-mtu-low",
    "cable-swap",
    "link-down",
    "bgp-shutdown",
    "bgp-wrong-asn",
    "peermem-unloaded",
    "acs-enabled",
    "gpu-nic-far",
    "nic-ecn-np-off",
    "nic-cnp-dscp",
    "nic-rail-gateway",
    "host-rule-missing",
    "iommu-translated",
    "pfc-storm",
    "lossless-drops",
    "pfc-storm-eos",
    "lossless-drops-eos",
    "pfc-storm-cumulus",
    "lossless-drops-cumulus",
    "fib-bounce",
    "ib-routing-minhop",
    "ib-vl-weight-zero",
    "ib-partition-drop",
    "ib-link-narrow",
    "ib-lft-hole",
)


def _registry(areas: tuple[tuple[Fault, ...], ...], order: tuple[str, ...]) -> dict[str, Fault]:
    """The areas' fault classes by name, in ``order`` then the rest; a name twice, or an ordered name no
    area has, is a mistake in the registry."""
    by_name: dict[str, Fault] = {}
    for f in (f for area in areas for f in area):
        if f.name in by_name:
            raise ValueError(f"fault class {f.name!r} is registered twice")
        by_name[f.name] = f
    missing = [name for name in order if name not in by_name]
    if missing:
        raise ValueError(f"ORDER names fault classes no area has: {', '.join(missing)}")
    return {name: by_name[name] for name in order} | {n: f for n, f in by_name.items() if n not in order}


FAULTS: dict[str, Fault] = _registry(AREAS, ORDER)


def fault(name: str) -> Fault:
    try:
        return FAULTS[name]
    except KeyError:
        raise KeyError(f"no fault class {name!r} (allowed: {', '.join(FAULTS)})") from None


def seed(lab: str | Lab, name: str, target: Target | None = None) -> tuple[Fault, Target]:
    """Seed fault ``name`` into the running lab (at ``target``, else the fault's lab-mini default)."""
    f = fault(name)
    running = lab if isinstance(lab, Lab) else Lab(lab)
    where = target or f.target
    _check_platform(running, f, where)
    f.seed(running, where)
    return f, where


def undo(lab: str | Lab, name: str, target: Target | None = None) -> None:
    f = fault(name)
    running = lab if isinstance(lab, Lab) else Lab(lab)
    where = target or f.target
    _check_platform(running, f, where)
    f.undo(running, where)


def _check_platform(lab: Lab, f: Fault, t: Target) -> None:
    dev = lab.connection.fabric.devices.get(t.device)
    if dev is None:
        raise SeedError(f"no device {t.device!r} in lab {lab.name}")
    platform = dev.platform
    if platform != f.platform:
        raise SeedError(f"{f.name} is seeded on {f.platform} devices; {t.device} is {platform}")
