"""Host NIC fault classes: the NIC's trust, PFC vector and DSCP map (``mlnx_qos``), its RoCE TOS
(``cma_roce_tos``), its DCQCN knobs (the ``ecn`` sysfs tree), its MTU (``ip link``), NCCL_IB_TC in the NCCL
environment file: run on the host as an operator does. The steps first, then the registry entries that
name them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xoff.lab.faults.errors import SeedError
from xoff.lab.faults.reach import Lab
from xoff.lab.faults.record import DRIFT, Concern, Fault, Step, Steps, Target, priority_of
from xoff.lab.shims._state import HostRoot


def host_command(command: str) -> Step:
    """``command`` run on the host, ``{port}``, ``{rdma}``, ``{device}`` filled from the target's NIC."""

    def step(lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        lab.run(t.device, command.format(port=nic.netdev, rdma=nic.rdma, device=t.device))

    return step


def nic_of(lab: Lab, t: Target) -> Any:
    """The target's NIC in the intent: its port, else the host's first RoCE NIC."""
    host = lab.connection.fabric.devices[t.device].host
    if host is None:
        raise SeedError(f"{t.device}: not a host")
    port = t.port or next(n for n in host.nics.values() if n.roce_mode is not None).netdev
    if port not in host.nics:
        raise SeedError(f"{t.device}: no NIC {port}")
    return host.nics[port]


def _nic_tool(command: str) -> Steps:
    """A NIC tool run on the host; undone by putting the NIC's firmware/driver state back as it was
    (a tool's reverse call does not always restore it: ``--trust pcp`` drops the DSCP app entries)."""

    def seed(lab: Lab, t: Target) -> None:
        root = HostRoot(lab.device_dir(t.device) / "root")
        backup = Path(root.state_path).with_name("state.json.xoff-fault")
        with root.state() as state:
            backup.write_text(json.dumps(state), encoding="utf-8")
        nic = nic_of(lab, t)
        lab.run(t.device, command.format(port=nic.netdev, rdma=nic.rdma, prio=priority_of(t)))

    def undo(lab: Lab, t: Target) -> None:
        root = HostRoot(lab.device_dir(t.device) / "root")
        backup = Path(root.state_path).with_name("state.json.xoff-fault")
        if backup.exists():
            with root.state(write=True) as state:
                state.clear()
                state.update(json.loads(backup.read_text(encoding="utf-8")))
            backup.unlink()

    return Steps(seed=seed, undo=undo)


def _mtu_undo(lab: Lab, t: Target) -> None:
    nic = nic_of(lab, t)
    lab.run(t.device, f"ip link set {nic.netdev} mtu {nic.mtu}")


NCCL_FILE = '"${XOFF_HOST_ROOT:-}/etc/xoff/nccl.env"'


def _nccl_tc(value: Callable[[Lab, Target], str]) -> Step:
    def step(lab: Lab, t: Target) -> None:
        lab.run(t.device, f"sed -i 's/^NCCL_IB_TC=.*/NCCL_IB_TC={value(lab, t)}/' {NCCL_FILE}")

    return step


def _nccl_right(lab: Lab, t: Target) -> str:
    host = lab.connection.fabric.devices[t.device].host
    assert host is not None
    return host.nccl_env["NCCL_IB_TC"]


def _cable_undo(lab: Lab, t: Target) -> None:
    nic = nic_of(lab, t)
    link = lab.connection.fabric.devices[t.device].interfaces.get(nic.netdev)
    metres = link.cable_m if link is not None and link.cable_m is not None else 7  # 7: the firmware default
    lab.run(t.device, f"mlnx_qos -i {nic.netdev} --cable_len {metres}")


def _nccl_gid(value: Callable[[Lab, Target], str]) -> Step:
    def step(lab: Lab, t: Target) -> None:
        lab.run(t.device, f"sed -i 's/^NCCL_IB_GID_INDEX=.*/NCCL_IB_GID_INDEX={value(lab, t)}/' {NCCL_FILE}")

    return step


def _nccl_gid_right(lab: Lab, t: Target) -> str:
    host = lab.connection.fabric.devices[t.device].host
    assert host is not None
    return host.nccl_env["NCCL_IB_GID_INDEX"]


def _nic_sysfs(name: str, value: Callable[[Any, int], int]) -> Step:
    """``echo VALUE > /sys/class/net/<netdev>/ecn/<name>`` on the host, as an operator tunes DCQCN by hand
    (``{prio}`` in ``name`` is the target's priority, else the NIC's first lossless one; ``value(nic, prio)``
    is what is written). The file must exist: a NIC without the MLNX_OFED ecn tree cannot take the fault."""

    def step(lab: Lab, t: Target) -> None:
        nic = nic_of(lab, t)
        prio = priority_of(t, nic.ecn_np_priorities[0] if nic.ecn_np_priorities else 3)
        path = f'"${{XOFF_HOST_ROOT:-}}/sys/class/net/{nic.netdev}/ecn/{name.format(prio=prio)}"'
        lab.run(t.device, f"test -f {path} && echo {value(nic, prio)} > {path}")

    return step


def _cnp_dscp_intended(nic: Any, _prio: int) -> int:
    if nic.cnp_dscp is None:
        raise SeedError(f"{nic.netdev}: the intent sets no CNP DSCP")
    return int(nic.cnp_dscp)


# --- the fault records (catalogue.py orders them) -----------------------------------------------------


FAULTS: tuple[Fault, ...] = (
    Fault(
        name="nic-trust-pcp",
        title="NIC trusts PCP",
        how="host `mlnx_qos -i eth0 --trust pcp`",
        check="lossless.nic_trust_pfc",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu1", "eth0"),
        platform="linux",
        steps=_nic_tool("mlnx_qos -i {port} --trust pcp"),
        names=("device", "port"),
        also=("lossless.qos_mapping", DRIFT),
        why_also="a NIC trusting PCP classifies no DSCP (qos_mapping names the RoCE and CNP DSCPs); "
        "the NIC's trust differs from the intent",
    ),
    Fault(
        name="nic-pfc-vector",
        title="NIC PFC vector differs from the switches'",
        how="host `mlnx_qos -i eth1 --pfc 0,0,0,0,0,0,0,0` (the firmware default)",
        check="lossless.nic_trust_pfc",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu2", "eth1", 3),
        platform="linux",
        steps=_nic_tool("mlnx_qos -i {port} --pfc 0,0,0,0,0,0,0,0"),
        also=("lossless.pfc_symmetry", DRIFT, "nic_qos.lossless_tc"),
        why_also="the NIC is one end of a host link (pfc_symmetry covers "
        "host links); the running PFC differs from the intent; with PFC off the NIC maps the lossless priority "
        "back to the shared receive buffer 0 (nic_qos.lossless_tc)",
        peers=("leaf2",),
    ),
    Fault(
        name="nic-dscp2prio",
        title="DSCP map differs on a host NIC",
        how="host `mlnx_qos -i eth1 --dscp2prio set,26,0`",
        check="lossless.qos_mapping",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu3", "eth1", 3),
        platform="linux",
        steps=_nic_tool("mlnx_qos -i {port} --dscp2prio set,26,0"),
        also=(DRIFT,),
        why_also="the NIC's map differs from the intent",
    ),
    Fault(
        name="roce-tos-no-ect",
        title="RoCE TOS without ECT",
        how="host `cma_roce_tos -d mlx5_0 -t 104` (DSCP 26, Not-ECT)",
        check="lossless.roce_tos",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu3", "eth0", 3),
        platform="linux",
        steps=_nic_tool("cma_roce_tos -d {rdma} -t 104"),
        also=(DRIFT,),
        why_also="the running TOS differs from the intent",
    ),
    Fault(
        name="nccl-ib-tc",
        title="NCCL_IB_TC wrong",
        how="host: `sed -i` NCCL_IB_TC=0 in /etc/xoff/nccl.env",
        check="lossless.roce_tos",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu4", None, 3),
        platform="linux",
        steps=Steps(seed=_nccl_tc(lambda _l, _t: "0"), undo=_nccl_tc(_nccl_right)),
        names=("device", "priority"),
        also=(DRIFT,),
        why_also="the NCCL environment differs from the intent",
    ),
    Fault(
        name="host-mtu-low",
        title="Host MTU < 4192",
        how="host `ip link set eth1 mtu 1500`",
        check="lossless.host_mtu",
        concern=Concern.MTU,
        target=Target("gpu1", "eth1"),
        platform="linux",
        steps=Steps(seed=host_command("ip link set {port} mtu 1500"), undo=_mtu_undo),
        names=("device", "port"),
        also=(DRIFT,),
        why_also="the running MTU differs",
    ),
    Fault(
        name="nic-ecn-np-off",
        title="ECN notification point off on a host NIC's lossless priority (no CNPs)",
        how="host `echo 0 > /sys/class/net/eth0/ecn/roce_np/enable/3`",
        check="lossless.nic_dcqcn",
        concern=Concern.DCQCN,
        target=Target("gpu1", "eth0", 3),
        platform="linux",
        steps=Steps(
            seed=_nic_sysfs("roce_np/enable/{prio}", lambda _n, _p: 0),
            undo=_nic_sysfs("roce_np/enable/{prio}", lambda n, p: int(p in n.ecn_np_priorities)),
        ),
        also=(DRIFT,),
        why_also="the NIC's NP priorities differ from the intent",
        mentions=("notification point",),
    ),
    Fault(
        name="nic-cnp-dscp",
        title="Wrong CNP DSCP on a host NIC",
        how="host `echo 26 > /sys/class/net/eth1/ecn/roce_np/cnp_dscp` (CNPs in the RoCE data class, not the CNP class)",
        check="lossless.nic_dcqcn",
        concern=Concern.DCQCN,
        target=Target("gpu2", "eth1", 6),
        platform="linux",
        steps=Steps(
            seed=_nic_sysfs("roce_np/cnp_dscp", lambda _n, _p: 26),
            undo=_nic_sysfs("roce_np/cnp_dscp", _cnp_dscp_intended),
        ),
        also=(DRIFT,),
        why_also="the NIC's CNP DSCP differs from the intent",
        mentions=("CNPs sent with DSCP 26",),
    ),
    Fault(
        name="nic-ets-starves-lossless",
        title="NIC ETS gives the lossless traffic class 0%",
        how="host `mlnx_qos -i eth0 --tsa ets,ets,ets,ets,ets,ets,ets,ets --tcbw 100,0,0,0,0,0,0,0` (all bandwidth "
        "to TC0: the RoCE TC3 and the CNP TC6 are starved whenever TC0 has traffic)",
        check="nic_qos.lossless_tc",
        concern=Concern.CONGESTION,
        target=Target("gpu2", "eth0", 3),
        platform="linux",
        steps=_nic_tool("mlnx_qos -i {port} --tsa ets,ets,ets,ets,ets,ets,ets,ets --tcbw 100,0,0,0,0,0,0,0"),
        catalog="default",
        mentions=("which ETS starves",),
    ),
    Fault(
        name="nic-cable-short",
        title="NIC headroom sized for a shorter cable than the host link",
        how="host `mlnx_qos -i eth1 --cable_len 1` (the link is 5 m in the intent)",
        check="nic_qos.cable_length",
        concern=Concern.CONGESTION,
        target=Target("gpu4", "eth1"),
        platform="linux",
        steps=Steps(seed=host_command("mlnx_qos -i {port} --cable_len 1"), undo=_cable_undo),
        names=("device", "port"),
        catalog="default",
        warning=True,
    ),
    Fault(
        name="nccl-gid-index-pinned",
        title="NCCL_IB_GID_INDEX pinned to an index that is not the NIC's RoCE v2 IPv4 GID",
        how="host: `sed -i` NCCL_IB_GID_INDEX=5 in /etc/xoff/nccl.env (copied from a host whose RoCE v2 IPv4 "
        "GID sits at index 5; here it is at 3)",
        check="rdma.gid_index",
        concern=Concern.CLASSIFICATION,
        target=Target("gpu3", "eth0"),
        platform="linux",
        steps=Steps(seed=_nccl_gid(lambda _l, _t: "5"), undo=_nccl_gid(_nccl_gid_right)),
        names=("device", "port"),
        catalog="default",
        also=(DRIFT,),
        why_also="the NCCL environment differs from the intent",
        mentions=("not the RoCE v2 IPv4 GID",),
    ),
)
