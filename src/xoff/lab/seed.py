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
fail with it (``also``, with why), and what its findings must name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xoff.lab import fib_bounce, seed_ib
from xoff.lab.seed_steps import (
    Lab,
    Seed,
    SeedError,
    Target,
    Undo,
    _acs,
    _bgp_asn,
    _bgp_shutdown,
    _cnp_dscp_intended,
    _cnp_dwrr,
    _counters,
    _dscp_map,
    _ecn_max_high,
    _ecn_min_eq_max,
    _eos_pfc,
    _headroom,
    _headroom_over_pool,
    _host,
    _kernel_cmdline,
    _link,
    _lossless_classes,
    _mtu_undo,
    _nccl_right,
    _nccl_tc,
    _nic_sysfs,
    _nic_tool,
    _nvue,
    _rail_route,
    _rail_rule,
    _reseat,
    _shim_state,
    _sonic_mtu,
    _sonic_mtu_undo,
    _swap,
    _watchdog_forward,
    _watchdog_stop,
    cumulus_counters,
    eos_counters,
    sonic_fault,
)

__all__ = ["FAULTS", "Fault", "Lab", "SeedError", "Target", "fault", "seed", "undo"]

# --- the registry -------------------------------------------------------------------------------------


DRIFT = "drift.state"


@dataclass(frozen=True)
class Fault:
    """A fault class: how the lab seeds it, which check must catch it, what the finding names."""

    name: str
    title: str  # the fault class, as docs/faults.md names it
    how: str  # how the lab seeds it (what an operator or the hardware did)
    check: str  # the check id that must catch it
    target: Target  # where the suite seeds it on lab-mini
    platform: str  # the device platform the seeding speaks to
    seed: Seed
    undo: Undo
    names: tuple[str, ...] = ("device", "port", "priority")  # what the finding must name
    also: tuple[str, ...] = ()  # other checks that rightly fail on the same fault
    why_also: str = ""
    peers: tuple[str, ...] = ()  # other devices whose findings this fault causes (the link's far end)
    catalog: str = "audit"
    warning: bool = False  # the check's severity is warning: the gate stays open
    lab: str = "lab-mini"  # the intent whose lab the suite seeds it in (inventory/ or tests/fixtures/intents/)
    mentions: tuple[str, ...] = ()  # text some finding of the check must carry (the SL/VL, the credit loop)


def _f(*args: Any, **kwargs: Any) -> Fault:
    return Fault(*args, **kwargs)


