"""Switch fault classes: QoS maps, PFC, ECN, buffers and headroom, the CNP scheduler, the PFC watchdog, MTU,
seeded through the switch's own CLI (SONiC ``config apply-patch``, in ``sonic_patch``; SONiC ``config``; EOS
``configure``; NVUE ``nv set``). The steps first, then the fault records that name them.
"""

from __future__ import annotations

from xoff.lab.faults import sonic_patch as sonic
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import DRIFT, Concern, Fault, Step, Steps, Target, port_of, priority_of

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


# --- the fault records (catalogue.py orders them) -----------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="pfc-off-one-end",
        title="PFC off on one end of a link",
        how="EOS `configure`, `interface E`, `no priority-flow-control priority 3`",
        check="lossless.pfc_symmetry",
        concern=Concern.CLASSIFICATION,
        target=Target("spine2", "Ethernet1/1", 3),
        platform="eos",
        steps=Steps(seed=_eos_pfc(True), undo=_eos_pfc(False)),
        also=(DRIFT,),
        why_also="the running PFC differs from the intent",
        peers=("leaf1",),
    ),
    Fault(
        name="dscp-map-one-hop",
        title="DSCP map differs on one hop",
        how="SONiC `config apply-patch`: DSCP_TO_TC_MAP 26 -> 0",
        check="lossless.qos_mapping",
        concern=Concern.CLASSIFICATION,
        target=Target("leaf2", None, 3),
        platform=_SN,
        steps=sonic.patch_fault("dscp", sonic.dscp_map),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running map differs from the intent",
    ),
    Fault(
        name="ecn-off",
        title="ECN disabled on a lossless queue",
        how="NVUE `nv set qos congestion-control default-global traffic-class 4 ecn disable && nv config apply -y`",
        check="lossless.ecn_on_lossless_queues",
        concern=Concern.CONGESTION,
        target=Target("sleaf1", None, 4),
        platform="cumulus",
        steps=Steps(
            seed=_nvue("qos congestion-control default-global traffic-class {tc} ecn disable"),
            undo=_nvue("qos congestion-control default-global traffic-class {tc} ecn enable"),
        ),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running ECN differs from the intent",
    ),
    Fault(
        name="ecn-min-ge-max",
        title="ECN min >= max",
        how="SONiC `config apply-patch`: WRED_PROFILE min = max",
        check="lossless.ecn_on_lossless_queues",
        concern=Concern.CONGESTION,
        target=Target("spine1", None, 3),
        platform=_SN,
        steps=sonic.patch_fault("ecnmin", sonic.ecn_min_eq_max),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running thresholds differ from the intent",
    ),
    Fault(
        name="ecn-max-above-trigger",
        title="ECN max above the PFC trigger point",
        how="SONiC `config apply-patch`: WRED_PROFILE max = the pool size",
        check="lossless.ecn_on_lossless_queues",
        concern=Concern.CONGESTION,
        target=Target("leaf1", None, 3),
        platform=_SN,
        steps=sonic.patch_fault("ecnmax", sonic.ecn_max_high),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running thresholds differ from the intent",
    ),
    Fault(
        name="headroom-short",
        title="Headroom too small for the cable",
        how="SONiC `config apply-patch`: the port's lossless PG on a profile with a quarter of the xoff",
        check="lossless.headroom",
        concern=Concern.CONGESTION,
        target=Target("leaf2", "Ethernet8", 3),
        platform=_SN,
        steps=sonic.patch_fault("headroom", sonic.headroom_short),
        also=(DRIFT,),
        why_also="the running buffer profile differs",
    ),
    Fault(
        name="headroom-over-pool",
        title="A port's lossless PGs reserve more than the pool can give",
        how="SONiC `config apply-patch`: the port's lossless PG on a profile sized for a 2 km cable "
        "(xoff = the ingress lossless pool)",
        check="lossless.headroom",
        concern=Concern.CONGESTION,
        target=Target("leaf2", "Ethernet16"),
        platform=_SN,
        steps=sonic.patch_fault("hrtotal", sonic.headroom_over_pool),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running buffer profile differs",
        mentions=("exceeds the limit",),
    ),
    Fault(
        name="lossless-class-limit",
        title="More lossless classes than the ASIC supports",
        how="SONiC `config apply-patch`: PFC on priorities 2,3,4 on the spare port Ethernet48 (no cable), the "
        "watchdog on 2,3,4 on every port (Spectrum-4: 2 lossless classes)",
        check="lossless.class_limit",
        concern=Concern.CONGESTION,
        target=Target("leaf1", None, 4),
        platform=_SN,
        steps=sonic.patch_fault("classes", sonic.lossless_classes),
        names=("device", "priority"),
        also=("lossless.qos_mapping", DRIFT),
        why_also="the switch's lossless priorities differ from the rest of the fabric's; the running PFC "
        "differs from the intent",
    ),
    Fault(
        name="cnp-dwrr",
        title="CNP class not strict (warning)",
        how="SONiC `config apply-patch`: the CNP queue's SCHEDULER DWRR",
        check="lossless.cnp_strict",
        concern=Concern.CONGESTION,
        target=Target("spine1", None, 6),
        platform=_SN,
        steps=sonic.patch_fault("cnp", sonic.cnp_dwrr),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the running scheduler differs",
        warning=True,
    ),
    Fault(
        name="watchdog-off-port",
        title="PFC watchdog off on a port",
        how="SONiC `config apply-patch`: remove PFC_WD|<port> (what `pfcwd stop <port>` leaves)",
        check="lossless.pfc_watchdog",
        concern=Concern.CONGESTION,
        target=Target("leaf1", "Ethernet16"),
        platform=_SN,
        steps=sonic.patch_fault("wdoff", sonic.watchdog_stop),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        name="watchdog-off-nvue",
        title="PFC watchdog off on a port (NVUE)",
        how="NVUE `nv set interface swp2 qos pfc-watchdog state disable && nv config apply -y`",
        check="lossless.pfc_watchdog",
        concern=Concern.CONGESTION,
        target=Target("sleaf1", "swp2"),
        platform="cumulus",
        steps=Steps(
            seed=_nvue("interface {port} qos pfc-watchdog state disable"),
            undo=_nvue("interface {port} qos pfc-watchdog state enable"),
        ),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        name="watchdog-action-forward",
        title="PFC watchdog action not drop",
        how="SONiC `config apply-patch`: PFC_WD action forward on every port",
        check="lossless.pfc_watchdog",
        concern=Concern.CONGESTION,
        target=Target("leaf2"),
        platform=_SN,
        steps=sonic.patch_fault("wdfwd", sonic.watchdog_forward),
        names=("device",),
        also=(DRIFT,),
        why_also="the running watchdog differs",
    ),
    Fault(
        name="mtu-mismatch",
        title="MTU mismatch across a link",
        how="SONiC `sudo config interface mtu Ethernet32 9000`",
        check="lossless.link_mtu",
        concern=Concern.MTU,
        target=Target("leaf1", "Ethernet32"),
        platform=_SN,
        steps=Steps(seed=_sonic_mtu, undo=_sonic_mtu_undo),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running MTU differs",
        peers=("spine1",),
    ),
    Fault(
        name="watchdog-action-one-port",
        title="PFC watchdog action differs on one port",
        how="SONiC `config apply-patch`: PFC_WD action forward on one port, drop on the others",
        check=DRIFT,
        concern=Concern.CONGESTION,
        target=Target("leaf1", "Ethernet8"),
        platform=_SN,
        steps=sonic.patch_fault("wdfwd1", sonic.watchdog_forward_one_port),
        names=("device", "port"),
    ),
)
