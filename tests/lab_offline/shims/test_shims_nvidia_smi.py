"""nvidia-smi shim: topo -m in the driver 535+ format (underlined header, NIC columns and legend), GPU i
next to its rail NIC (PIX) as HostSettings says, -L and --query-gpu, and the real tool's refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.shim_host import ShimHost, fixture

HINT = "Please run 'nvidia-smi -h' for help."
LEGEND = [
    "Legend:",
    "",
    "  X    = Self",
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
    "  PIX  = Connection traversing at most a single PCIe bridge",
    "  NV#  = Connection traversing a bonded set of # NVLinks",
]


def matrix(text: str) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Parse topo -m the way collectors do: strip the underline, cells by column label, the NIC legend."""
    lines = text.replace("\x1b[4m", "").replace("\x1b[0m", "").splitlines()
    header = lines[0].split("\t")[1:]
    labels = [h for h in header if h.startswith(("GPU", "NIC")) and h[3:].isdigit()]
    cells = {}
    for line in lines[1:]:
        if not line or not line.startswith(("GPU", "NIC")) or ":" in line:
            break
        fields = line.split("\t")
        cells[fields[0]] = dict(zip(labels, (f.strip() for f in fields[1:]), strict=False))
    legend = {}
    for line in lines[lines.index("NIC Legend:") + 2 :]:
        if line.strip():
            name, dev = line.split(":")
            legend[name.strip()] = dev.strip()
    return cells, legend


@pytest.fixture
def host(tmp_path: Path) -> ShimHost:
    return ShimHost(tmp_path)


def test_output_formats(host: ShimHost, tmp_path: Path) -> None:
    text = host.ok("nvidia-smi", "topo", "-m")
    assert text == fixture("nvidia-smi", "topo-m.lab-mini-gpu1.stdout")
    assert host.ok("nvidia-smi", "topo", "--matrix") == text
    lines = text.splitlines()
    assert lines[0] == "\t\x1b[4mGPU0\tGPU1\tNIC0\tNIC1\tNIC2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m"
    assert lines[1] == "GPU0\t X \tNV18\tPIX\tSYS\tNODE\t0-31\t0\t\tN/A"
    assert lines[3] == "NIC0\tPIX\tSYS\t X \tSYS\tNODE\t\t\t\t"
    assert lines[7:16] == LEGEND
    assert text.endswith("NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC2: mlx5_2\n\n")
    assert host.ok("nvidia-smi", "-L") == fixture("nvidia-smi", "list-gpus.lab-mini-gpu1.stdout")
    hgx = ShimHost(tmp_path / "hgx", "roce-pod", "gpu01")
    assert hgx.ok("nvidia-smi", "topo", "-m") == fixture("nvidia-smi", "topo-m.roce-pod-gpu01.stdout")


@pytest.mark.parametrize(("example", "device"), [("lab-mini", "gpu1"), ("roce-pod", "gpu01"), ("ib-pod", "gpu01")])
def test_each_gpu_is_pix_to_its_rail_nic(tmp_path: Path, example: str, device: str) -> None:
    host = ShimHost(tmp_path, example, device)
    cells, legend = matrix(host.ok("nvidia-smi", "topo", "-m"))
    gd = host.device.host.gpudirect  # type: ignore[union-attr]
    assert gd is not None and gd.gpu_nic
    nic_label = {dev: label for label, dev in legend.items()}
    for gpu, rdma in gd.gpu_nic.items():
        assert cells[f"GPU{gpu}"][nic_label[rdma]] == "PIX"
        others = [cells[f"GPU{gpu}"][nic_label[r]] for g, r in gd.gpu_nic.items() if g != gpu]
        assert all(o in ("NODE", "SYS") for o in others)  # every other rail NIC is further than the own one


def test_pci_only_matrix_and_queries(host: ShimHost) -> None:
    cells, _ = matrix(host.ok("nvidia-smi", "topo", "-mp"))
    assert cells["GPU0"]["GPU1"] == "SYS"  # no NVLink column in -mp: GPUs on two NUMA nodes
    uuid0 = host.state()["gpus"][0]["uuid"]
    assert host.ok("nvidia-smi", "--query-gpu=index,name,pci.bus_id,uuid", "--format=csv") == (
        "index, name, pci.bus_id, uuid\n"
        f"0, NVIDIA H100 80GB HBM3, 00000000:13:00.0, {uuid0}\n"
        f"1, NVIDIA H100 80GB HBM3, 00000000:23:00.0, {host.state()['gpus'][1]['uuid']}\n"
    )
    assert host.ok("nvidia-smi", "--query-gpu=count", "--format=csv,noheader") == "2\n2\n"


@pytest.mark.parametrize(
    ("args", "rc", "stdout"),
    [
        (["-x"], 255, f"ERROR: Option -x is not recognized. {HINT}\n"),
        (["topo", "-z"], 255, f"ERROR: Option -z is not recognized. {HINT}\n"),
        (["topo"], 2, f"Invalid combination of input arguments. {HINT}\n"),
        (["bogus"], 2, f"Invalid combination of input arguments. {HINT}\n"),
        (["-L", "--format=csv"], 2, f"Invalid combination of input arguments. {HINT}\n"),
        (["--query-gpu=cuda_version", "--format=csv"], 2, 'Field "cuda_version" is not a valid field to query.\n'),
        ([], 3, "nvidia-smi (xoff lab shim): the status table is not emulated; use -L, --query-gpu or topo -m\n"),
    ],
)
def test_refusals(host: ShimHost, args: list[str], rc: int, stdout: str) -> None:
    r = host.run("nvidia-smi", *args)
    assert (r.rc, r.stdout, r.stderr) == (rc, stdout, ""), r
