"""The rendered host script (``xoff render`` of lab-mini gpu1) against the NIC tool shims, as on a lab host:
the script runs inside a network namespace this test creates, with veth rails named like gpu1's NICs
(real ``ip``), the shims first on PATH and the host's state root in XOFF_HOST_ROOT, both from
``install()``. First run applies, second run reports 0 changes, ``--check`` exits 0; drift made with the
tools themselves is found, fixed, and a verified-only finding clears when an operator fixes it. An
InfiniBand-only host and a GPU-less storage server converge too.

Addresses live only inside the namespace (lab-mini's 198.18.0.0/15 rails); the namespace is deleted in
the fixture's teardown.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.support.host_sandbox import Run
from tests.support.rail_netns import GPU1_IP_STEPS, ip, rail_namespace
from tests.support.shim_host import INVENTORY, ShimHost
from xoff.cli import app

pytestmark = pytest.mark.lab

IP_STEPS = GPU1_IP_STEPS


@pytest.fixture
def make_netns() -> Iterator[Callable[[list[str]], str]]:
    """Namespaces with a veth per rail (named like the host's NICs, the peer up for carrier), deleted after."""
    with ExitStack() as stack:

        def make(netdevs: list[str]) -> str:
            return stack.enter_context(rail_namespace(f"xofftest-shims-{os.getpid()}-{next(counter)}", netdevs))

        counter = itertools.count()
        yield make


def render_script(tmp_path: Path, example: str, device: str) -> Path:
    out = tmp_path / "render"
    rendered = CliRunner().invoke(app, ["render", str(INVENTORY / example), "-o", str(out), "-d", device])
    assert rendered.exit_code == 0, rendered.output
    return out / device / "xoff-host-apply.sh"


def runner(host: ShimHost, netns: str, script: Path) -> Callable[..., Run]:
    """Run the script as a lab host's SSH session does: in the namespace, shims first on PATH, the root set."""

    def run(*args: str) -> Run:
        env = {**host.env(), "XOFF_HOST_ROOT": str(host.root)}
        cmd = [
            "ip",
            "netns",
            "exec",
            netns,
            "env",
            "-i",
            *(f"{k}={v}" for k, v in env.items()),
            "bash",
            str(script),
            *args,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


def test_rendered_script_converges_on_the_shims(tmp_path: Path, make_netns: Callable[[list[str]], str]) -> None:
    script = render_script(tmp_path, "lab-mini", "gpu1")
    host = ShimHost(tmp_path / "gpu1")
    settings = host.device.host
    assert settings is not None
    netns = make_netns(["eth0", "eth1", "eth2"])
    run = runner(host, netns, script)
    host.ok("cma_roce_mode", "-d", "mlx5_0", "-m", "1")  # someone left RDMA-CM on RoCE v1 on one rail

    first = run()
    assert (first.rc, first.stderr) == (0, ""), first
    dscp = [c for c in first.changed if " dscp " in c]
    assert [c for c in first.changed if " dscp " not in c] == [
        *IP_STEPS,
        "eth0 trust pcp -> dscp",
        "eth0 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0",
        "eth0 cable_len 7 -> 5",  # mlnx_qos's default 7 m; lab-mini's host_leaf cables are 5 m
        "eth1 trust pcp -> dscp",
        "eth1 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0",
        "eth1 cable_len 7 -> 5",  # mlnx_qos's default 7 m; lab-mini's host_leaf cables are 5 m
        "eth2 trust pcp -> dscp",
        "eth2 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,0,1,0,0,0",
        "eth2 cable_len 7 -> 5",  # mlnx_qos's default 7 m; lab-mini's host_leaf cables are 5 m
        "mlx5_0 port 1 roce_mode IB/RoCE v1 -> RoCE v2",
        "mlx5_0 port 1 roce_tos 0 -> 106",
        "mlx5_0 tc/1 traffic_class unset -> 106",
        "mlx5_1 port 1 roce_tos 0 -> 106",
        "mlx5_1 tc/1 traffic_class unset -> 106",
        "mlx5_2 port 1 roce_tos 0 -> 74",
        "mlx5_2 tc/1 traffic_class unset -> 74",
        "eth0 ecn roce_np priority 3 0 -> 1",
        "eth0 ecn roce_rp priority 3 0 -> 1",
        "eth1 ecn roce_np priority 3 0 -> 1",
        "eth1 ecn roce_rp priority 3 0 -> 1",
        "eth2 ecn roce_np priority 4 0 -> 1",
        "eth2 ecn roce_rp priority 4 0 -> 1",
        "/etc/xoff/nccl.env (new)",
    ], first
    # --trust dscp installs the firmware map (DSCP >> 3); the script then moves every DSCP that differs
    assert len(dscp) == sum(1 for n in settings.nics.values() for d in range(64) if d >> 3 != n.dscp_to_priority[d])
    assert first.stdout.splitlines()[-1] == f"xoff-host-apply: {len(first.changed)} changes"

    # what the kernel, the NIC tools and the sysfs knobs now hold
    state = host.state()
    for name, nic in settings.nics.items():
        assert f" mtu {nic.mtu} " in ip("-n", netns, "-o", "link", "show", "dev", name)
        assert f"inet {nic.address} " in ip("-n", netns, "-o", "-4", "addr", "show", "dev", name)
        dcb = state["dcb"][name]
        assert {dscp: prio for _, prio, dscp in dcb["apps"]} == nic.dscp_to_priority
        assert [(dcb["pfc_en"] >> p) & 1 for p in range(8)] == nic.pfc
        assert state["rdma_cm"][nic.rdma]["ports"]["1"] == {
            "default_roce_mode": "RoCE v2",
            "default_roce_tos": nic.roce_tos,
        }
        assert (
            host.file(f"/sys/class/infiniband/{nic.rdma}/tc/1/traffic_class").read_text()
            == f"Global tclass={nic.roce_tos}\n"
        )
        for p in nic.ecn_np_priorities:
            assert host.file(f"/sys/class/net/{name}/ecn/roce_np/enable/{p}").read_text() == "1\n"
    assert host.file("/etc/xoff/nccl.env").read_text() == (tmp_path / "render" / "gpu1" / "nccl.env").read_text()

    second = run()
    assert (second.rc, second.stdout, second.stderr) == (0, "xoff-host-apply: 0 changes\n", ""), second
    check = run("--check")
    assert (check.rc, check.stdout) == (0, "xoff-host-apply --check: 0 differences (0 to change, 0 problems)\n"), check

    # drift made with the tools: PFC off on the storage rail, nvidia-peermem unloaded
    host.ok("mlnx_qos", "-i", "eth2", "--pfc", "0,0,0,0,0,0,0,0")
    host.ok("modprobe", "-r", "nvidia_peermem")
    peermem = "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)"
    drift = run("--check")
    assert (drift.rc, drift.would) == (1, ["eth2 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,0,1,0,0,0"]), drift
    assert peermem in drift.stdout.splitlines()
    fix = run()
    assert (fix.rc, fix.changed) == (1, ["eth2 pfc 0,0,0,0,0,0,0,0 -> 0,0,0,0,1,0,0,0"]), fix  # 1: a problem remains
    host.ok("modprobe", "nvidia-peermem")  # what the finding tells the operator to do
    assert run("--check").rc == 0


@pytest.mark.parametrize(("example", "device"), [("ib-pod", "sm01"), ("roce-pod", "fs01")])
def test_other_host_shapes_converge(
    tmp_path: Path, make_netns: Callable[[list[str]], str], example: str, device: str
) -> None:
    """An InfiniBand-only subnet-manager host (no Ethernet QoS, no GPUs) and a GPU-less storage server."""
    script = render_script(tmp_path, example, device)
    host = ShimHost(tmp_path / device, example, device)
    assert host.device.host is not None
    run = runner(host, make_netns([n.netdev for n in host.device.host.nics.values() if n.roce_mode]), script)
    first = run()
    assert (first.rc, first.stderr) == (0, "") and first.changed, first
    assert run().stdout == "xoff-host-apply: 0 changes\n"
    assert run("--check").rc == 0
