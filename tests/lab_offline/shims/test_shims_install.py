"""install(): one sh wrapper per tool that runs the shim module with the host's state root, and a
factory-fresh host under that root built from HostSettings (sysfs/procfs/configfs in the kernel's
formats, GPUDirect prerequisites as the intent wants them unless asked otherwise)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shim_host import ShimHost, fabric
from xoff.lab.shims import TOOLS, install

ALL = sorted(TOOLS)


def test_wrappers_run_the_shim_module_with_the_hosts_state_root(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    assert sorted(p.name for p in host.bin.iterdir()) == ALL
    for tool, module in TOOLS.items():
        wrapper = host.bin / tool
        assert wrapper.stat().st_mode & stat.S_IXUSR
        text = wrapper.read_text(encoding="utf-8")
        assert text.startswith("#!/bin/sh\n")
        assert f"XOFF_HOST_ROOT={host.root.resolve()}\n" in text
        assert f"exec {sys.executable} -S -c 'from xoff.lab.shims.{module} import cli; cli()' \"$@\"\n" in text
    # the wrapper sets the root itself: the caller's environment (host.env()) does not have to
    assert "XOFF_HOST_ROOT" not in host.env()
    assert host.run("cma_roce_mode", "-d", "mlx5_0").stdout == "RoCE v2\n"


def test_factory_fresh_gpu_host(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)  # lab-mini gpu1: eth0/eth1 compute rails (GPU 0/1), eth2 storage
    settings = host.device.host
    assert settings is not None
    for nic in settings.nics.values():
        assert host.file(f"/sys/class/infiniband/{nic.rdma}/ports/1/link_layer").read_text() == "Ethernet\n"
        assert host.file(f"/sys/class/infiniband/{nic.rdma}/tc/1/traffic_class").read_text() == ""
        assert host.file(f"/sys/class/infiniband/{nic.rdma}/device/net/{nic.netdev}").is_dir()
        ecn = host.file(f"/sys/class/net/{nic.netdev}/ecn")
        for prio in range(8):
            assert (ecn / "roce_np/enable" / str(prio)).read_text() == "0\n"
            assert (ecn / "roce_rp/enable" / str(prio)).read_text() == "0\n"
        assert (ecn / "roce_np/cnp_dscp").read_text() == "48\n"
        assert (ecn / "roce_np/cnp_802p_prio").read_text() == "6\n"
        assert (ecn / "roce_rp/rpg_ai_rate").read_text() == "5\n"
    assert host.file("/sys/kernel/config/rdma_cm").is_dir()
    assert " iommu=pt" in host.file("/proc/cmdline").read_text()
    assert host.file("/sys/class/iommu/dmar0").is_dir()
    assert host.file("/sys/module/nvidia_peermem").is_dir()
    assert host.file("/sys/module/nvidia_peermem/refcnt").read_text() == "0\n"
    assert host.file("/sys/module/ib_core/holders/nvidia_peermem").is_dir()
    assert "trust state: pcp" in host.ok("mlnx_qos", "-i", "eth0")
    assert host.ok("cma_roce_tos", "-d", "mlx5_2") == "0\n"
    st = host.state()
    assert [g["index"] for g in st["gpus"]] == [0, 1] and st["nvlinks"] == 18


def test_options_seed_a_host_that_misses_prerequisites(tmp_path: Path) -> None:
    host = ShimHost(tmp_path, nvidia_peermem=False, acs_enabled=True, iommu="translated")
    assert not host.file("/sys/module/nvidia_peermem").exists()
    assert "nvidia_peermem" not in host.ok("lsmod")
    cmdline = host.file("/proc/cmdline").read_text()
    assert "intel_iommu=on" in cmdline and "iommu=pt" not in cmdline
    acs = [line for line in host.ok("lspci", "-vvv").splitlines() if "ACSCtl:" in line]
    assert acs and all("SrcValid+" in line for line in acs)


def test_host_without_gpus_has_no_nvidia_tools(tmp_path: Path) -> None:
    host = ShimHost(tmp_path, "roce-pod", "fs01")
    assert sorted(p.name for p in host.bin.iterdir()) == [t for t in ALL if t != "nvidia-smi"]
    assert "nvidia" not in host.ok("lsmod")
    assert host.run("modprobe", "nvidia-peermem").stderr.startswith("modprobe: FATAL: Module nvidia-peermem not found")
    assert "iommu" not in host.file("/proc/cmdline").read_text()
    assert host.state()["gpus"] == []


def test_infiniband_hca(tmp_path: Path) -> None:
    host = ShimHost(tmp_path, "ib-pod", "sm01")
    assert host.file("/sys/class/infiniband/mlx5_0/ports/1/link_layer").read_text() == "InfiniBand\n"
    assert not host.file("/sys/class/infiniband/mlx5_0/tc").exists()
    assert not host.file("/sys/class/net/ib0/ecn").exists()
    assert host.ok("cma_roce_mode", "-d", "mlx5_0") == "IB/RoCE v1\n"
    assert "ib_ipoib" in host.ok("lsmod")
    assert "Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]" in host.ok("lspci")
    r = host.run("mlnx_qos", "-i", "ib0")  # an IPoIB netdev has no DCB
    assert r.rc == 1 and r.stdout.endswith("ETS features are not supported on your system\n"), r


def test_install_again_keeps_the_host_and_reset_starts_over(tmp_path: Path) -> None:
    host = ShimHost(tmp_path)
    host.ok("mlnx_qos", "-i", "eth0", "--trust", "dscp")
    install(host.bin, host.root, host.device)
    assert "trust state: dscp" in host.ok("mlnx_qos", "-i", "eth0")
    install(host.bin, host.root, host.device, reset=True)
    assert "trust state: pcp" in host.ok("mlnx_qos", "-i", "eth0")


def test_only_hosts_get_shims(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="spine1: not a host"):
        install(tmp_path / "bin", tmp_path / "root", fabric("lab-mini").devices["spine1"])
    assert not (tmp_path / "bin").exists()


def test_a_tool_outside_a_state_root_says_so(tmp_path: Path) -> None:
    host = ShimHost(tmp_path / "h")
    env = {**host.env(), "XOFF_HOST_ROOT": str(tmp_path / "nowhere")}
    proc = subprocess.run(
        [sys.executable, "-m", "xoff.lab.shims.lsmod"], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 255
    assert "is not a host state root" in proc.stderr


def test_a_shim_imports_little(tmp_path: Path) -> None:
    """Every shim call is a new interpreter: the tools a collect runs import none of the standard
    library modules that cost more than their work (pathlib, dataclasses, typing, contextlib, runpy)."""
    host = ShimHost(tmp_path)
    heavy = {"pathlib", "dataclasses", "typing", "contextlib", "runpy", "inspect"}
    probe = "import sys; {run}; print(' '.join(sorted(sys.modules)))"
    for tool, module in [("mlnx_qos", "mlnx_qos"), ("cma_roce_mode", "cma_roce_mode"), ("lsmod", "lsmod"),
                         ("lspci", "lspci"), ("nvidia-smi", "nvidia_smi")]:  # fmt: skip
        wrapper = (host.bin / tool).read_text(encoding="utf-8")
        code = probe.format(run=f"import xoff.lab.shims.{module}")
        env = {**host.env(), "PYTHONPATH": wrapper.split("PYTHONPATH=", 1)[1].split("\n", 1)[0]}
        done = subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True, check=True)
        assert not heavy & set(done.stdout.split()), (tool, sorted(heavy & set(done.stdout.split())))
