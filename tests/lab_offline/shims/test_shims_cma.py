"""cma_roce_mode / cma_roce_tos shims: the mlnx-tools bash scripts' behaviour, quirks included (getopts
reports an unknown option and goes on, `[` reports a non-number with the script's line number, a value
the kernel refuses is bash's "write error" and still exit 0), and RDMA-CM's per-port state."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shim_host import ShimHost


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_show_and_set(host: ShimHost) -> None:
    assert host.ok("cma_roce_mode", "-d", "mlx5_0", "-p", "1") == "RoCE v2\n"  # the kernel's default
    assert host.ok("cma_roce_mode", "-d", "mlx5_0", "-m", "1") == "IB/RoCE v1\n"
    assert host.ok("cma_roce_mode", "-d", "mlx5_1") == "RoCE v2\n"  # per device
    assert host.ok("cma_roce_mode", "-dmlx5_0", "-m2") == "RoCE v2\n"  # getopts takes attached arguments
    assert host.ok("cma_roce_mode", "-d", "mlx5_0", "-m", "3") == "RoCE v2\n"  # neither 1 nor 2: ignored
    assert host.ok("cma_roce_tos") == "0\n"  # defaults: mlx5_0 port 1
    assert host.ok("cma_roce_tos", "-d", "mlx5_2", "-t", "74") == "74\n"
    assert host.ok("cma_roce_tos", "-d", "mlx5_2", "-t", "-1") == "74\n"  # negative: show only
    assert host.state()["rdma_cm"]["mlx5_2"]["ports"]["1"] == {"default_roce_mode": "RoCE v2", "default_roce_tos": 74}


def test_usage(host: ShimHost) -> None:
    text = host.ok("cma_roce_tos", "-h", "-t", "5")
    assert text.startswith("Set/Show RoCE default ToS of RDMA_CM applications\n\nUsage:\n\tcma_roce_tos OPTIONS\n")
    assert host.ok("cma_roce_tos") == "0\n"  # -h exits before anything is set


def test_bash_messages_name_the_invoked_path_and_the_script_line(host: ShimHost) -> None:
    me = str(host.bin / "cma_roce_mode")
    r = host.run("cma_roce_mode", "-x", "-d", "mlx5_0", "-m", "1")
    assert (r.rc, r.stdout, r.stderr) == (0, "IB/RoCE v1\n", f"{me}: illegal option -- x\n"), r
    r = host.run("cma_roce_mode", "-d", "mlx5_0", "-m", "two")
    assert (r.rc, r.stdout) == (0, "IB/RoCE v1\n"), r
    assert r.stderr == (
        f"{me}: line 108: [: two: integer expression expected\n{me}: line 110: [: two: integer expression expected\n"
    )
    r = host.run("cma_roce_mode", "-d")
    assert (r.rc, r.stdout, r.stderr) == (0, "IB/RoCE v1\n", f"{me}: option requires an argument -- d\n"), r
    tos = str(host.bin / "cma_roce_tos")
    r = host.run("cma_roce_tos", "-t", "")
    assert (r.rc, r.stdout, r.stderr) == (0, "0\n", f"{tos}: line 109: [: -ge: unary operator expected\n"), r


def test_values_the_kernel_refuses(host: ShimHost) -> None:
    tos = str(host.bin / "cma_roce_tos")
    r = host.run("cma_roce_tos", "-d", "mlx5_0", "-t", "256")  # kstrtou8: ERANGE; the script goes on
    assert (r.rc, r.stdout, r.stderr) == (
        0,
        "0\n",
        f"{tos}: line 110: echo: write error: Numerical result out of range\n",
    ), r
    ib = ShimHost(host.root.parent / "ib", "ib-pod", "sm01")
    mode = str(ib.bin / "cma_roce_mode")
    r = ib.run("cma_roce_mode", "-d", "mlx5_0", "-m", "2")  # an InfiniBand port has no RoCE v2 GIDs
    assert (r.rc, r.stdout, r.stderr) == (
        0,
        "IB/RoCE v1\n",
        f"{mode}: line 111: echo: write error: Invalid argument\n",
    ), r


def test_unknown_device_or_port(host: ShimHost) -> None:
    r = host.run("cma_roce_mode", "-d", "mlx5_9")
    assert (r.rc, r.stdout, r.stderr) == (1, "Failed to create configuration for mlx5_9\n",
                                          "mkdir: cannot create directory 'mlx5_9': No such device\n"), r  # fmt: skip
    r = host.run("cma_roce_tos", "-d", "mlx5_0", "-p", "2", "-t", "106")
    assert (r.rc, r.stdout, r.stderr) == (1, "Device mlx5_0 port 2 does not exist\n", ""), r
    assert host.ok("cma_roce_tos", "-d", "mlx5_0") == "0\n"


def test_without_rdma_cm_configfs(host: ShimHost) -> None:
    host.file("/sys/kernel/config/rdma_cm").rmdir()
    r = host.run("cma_roce_mode")
    assert (r.rc, r.stdout) == (1, "Module rdma_cm is not loaded or does not support configfs\n"), r
