"""``nvidia-smi``: the GPUs of the host and their topology, from the state file's PCI layout.

Emulated: ``topo -m`` / ``topo --matrix`` / ``topo -mp`` (the GPU/NIC matrix with its legends, in
the format of NVIDIA driver 535+: tab-separated cells, the header underlined with ``ESC[4m ... ESC[0m``,
``CPU Affinity``, ``NUMA Affinity`` and ``GPU NUMA ID`` columns, ``NIC<n>`` columns and a NIC
legend), ``-L`` / ``--list-gpus``, ``--query-gpu=<fields> --format=csv[,noheader][,nounits]`` for
``index``, ``name``, ``uuid``, ``pci.bus_id``, ``driver_version``, ``count``, the NVML clock fields
``clocks.sm`` (header ``clocks.current.sm [MHz]``), ``clocks.max.sm`` and ``clocks_event_reasons.active`` (or its
pre-535 name ``clocks_throttle_reasons.active``, printed under the new one as driver 535+ does; a 64-bit hex mask)
from the GPU's ``clocks`` facts in the state file (the same facts the lab's ``libnvidia-ml.so.1`` answers from),
and ``-h``. The
plain ``nvidia-smi`` status table is not emulated (it says so, exit 3).

A cell is the path between two devices in the PCI layout: ``X`` itself, ``NV#`` two GPUs on the
NVLink board (``-m`` only), ``PIX`` under one PCIe switch, ``PHB`` through one host bridge,
``NODE`` within a NUMA node, ``SYS`` across nodes. With the layout ``install()`` writes, GPU i and its
rail NIC are ``PIX``.

Errors: an option it does not know prints "ERROR: Option <opt> is not recognized. Please run
'nvidia-smi -h' for help." (exit 255), a combination it cannot run "Invalid combination of input
arguments. Please run 'nvidia-smi -h' for help." (exit 2), an unknown query field 'Field "<f>" is not
a valid field to query.' (exit 2); nvidia-smi prints these on stdout. What the shim cannot do it says in
its own words, prefixed ``nvidia-smi (xoff lab shim):``.
"""

from __future__ import annotations

import sys

from xoff.lab.shims._state import HostRoot, out, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from xoff.lab.shims._state import State

TOOL = "nvidia-smi"
HINT = "Please run 'nvidia-smi -h' for help."
LEGEND = """Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks"""
HELP = (
    "NVIDIA System Management Interface -- v{version} (xoff lab shim)\n\n"
    "Emulated here:\n"
    "    -L,   --list-gpus           Display a list of GPUs connected to the system.\n"
    "    --query-gpu=                Information about GPU: index, name, uuid, pci.bus_id, driver_version, count,\n"
    "                                clocks.sm, clocks.max.sm, clocks_event_reasons.active (or clocks_throttle_...).\n"
    "    --format=                   csv, with optional noheader and nounits.\n"
    "    topo -m, --matrix           Display the GPUDirect communication matrix for the system.\n"
    "    topo -mp, --matrix_pci      Display the GPUDirect communication matrix (PCI only)."
)
FIELDS = ("index", "name", "uuid", "pci.bus_id", "driver_version", "count")
# NVML clock fields: query name -> (the header driver 535+ prints, the key in a GPU's "clocks" state, unit)
CLOCK_FIELDS = {
    "clocks.sm": ("clocks.current.sm", "sm_mhz", "MHz"),
    "clocks.current.sm": ("clocks.current.sm", "sm_mhz", "MHz"),
    "clocks.max.sm": ("clocks.max.sm", "max_sm_mhz", "MHz"),
    "clocks.max_sm": ("clocks.max.sm", "max_sm_mhz", "MHz"),
    "clocks_throttle_reasons.active": ("clocks_event_reasons.active", "reasons", ""),
    "clocks_event_reasons.active": ("clocks_event_reasons.active", "reasons", ""),
}


def main(root: HostRoot, argv: list[str]) -> int:
    with root.state() as state:
        return _main(state, argv)


def _main(state: State, argv: list[str]) -> int:  # noqa: C901, PLR0911, PLR0912 -- nvidia-smi's argument loop: one branch and exit code per option, as the real tool's
    if not argv:
        out(f"{TOOL} (xoff lab shim): the status table is not emulated; use -L, --query-gpu or topo -m")
        return 3
    if argv[0] == "topo":
        return _topo(state, argv[1:])
    query = fmt = None
    listing = False
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a in ("-h", "--help"):
            out(HELP.format(version=state["driver_version"]))
            return 0
        if a in ("-L", "--list-gpus"):
            listing = True
        elif a.startswith("--query-gpu=") or a == "--query-gpu":
            query = a.partition("=")[2] if "=" in a else (argv[i] if i < len(argv) else None)
            i += 0 if "=" in a else 1
            if query is None:
                out(f"ERROR: Option {a} is missing its value. {HINT}")
                return 255
        elif a.startswith("--format=") or a == "--format":
            fmt = a.partition("=")[2] if "=" in a else (argv[i] if i < len(argv) else None)
            i += 0 if "=" in a else 1
            if fmt is None:
                out(f"ERROR: Option {a} is missing its value. {HINT}")
                return 255
        elif a.startswith("-"):
            out(f"ERROR: Option {a} is not recognized. {HINT}")
            return 255
        else:
            out(f"Invalid combination of input arguments. {HINT}")
            return 2
    if listing and query is None and fmt is None:
        for g in state["gpus"]:
            out(f"GPU {g['index']}: {g['name']} (UUID: {g['uuid']})")
        return 0 if state["gpus"] else _no_devices()
    if query is not None and fmt is not None and not listing:
        return _query(state, query, fmt)
    out(f"Invalid combination of input arguments. {HINT}")
    return 2


