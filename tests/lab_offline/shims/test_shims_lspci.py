"""lspci shim: the PCI layout of the host (root port -> PCIe switch -> GPU and its rail NIC) in pciutils'
formats, ACS lines the host script's check reads, pciutils' slot/id filters, and its refusals compared
byte for byte with the real lspci (pciutils 3.9.0, captured in tests/fixtures/host-tools/real)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.shim_host import FIXTURES, ShimHost, fixture

REAL = FIXTURES / "real"

# the host script's ACS check (templates/host/_lib_verify.sh.j2 xoff_acs), run on the shim's output
SCRIPT_AWK = r"/^[0-9a-fA-F]/ {dev = $1} /ACSCtl:/ && /SrcValid\+/ {print dev}"


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_output_formats(host: ShimHost) -> None:
    assert host.ok("lspci") == fixture("lspci", "terse.lab-mini-gpu1.stdout")
    assert host.ok("lspci", "-vvv") == fixture("lspci", "vvv.lab-mini-gpu1.stdout")
    assert host.ok("lspci", "-vv") == host.ok("lspci", "-vvv")  # no capability here has -vvv-only lines


def test_layout_puts_each_gpu_and_its_rail_nic_under_one_switch(host: ShimHost) -> None:
    pci = {r["bdf"]: r for r in host.state()["pci"]}
    gpu_nic = host.device.host.gpudirect.gpu_nic  # type: ignore[union-attr]
    for gpu, rdma in gpu_nic.items():
        g = next(r for r in pci.values() if r.get("gpu") == gpu)
        n = next(r for r in pci.values() if r.get("rdma") == rdma)
        assert g["switch"] is not None and g["switch"] == n["switch"]
    storage = next(r for r in pci.values() if r.get("rdma") == "mlx5_2")
    assert storage["switch"] is None  # a NIC without a GPU hangs off a root port of its own


def test_acs_as_the_host_script_reads_it(host: ShimHost, tmp_path: Path) -> None:
    def acs_on(h: ShimHost) -> list[str]:
        out = subprocess.run(
            ["awk", SCRIPT_AWK], input=h.ok("lspci", "-vvv"), capture_output=True, text=True, check=True
        )
        return out.stdout.split()

    assert acs_on(host) == []  # the intent wants ACS off, so the factory host has it off
    enabled = ShimHost(tmp_path / "acs", acs_enabled=True)
    bridges = [r["bdf"] for r in enabled.state()["pci"] if r["acs"] is not None]
    assert acs_on(enabled) == sorted(bridges) and len(bridges) == 7  # 3 root ports + 2x2 switch downstream ports
    line = next(x for x in enabled.ok("lspci", "-vv", "-s", "12:00.0").splitlines() if "ACSCtl" in x)
    assert line == "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"
    assert "ACSCtl" not in enabled.ok("lspci", "-v")  # pciutils prints ACSCap/ACSCtl from -vv on


def test_filters(host: ShimHost) -> None:
    assert (
        host.ok("lspci", "-s", "13:00.0")
        == "13:00.0 3D controller: NVIDIA Corporation GH100[H100 SXM5 80GB] (rev a1)\n"
    )
    assert host.ok("lspci", "-s", "0000:13:00") == host.ok("lspci", "-s", "13:00.0")
    nics = host.ok("lspci", "-d", "15b3:").splitlines()
    assert [x.split()[0] for x in nics] == ["14:00.0", "24:00.0", "31:00.0"]
    assert host.ok("lspci", "-d", "::0302").splitlines() == [
        x for x in host.ok("lspci").splitlines() if "3D controller" in x
    ]
    assert host.ok("lspci", "-D", "-s", "31:").startswith("0000:31:00.0 Ethernet controller: Mellanox Technologies")
    assert host.ok("lspci", "-k", "-s", "31:00.0").splitlines()[1:] == [
        "\tSubsystem: Mellanox Technologies Device 0051",
        "\tKernel driver in use: mlx5_core",
        "\tKernel modules: mlx5_core",
    ]


@pytest.mark.parametrize(
    ("args", "case"),
    [(["-z"], "lspci-invalid-option"), (["extra"], "lspci-extra-argument"), (["-s", "zz:zz"], "lspci-bad-slot")],
)
def test_refusals_match_the_real_lspci(host: ShimHost, args: list[str], case: str) -> None:
    r = host.run("lspci", *args)
    assert (r.rc, r.stdout, r.stderr) == (
        int((REAL / f"{case}.rc").read_text()),
        "",
        (REAL / f"{case}.stderr").read_text(),
    ), r


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-s"], "lspci: option requires an argument -- 's'\nUsage: lspci [<switches>]\n"),
        (["-s", "13:zz.0"], "lspci: -s: Invalid slot number\n"),
        (["-s", "13:00.9"], "lspci: -s: Invalid function number\n"),
        (["-s", "1:2:3:4"], "lspci: -s: Too many fields\n"),
        (["-d", "15b3"], "lspci: -d: At least two fields must be given\n"),
        (["-d", "15b3:zz"], "lspci: -d: Invalid device ID\n"),
    ],
)
def test_filter_refusals(host: ShimHost, args: list[str], message: str) -> None:
    r = host.run("lspci", *args)
    assert r.rc == 1 and r.stdout == "" and r.stderr.startswith(message), r


def test_options_it_does_not_emulate_say_so(host: ShimHost) -> None:
    r = host.run("lspci", "-t")
    assert (r.rc, r.stderr) == (2, "lspci (xoff lab shim): option -t is not emulated (emulated: -v -k -D -s -d)\n"), r
