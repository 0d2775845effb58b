"""lsmod / modprobe shims: /proc/modules in the kernel's format and lsmod's table over it, modprobe loading
and unloading installed modules with their dependencies (and /sys/module, which the host script checks),
and kmod's messages compared with the real kmod 30 (captured in tests/fixtures/host-tools/real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shim_host import FIXTURES, ShimHost, fixture

REAL = FIXTURES / "real"


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_lsmod_table(host: ShimHost) -> None:
    text = host.ok("lsmod")
    assert text == fixture("lsmod", "lab-mini-gpu1.stdout")
    assert text.splitlines()[0] == "Module                  Size  Used by"
    assert "nvidia_peermem         16384  0\n" in text  # as in public lsmod captures of GPUDirect hosts
    assert "ib_uverbs             200704  3 nvidia_peermem,rdma_ucm,mlx5_ib\n" in text
    proc = host.file("/proc/modules").read_text().splitlines()
    assert proc[0].startswith("nvidia_peermem 16384 0 - Live 0x") and proc[0].endswith(" (OE)")
    assert any(line.startswith("ib_uverbs 200704 3 nvidia_peermem,rdma_ucm,mlx5_ib, Live 0x") for line in proc)


def test_lsmod_refusals_match_the_real_one(host: ShimHost) -> None:
    r = host.run("lsmod", "foo")
    assert (r.rc, r.stdout, r.stderr) == (
        int((REAL / "lsmod-argument.rc").read_text()),
        "",
        (REAL / "lsmod-argument.stderr").read_text(),
    ), r
    host.file("/proc/modules").unlink()
    r = host.run("lsmod")
    assert r.rc == 1 and r.stderr.endswith("Error: could not get list of modules: No such file or directory\n"), r


def test_modprobe_unloads_and_loads_nvidia_peermem(host: ShimHost) -> None:
    assert host.run("modprobe", "-r", "nvidia_peermem") == type(host.run("lsmod"))(0, "", "")
    assert not host.file("/sys/module/nvidia_peermem").exists()
    assert "nvidia_peermem" not in host.ok("lsmod")
    assert "ib_uverbs             200704  2 rdma_ucm,mlx5_ib\n" in host.ok("lsmod")
    assert not host.file("/sys/module/ib_core/holders/nvidia_peermem").exists()
    assert (
        host.ok("modprobe", "-v", "nvidia-peermem")
        == "insmod /lib/modules/6.1.0-18-amd64/updates/dkms/nvidia-peermem.ko \n"
    )
    assert host.file("/sys/module/nvidia_peermem").is_dir()
    assert host.ok("lsmod") == fixture("lsmod", "lab-mini-gpu1.stdout")  # back to where it started
    assert host.ok("modprobe", "nvidia_peermem") == ""  # already loaded: nothing to do


def test_modprobe_loads_dependencies_first_and_removes_unused_ones(host: ShimHost) -> None:
    assert host.ok("modprobe", "-v", "-r", "rdma_ucm").splitlines() == [
        "rmmod rdma_ucm",
        "rmmod rdma_cm",
        "rmmod iw_cm",
        "rmmod ib_cm",
    ]
    mods = host.ok("lsmod")  # rdma_cm and its own dependencies went too: nothing else used them
    assert all(f"\n{m} " not in mods for m in ("rdma_ucm", "rdma_cm", "iw_cm", "ib_cm"))
    assert "\nib_uverbs " in mods and "\nib_core " in mods  # still used by mlx5_ib and others
    assert host.ok("modprobe", "-v", "rdma_ucm").splitlines() == [
        f"insmod /lib/modules/6.1.0-18-amd64/kernel/drivers/infiniband/core/{m}.ko "
        for m in ("iw_cm", "ib_cm", "rdma_cm", "rdma_ucm")
    ]
    assert host.ok("modprobe", "-D", "nvidia_peermem").splitlines()[-1].endswith("/updates/dkms/nvidia-peermem.ko ")
    assert host.ok("modprobe", "-n", "-r", "nvidia_peermem") == "" and host.file("/sys/module/nvidia_peermem").exists()


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        ([], "modprobe: ERROR: missing parameters. See -h.\n"),
        (["-r"], "modprobe: ERROR: missing parameters. See -h.\n"),
        (["--foo"], "modprobe: unrecognized option '--foo'\n"),
        (["-x"], "modprobe: invalid option -- 'x'\n"),
        (["nosuchmod"], "modprobe: FATAL: Module nosuchmod not found in directory /lib/modules/6.1.0-18-amd64\n"),
        (["-r", "nosuchmod"], "modprobe: FATAL: Module nosuchmod not found.\n"),
        (["-q", "nosuchmod"], ""),
        (["-r", "ib_core"], "modprobe: FATAL: Module ib_core is in use.\n"),
        (["-r", "ib_ipoib"], "modprobe: FATAL: Module ib_ipoib is not in kernel.\n"),
        (["--first-time", "mlx5_core"], "modprobe: ERROR: could not insert 'mlx5_core': Module already in kernel\n"),
    ],
)
def test_modprobe_refusals(host: ShimHost, args: list[str], stderr: str) -> None:
    before = host.file("/proc/modules").read_text()
    r = host.run("modprobe", *args)
    assert (r.rc, r.stdout, r.stderr) == (1, "", stderr), r
    assert host.file("/proc/modules").read_text() == before


def test_modprobe_help_is_kmods(host: ShimHost) -> None:
    assert host.ok("modprobe", "-h") == (REAL / "modprobe-help.stdout").read_text()
    r = host.run("modprobe", "-c")
    assert (r.rc, r.stderr) == (2, "modprobe (xoff lab shim): option -c is not emulated\n"), r