_SN = "sonic"
_IB_LAB = "ib-ring"  # tests/fixtures/intents/ib-ring: minhop closes a credit loop on the ring, updn does not
FAULTS: dict[str, Fault] = {
    f.name: f
    for f in (
        _f(
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
        _f(
            "dscp-map-one-hop",
            "DSCP map differs on one hop",
            "SONiC `config apply-patch`: DSCP_TO_TC_MAP 26 -> 0",
            "lossless.qos_mapping",
            Target("leaf2", None, 3),
            _SN,
            *sonic_fault("dscp", _dscp_map),
            names=("device", "priority"),
            also=(DRIFT,),
            why_also="the running map differs from the intent",
        ),
        _f(
            "nic-trust-pcp",
            "NIC trusts PCP",
            "host `mlnx_qos -i eth0 --trust pcp`",
            "lossless.nic_trust_pfc",
            Target("gpu1", "eth0"),
            "linux",
            *_nic_tool("mlnx_qos -i {port} --trust pcp"),
            names=("device", "port"),
            also=("lossless.qos_mapping", DRIFT),
            why_also="a NIC trusting PCP classifies no DSCP (qos_mapping names the RoCE and CNP DSCPs); "
            "the NIC's trust differs from the intent",
        ),
        _f(
            "nic-pfc-vector",
            "NIC PFC vector differs from the switches'",
            "host `mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0` (the firmware default)",
            "lossless.nic_trust_pfc",
            Target("gpu2", "eth1", 3),
            "linux",
            *_nic_tool("mlnx_qos -i {port} --pfc 0,0,0,0,0,0,0,0"),
            also=("lossless.pfc_symmetry", DRIFT),
            why_also="the NIC is one end of a host link (pfc_symmetry covers "
            "host links); the running PFC differs from the intent",
            peers=("leaf2",),
        ),
        _f(
            "nic-dscp2prio",
            "DSCP map differs on a host NIC",
            "host `mlnx_qos -i eth1 --dscp2prio set,26,0`",
            "lossless.qos_mapping",
            Target("gpu3", "eth1", 3),
            "linux",
            *_nic_tool("mlnx_qos -i {port} --dscp2prio set,26,0"),
            also=(DRIFT,),
            why_also="the NIC's map differs from the intent",
        ),
        _f(
            "roce-tos-no-ect",
            "RoCE TOS without ECT",
            "host `cma_roce_tos -d mlx5_0 -t 104` (DSCP 26, Not-ECT)",
            "lossless.roce_tos",
            Target("gpu3", "eth0", 3),
            "linux",
            *_nic_tool("cma_roce_tos -d {rdma} -t 104"),
            also=(DRIFT,),
            why_also="the running TOS differs from the intent",
        ),
        _f(
            "nccl-ib-tc",
            "NCCL_IB_TC wrong",
            "host: `sed -i` NCCL_IB_TC=0 in /etc/xoff/nccl.env",
            "lossless.roce_tos",
            Target("gpu4", None, 3),
            "linux",
            _nccl_tc(lambda _l, _t: "0"),
            _nccl_tc(_nccl_right),
            names=("device", "priority"),
            also=(DRIFT,),
            why_also="the NCCL environment differs from the intent",
        ),
        _f(
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
        _f(
            "ecn-min-ge-max",
            "ECN min >= max",
            "SONiC `config apply-patch`: WRED_PROFILE min = max",
            "lossless.ecn_on_lossless_queues",
            Target("spine1", None, 3),
            _SN,
            *sonic_fault("ecnmin", _ecn_min_eq_max),
            names=("device", "priority"),
            also=(DRIFT,),
            why_also="the running thresholds differ from the intent",
        ),
        _f(
            "ecn-max-above-trigger",
            "ECN max above the PFC trigger point",
            "SONiC `config apply-patch`: WRED_PROFILE max = the pool size",
            "lossless.ecn_on_lossless_queues",
            Target("leaf1", None, 3),
            _SN,
            *sonic_fault("ecnmax", _ecn_max_high),
            names=("device", "priority"),
            also=(DRIFT,),
            why_also="the running thresholds differ from the intent",
        ),
        _f(
            "headroom-short",
            "Headroom too small for the cable",
            "SONiC `config apply-patch`: the port's lossless PG on a profile with a quarter of the xoff",
            "lossless.headroom",
            Target("leaf2", "Ethernet8", 3),
            _SN,
            *sonic_fault("headroom", _headroom),
            also=(DRIFT,),
            why_also="the running buffer profile differs",
        ),
        _f(
            "headroom-over-pool",
            "A port's lossless PGs reserve more than the pool can give",
            "SONiC `config apply-patch`: the port's lossless PG on a profile sized for a 2 km cable "
            "(xoff = the ingress lossless pool)",
            "lossless.headroom",
            Target("leaf2", "Ethernet16"),  # the port-total finding names no priority; PG 3 by default
            _SN,
            *sonic_fault("hrtotal", _headroom_over_pool),
            names=("device", "port"),
            also=(DRIFT,),
            why_also="the running buffer profile differs",
            mentions=("exceeds the limit",),
        ),
        _f(
            "lossless-class-limit",
            "More lossless classes than the ASIC supports",
            "SONiC `config apply-patch`: PFC on priorities 2,3,4 on the spare port Ethernet48 (no cable), the "
            "watchdog on 2,3,4 on every port (Spectrum-4: 2 lossless classes)",
            "lossless.class_limit",
            Target("leaf1", None, 4),
            _SN,
            *sonic_fault("classes", _lossless_classes),
            names=("device", "priority"),
            also=("lossless.qos_mapping", DRIFT),
            why_also="the switch's lossless priorities differ from the rest of the fabric's; the running PFC "
            "differs from the intent",
        ),
        _f(
            "cnp-dwrr",
            "CNP class not strict (warning)",
            "SONiC `config apply-patch`: the CNP queue's SCHEDULER DWRR",
            "lossless.cnp_strict",
            Target("spine1", None, 6),
            _SN,
            *sonic_fault("cnp", _cnp_dwrr),
            names=("device", "priority"),
            also=(DRIFT,),
            why_also="the running scheduler differs",
            warning=True,
        ),
        _f(
            "watchdog-off-port",
            "PFC watchdog off on a port",
            "SONiC `config apply-patch`: remove PFC_WD|<port> (what `pfcwd stop <port>` leaves)",
            "lossless.pfc_watchdog",
            Target("leaf1", "Ethernet16"),
            _SN,
            *sonic_fault("wdoff", _watchdog_stop),
            names=("device", "port"),
            also=(DRIFT,),
            why_also="the running watchdog differs",
        ),
        _f(
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
        _f(
            "watchdog-action-forward",
            "PFC watchdog action not drop",
            "SONiC `config apply-patch`: PFC_WD action forward on every port",
            "lossless.pfc_watchdog",
            Target("leaf2"),
            _SN,
            *sonic_fault("wdfwd", _watchdog_forward),
            names=("device",),
            also=(DRIFT,),
            why_also="the running watchdog differs",
        ),
        _f(
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
        _f(
            "host-mtu-low",
            "Host MTU < 4192",
            "host `ip link set eth1 mtu 1500`",
            "lossless.host_mtu",
            Target("gpu1", "eth1"),
            "linux",
            _host("ip link set {port} mtu 1500"),
            _mtu_undo,
            names=("device", "port"),
            also=(DRIFT,),
            why_also="the running MTU differs",
        ),
        _f(
            "cable-swap",
            "Cabling swapped",
            "two cables re-plugged into each other's ports (the veth ends in the switch swap names)",
            "cabling.lldp",
            Target("leaf2", "Ethernet0"),
            _SN,
            _swap(False),
            _swap(True),
            names=("device", "port"),
        ),
        _f(
            "link-down",
            "Link down",
            "a cable pulled (`ip link set <port> down` on the switch's veth end)",
            "cabling.lldp",
            Target("leaf2", "Ethernet24"),
            _SN,
            _link(False),
            _link(True),
            names=("device", "port"),
        ),
        _f(
            "bgp-shutdown",
            "BGP session down",
            "FRR `vtysh`: `neighbor <spine> shutdown`",
            "bgp.sessions",
            Target("leaf1", "Ethernet40"),
            _SN,
            _bgp_shutdown(False),
            _bgp_shutdown(True),
            names=("device", "port"),
            peers=("spine2",),
        ),
        _f(
            "bgp-wrong-asn",
            "BGP neighbour with the wrong ASN",
            "FRR `vtysh`: `neighbor <spine> remote-as 65999`",
            "bgp.sessions",
            Target("leaf2", "Ethernet32"),
            _SN,
            _bgp_asn(True),
            _bgp_asn(False),
            names=("device", "port"),
            peers=("spine1",),
        ),
        _f(
            "peermem-unloaded",
            "nvidia-peermem unloaded",
            "host `modprobe -r nvidia_peermem`",
            "gpudirect.peermem",
            Target("gpu2"),
            "linux",
            _host("modprobe -r nvidia_peermem"),
            _host("modprobe nvidia_peermem"),
            names=("device",),
            also=(DRIFT,),
            why_also="the observed GPUDirect prerequisite differs",
        ),
        _f(
            "acs-enabled",
            "ACS enabled on the GPU-NIC path",
            "BIOS reset: ACSCtl on every bridge in the PCI config space (the shims' state; `lspci -vvv` shows it)",
            "gpudirect.acs",
            Target("gpu3"),
            "linux",
            _shim_state(_acs(True)),
            _shim_state(_acs(False)),
            names=("device",),
            also=(DRIFT,),
            why_also="the observed GPUDirect prerequisite differs",
        ),
        _f(
            "gpu-nic-far",
            "GPU-NIC path not PIX/PXB",
            "the rail NIC re-seated under the other socket (the shims' PCI topology; `nvidia-smi topo -m` shows SYS)",
            "gpudirect.topology",
            Target("gpu4", "eth0"),
            "linux",
            _shim_state(_reseat(True)),
            _shim_state(_reseat(False)),
            names=("device", "port"),
        ),
        _f(
            "nic-ecn-np-off",
            "ECN notification point off on a host NIC's lossless priority (no CNPs)",
            "host `echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/3`",
            "lossless.nic_dcqcn",
            Target("gpu1", "eth0", 3),  # the NIC's lossless priority
            "linux",
            _nic_sysfs("roce_np/enable/{prio}", lambda _n, _p: 0),
            _nic_sysfs("roce_np/enable/{prio}", lambda n, p: int(p in n.ecn_np_priorities)),
            also=(DRIFT,),
            why_also="the NIC's NP priorities differ from the intent",
            mentions=("notification point",),
        ),
        _f(
            "nic-cnp-dscp",
            "Wrong CNP DSCP on a host NIC",
            "host `echo 26 > /sys/class/net/eth1/ecn/roce_np/cnp_dscp` (CNPs in the RoCE data class, not the CNP "
            "class)",
            "lossless.nic_dcqcn",
            Target("gpu2", "eth1", 6),  # the CNP class's priority, which the finding names
            "linux",
            _nic_sysfs("roce_np/cnp_dscp", lambda _n, _p: 26),
            _nic_sysfs("roce_np/cnp_dscp", _cnp_dscp_intended),
            also=(DRIFT,),
            why_also="the NIC's CNP DSCP differs from the intent",
            mentions=("CNPs sent with DSCP 26",),
        ),
        _f(
            "nic-rail-gateway",
            "A rail's route via another rail's gateway",
            "host `ip route replace <loopbacks> via <rail 0's gateway> dev eth1 table 101 onlink`",
            DRIFT,
            Target("gpu1", "eth1"),
            "linux",
            _rail_route(True),
            _rail_route(False),
            names=("device", "port"),
            mentions=("host.nics.eth1.gateway",),
        ),
        _f(
            "host-rule-missing",
            "A rail's policy rule missing on a host (its traffic leaves by the main table)",
            "host `ip rule del from <eth0's address>/32 table 100 priority 1000`",
            DRIFT,
            Target("gpu3"),  # its first RoCE NIC, eth0; the drift path names the rule by its source, not a port
            "linux",
            _rail_rule(True),
            _rail_rule(False),
            names=("device",),
            mentions=("host.rules.",),
        ),
        _f(
            "iommu-translated",
            "IOMMU translates GPU/NIC DMA (no iommu=pt)",
            "a reboot without `iommu=pt` on the kernel command line (the lab edits /proc/cmdline under the "
            "host's state root)",
            DRIFT,
            Target("gpu4"),
            "linux",
            _kernel_cmdline(True),
            _kernel_cmdline(False),
            names=("device",),
            mentions=("host.gpudirect.iommu",),
        ),
        _f(
            "pfc-storm",
            "PFC pause storm",
            "the watchdog's storm counters in the SONiC emulator (`show pfcwd stats`)",
            "counters.pfc_storms",
            Target("spine1", "Ethernet8", 3),
            _SN,
            *_counters("storm"),
        ),
        _f(
            "lossless-drops",
            "Drops on a lossless queue",
            "queue drop counters in the SONiC emulator (`show queue counters`)",
            "counters.lossless_drops",
            Target("leaf1", "Ethernet24", 3),
            _SN,
            *_counters("drops"),
        ),
        _f(
            "pfc-storm-eos",
            "PFC pause storm (EOS)",
            "the watchdog's storm counters in the EOS emulator (`show priority-flow-control counters watchdog`)",
            "counters.pfc_storms",
            Target("spine2", "Ethernet1/1", 3),
            "eos",
            *eos_counters("storm"),
        ),
        _f(
            "lossless-drops-eos",
            "Drops on a lossless queue (EOS)",
            "queue drop counters in the EOS emulator (`show interfaces counters queue detail`)",
            "counters.lossless_drops",
            Target("spine2", "Ethernet2/1", 3),
            "eos",
            *eos_counters("drops"),
        ),
        _f(
            "pfc-storm-cumulus",
            "PFC pause storm (Cumulus)",
            "the PFC watchdog's deadlock count in the Cumulus emulator (`nv show interface <swp> qos pfc-watchdog`)",
            "counters.pfc_storms",
            Target("sleaf1", "swp1", 4),
            "cumulus",
            *cumulus_counters("storm"),
        ),
        _f(
            "lossless-drops-cumulus",
            "Drops on a lossless queue (Cumulus)",
            "egress queue discards in the Cumulus emulator (`nv show interface <swp> counters qos`)",
            "counters.lossless_drops",
            Target("sleaf1", "swp3", 4),
            "cumulus",
            *cumulus_counters("drops"),
        ),
        _f(
            "fib-bounce",
            "Static host routes that bounce (PFC deadlock risk)",
            "FRR `vtysh`: `ip route <own host>/32 <spine>` on two leaves, towards different spines",
            "deadlock.cbd",
            Target("leaf1", None, 3),
            _SN,
            fib_bounce.seed,
            fib_bounce.undo,
            names=("device", "priority"),
            peers=("leaf2",),  # the second leaf gets the other /32
        ),
        _f(
            "ib-routing-minhop",
            "InfiniBand routing engine not deadlock-free for the topology",
            "SM host: opensm.conf `routing_engine minhop` (no `no_fallback`) on the ring, OpenSM restarted",
            "infiniband.routing_deadlock_free",
            Target("sm01"),
            "linux",
            *seed_ib.engine("minhop"),
            names=("device",),
            lab=_IB_LAB,
            mentions=("credit loop", "VL 0"),
        ),
        _f(
            "ib-vl-weight-zero",
            "Used SL on a VL with arbitration weight 0",
            "SM host: opensm.conf `qos_swe_vlarb_low 0:0,1:64` (switch ports: the SL's VL0 at weight 0), `kill -HUP`",
            "infiniband.sl_vl_weight",
            Target("ibsw2", "5"),
            "infiniband",
            seed_ib.vl_weight_seed,
            seed_ib.vl_weight_undo,
            names=("device", "port"),
            lab=_IB_LAB,
            mentions=("SL0 -> VL0",),
        ),
        _f(
            "ib-partition-drop",
            "Host dropped from its job partition",
            "SM host: the host's line commented out of partitions.conf, `kill -HUP` (OpenSM re-reads it and sweeps)",
            "infiniband.partitions",
            Target("gpu3", "ib0"),
            "linux",
            seed_ib.partition_drop_seed,
            seed_ib.partition_drop_undo,
            names=("device", "port"),
            lab=_IB_LAB,
            mentions=("jobs",),
        ),
        _f(
            "ib-link-narrow",
            "InfiniBand link trained at reduced width",
            "SM host: `ibportstate <switch LID> 5 width 1` (LinkWidthEnabled 1X: the link retrains 1X, "
            "as with a failed lane)",
            "infiniband.link_width_speed",
            Target("ibsw3", "5"),
            "infiniband",
            seed_ib.narrow_seed,
            seed_ib.narrow_undo,
            names=("device", "port"),
            peers=("ibsw4",),
            lab=_IB_LAB,
            mentions=("1X",),
        ),
        _f(
            "ib-lft-hole",
            "A switch's LFT has no route to a host",
            "SM host: routes pinned from a `dump_fts` file lacking ibsw4's entry for one host "
            "(opensm.conf `routing_engine file`, `lfts_file`), OpenSM restarted",
            "infiniband.lft_routes",
            Target("ibsw4"),
            "infiniband",
            seed_ib.lft_hole_seed,
            seed_ib.lft_hole_undo,
            names=("device",),
            also=("infiniband.routing_deadlock_free",),
            why_also="OpenSM now routes with the `file` engine, which the intent does not list",
            lab=_IB_LAB,
            mentions=("no working route to gpu1 ib0",),
        ),
    )
}


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