def _no_devices() -> int:
    out("No devices were found")
    return 6


def _query(state: State, query: str, fmt: str) -> int:
    fields = [f.strip() for f in query.split(",")]
    for f in fields:
        if f not in FIELDS and f not in CLOCK_FIELDS:
            out(f'Field "{f}" is not a valid field to query.')
            return 2
    formats = [f.strip() for f in fmt.split(",")]
    if not formats or formats[0] != "csv" or any(f not in ("noheader", "nounits") for f in formats[1:]):
        out(f'{TOOL} (xoff lab shim): format "{fmt}" is not emulated (csv, with noheader and nounits)')
        return 2
    if not state["gpus"]:
        return _no_devices()
    if "noheader" not in formats:
        out(", ".join(_header(f) for f in fields))
    for g in state["gpus"]:
        values = {
            "index": str(g["index"]),
            "name": g["name"],
            "uuid": g["uuid"],
            "pci.bus_id": f"00000000:{g['bdf'].upper()}",
            "driver_version": state["driver_version"],
            "count": str(len(state["gpus"])),
        }
        out(", ".join(values[f] if f in values else _clock(g, f, "nounits" in formats) for f in fields))
    return 0


def _header(field: str) -> str:
    if field not in CLOCK_FIELDS:
        return field
    name, _, unit = CLOCK_FIELDS[field]
    return f"{name} [{unit}]" if unit else name


def _clock(gpu: dict[str, Any], field: str, nounits: bool) -> str:
    """A clock cell from the GPU's NVML facts (``clocks`` in its state): ``[N/A]`` where it has none."""
    _, key, unit = CLOCK_FIELDS[field]
    value = (gpu.get("clocks") or {}).get(key)
    if value is None:
        return "[N/A]"
    if not unit:
        return f"0x{int(value):016x}"
    return str(int(value)) if nounits else f"{int(value)} {unit}"


def _topo(state: State, argv: list[str]) -> int:
    if argv in (["-m"], ["--matrix"]):
        nvlink = True
    elif argv in (["-mp"], ["--matrix_pci"]):
        nvlink = False
    else:
        bad = next((a for a in argv if a.startswith("-") and a not in ("-m", "--matrix", "-mp", "--matrix_pci")), None)
        out(
            f"ERROR: Option {bad} is not recognized. {HINT}"
            if bad
            else f"Invalid combination of input arguments. {HINT}"
        )
        return 255 if bad else 2
    if not state["gpus"]:
        return _no_devices()
    sys.stdout.write(topo_matrix(state, nvlink=nvlink))
    return 0


def _relation(a: dict[str, Any], b: dict[str, Any], nvlinks: int) -> str:
    if a is b:
        return " X "
    if nvlinks and a["role"] == "gpu" and b["role"] == "gpu":
        return f"NV{nvlinks}"
    if a["switch"] is not None and a["switch"] == b["switch"]:
        return "PIX"
    if a["host_bridge"] == b["host_bridge"]:
        return "PHB"
    return "NODE" if a["numa"] == b["numa"] else "SYS"


def topo_matrix(state: State, *, nvlink: bool = True) -> str:
    """The text of ``nvidia-smi topo -m`` (``-mp`` with ``nvlink=False``)."""
    by_bdf = {r["bdf"]: r for r in state["pci"]}
    gpus = [by_bdf[g["bdf"]] for g in state["gpus"]]
    nics = [r for r in state["pci"] if r["role"] == "nic"]
    nics.sort(key=lambda r: (len(r["rdma"]), r["rdma"]))
    devices = gpus + nics
    labels = [f"GPU{i}" for i in range(len(gpus))] + [f"NIC{i}" for i in range(len(nics))]
    nvlinks = int(state["nvlinks"]) if nvlink else 0
    cores = int(state["cores_per_node"])
    lines = ["\t\x1b[4m" + "\t".join([*labels, "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]) + "\x1b[0m"]
    for label, dev in zip(labels, devices, strict=True):
        cells = [_relation(dev, other, nvlinks) for other in devices]
        if dev["role"] == "gpu":
            node = dev["numa"]
            tail = f"\t{node * cores}-{node * cores + cores - 1}\t{node}\t\tN/A"
        else:
            tail = "\t\t\t\t"
        lines.append(label + "\t" + "\t".join(cells) + tail)
    lines += ["", LEGEND]
    if nics:
        lines += ["", "NIC Legend:", ""] + [f"  NIC{i}: {r['rdma']}" for i, r in enumerate(nics)]
    return "\n".join(lines) + "\n\n"


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, TOOL)


if __name__ == "__main__":
    cli()
