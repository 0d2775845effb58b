"""Switch fault classes: QoS maps, PFC, ECN, buffers and headroom, the CNP scheduler, the PFC watchdog, MTU,
seeded through the switch's own CLI (SONiC ``config apply-patch``, in ``seed_sonic``; SONiC ``config``; EOS
``configure``; NVUE ``nv set``). The steps first, then the registry entries that name them.
"""

from __future__ import annotations

from xoff.lab import seed_sonic as sonic
from xoff.lab.seed_steps import DRIFT, Fault, Lab, Step, Target, port_of, priority_of

_SN = "sonic"


def _sonic_mtu(lab: Lab, t: Target) -> None:
    lab.run(t.device, f"sudo config interface mtu {port_of(t)} 9000")


def _sonic_mtu_undo(lab: Lab, t: Target) -> None:
    port = port_of(t)
    lab.run(
        t.device, f"sudo config interface mtu {port} {lab.connection.fabric.devices[t.device].interfaces[port].mtu}"
    )


def _eos_pfc(no: bool) -> Step:
    def step(lab: Lab, t: Target) -> None:
        command = (
            f"no priority-flow-control priority {priority_of(t)}"
            if no
            else f"priority-flow-control priority {priority_of(t)} no-drop"
        )
        lab.type_in(t.device, ["enable", "configure", f"interface {port_of(t)}", command, "end"])

    return step


def _nvue(template: str) -> Step:
    def step(lab: Lab, t: Target) -> None:
        lab.run(t.device, f"nv set {template.format(port=t.port, tc=priority_of(t, 4))} && nv config apply -y")

    return step


# --- the registry entries (seed.py assembles them) ---------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        "pfc-off-one-end",
        "PFC off on one end of a link",
        "EOS `configure`, `interface E`, `no priority-flow-control priority 3`",
        "lossless.pfc_symmetry",
        Target("spine2", "Ethernet1/1", 3),
        "eos",
        _eos_pfc(True),
        _eos_pfc(False),
        also=(DRIFT,),
        why_also="the running PFC differs from the intent",
        peers=("leaf1",),
    ),
    Fault(
        "dscp-map-one-hop",
        "DSCP map differs on one hop",
        "SONiC `config apply-patch`: DSCP_TO_TC_MAP 26 -> 0",
        "lossless.qos_mapping",
        Target("leaf2", None, 3),
        _SN,
        *sonic.patch_fault("dscp", sonic.dscp_map),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running map differs from the intent",
    ),
    Fault(
        "ecn-off",
        "ECN disabled on a lossless queue",
        "NVUE `nv set qos congestion-control default-global traffic-class 4 ecn disable && nv config apply -y`",
        "lossless.ecn_on_lossless_queues",
        Target("sleaf1", None, 4),
        "cumulus",
        _nvue("qos congestion-control default-global traffic-class {tc} ecn disable"),
        _nvue("qos congestion-control default-global traffic-class {tc} ecn enable"),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running ECN differs from the intent",
    ),
    Fault(
        "ecn-min-ge-max",
        "ECN min >= max",
        "SONiC `config apply-patch`: WRED_PROFILE min = max",
        "lossless.ecn_on_lossless_queues",
        Target("spine1", None, 3),
        _SN,
        *sonic.patch_fault("ecnmin", sonic.ecn_min_eq_max),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running thresholds differ from the intent",
    ),
    Fault(
        "ecn-max-above-trigger",
        "ECN max above the PFC trigger point",
        "SONiC `config apply-patch`: WRED_PROFILE max = the pool size",
        "lossless.ecn_on_lossless_queues",
        Target("leaf1", None, 3),
        _SN,
        *sonic.patch_fault("ecnmax", sonic.ecn_max_high),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running thresholds differ from the intent",
    ),
    Fault(
        "headroom-short",
        "Headroom too small for the cable",
        "SONiC `config apply-patch`: the port's lossless PG on a profile with a quarter of the xoff",
        "lossless.headroom",
        Target("leaf2", "Ethernet8", 3),
        _SN,
        *sonic.patch_fault("headroom", sonic.headroom_short),
        also=(DRIFT,),
        why_also="the running buffer profile differs",
    ),
    Fault(
        "headroom-over-pool",
        "A port's lossless PGs reserve more than the pool can give",
        "SONiC `config apply-patch`: the port's lossless PG on a profile sized for a 2 km cable "
        "(xoff = the ingress lossless pool)",
        "lossless.headroom",
        Target("leaf2", "Ethernet16"),  # the port-total finding names no priority; PG 3 by default
        _SN,
        *sonic.patch_fault("hrtotal", sonic.headroom_over_pool),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running buffer profile differs",
        mentions=("exceeds the limit",),
    ),
    Fault(
        "lossless-class-limit",
        "More lossless classes than the ASIC supports",
        "SONiC `config apply-patch`: PFC on priorities 2,3,4 on the spare port Ethernet48 (no cable), the "
        "watchdog on 2,3,4 on every port (Spectrum-4: 2 lossless classes)",
        "lossless.class_limit",
        Target("leaf1", None, 4),
        _SN,
        *sonic.patch_fault("classes", sonic.lossless_classes),
        names=("device", "priority"),
        also=("lossless.qos_mapping", DRIFT),
        why_also="the switch's lossless priorities differ from the rest of the fabric's; the running PFC "
        "differs from the intent",
    ),
    Fault(
        "cnp-dwrr",
        "CNP class not strict (warning)",
        "SONiC `config apply-patch`: the CNP queue's SCHEDULER DWRR",
        "lossless.cnp_strict",
        Target("spine1", None, 6),
        _SN,
        *sonic.patch_fault("cnp", sonic.cnp_dwrr),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running scheduler differs",
        warning=True,
    ),
    Fault(
        "watchdog-off-port",
        "PFC watchdog off on a port",
        "SONiC `config apply-patch`: remove PFC_WD|<port> (what `pfcwd stop <port>` leaves)",
        "lossless.pfc_watchdog",
        Target("leaf1", "Ethernet16"),
        _SN,
        *sonic.patch_fault("wdoff", sonic.watchdog_stop),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        "watchdog-off-nvue",
        "PFC watchdog off on a port (NVUE)",
        "NVUE `nv set interface swp2 qos pfc-watchdog state disable && nv config apply -y`",
        "lossless.pfc_watchdog",
        Target("sleaf1", "swp2"),
        "cumulus",
        _nvue("interface {port} qos pfc-watchdog state disable"),
        _nvue("interface {port} qos pfc-watchdog state enable"),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        "watchdog-action-forward",
        "PFC watchdog action not drop",
        "SONiC `config apply-patch`: PFC_WD action forward on every port",
        "lossless.pfc_watchdog",
        Target("leaf2"),
        _SN,
        *sonic.patch_fault("wdfwd", sonic.watchdog_forward),
        names=("device",),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        "mtu-mismatch",
        "MTU mismatch across a link",
        "SONiC `sudo config interface mtu Ethernet32 9000`",
        "lossless.link_mtu",
        Target("leaf1", "Ethernet32"),
        _SN,
        _sonic_mtu,
        _sonic_mtu_undo,
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running MTU differs",
        peers=("spine1",),
    ),
)
