"""``nvidia-smi topo -m``: the GPU/NIC PCIe matrix, as every driver prints it and as it is pasted.

The matrix header names the device columns (``GPU0 .. GPUn``, then the NICs: ``mlx5_N`` before driver 535,
``NIC0 ..`` with a ``NIC Legend`` mapping ``NICn: mlx5_N`` since), then the affinity columns (``CPU Affinity``;
``NUMA Affinity`` since driver ~450; ``GPU NUMA ID`` since 535). The header may be underlined with ANSI codes
(``ESC[4m`` .. ``ESC[0m``) when printed to a terminal. Cells are tab-separated, but captures are often pasted with
the tabs turned into spaces (a 7-letter name such as ``mlx5_10`` then has one space after it), so cells are read
as whitespace-separated tokens: a row's first tokens are its relations to the device columns, one each (``X``
for itself), and what follows is its affinity.
"""

from __future__ import annotations

import re

from xoff.contracts.observed import GpuNicPath

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_RELATION = re.compile(r"^(X|SYS|NODE|PHB|PXB|PIX|SOC|NV\d+|NVB|C2C)$")
_LEGEND = re.compile(r"^\s+(X|SYS|NODE|PHB|PXB|PIX|SOC|NV#|NVB|C2C)\s+=\s")
_NIC = re.compile(r"^\s+(NIC\d+): (\S+)\s*$")
_ROW = re.compile(r"^(GPU\d+|NIC\d+|mlx5_\S+|\S+)\s")


def _columns(header: str) -> list[str]:
    """The device columns: the header's tokens before ``CPU Affinity``."""
    tokens = header.split()
    return tokens[: tokens.index("CPU")] if "CPU" in tokens else tokens


def _row(line: str, columns: list[str], number: int) -> tuple[str, list[str]]:
    tokens = line.split()
    cells = tokens[1 : 1 + len(columns)]
    if len(cells) != len(columns) or not all(_RELATION.match(c) for c in cells):
        raise ValueError(f"nvidia-smi topo -m line {number}: not a row of {len(columns)} relations: {line[:100]!r}")
    return tokens[0], cells


def _matrix(lines: list[str]) -> tuple[list[str], dict[str, list[str]], dict[str, str], int]:
    """(device columns, row -> cells, NICn -> RDMA device, rows read)."""
    columns: list[str] = []
    rows: dict[str, list[str]] = {}
    legend: dict[str, str] = {}
    in_legend = False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.strip() in ("Legend:", "NIC Legend:"):
            in_legend = True
        elif in_legend:
            if (m := _NIC.match(line)) is not None:
                legend[m[1]] = m[2]
            elif _LEGEND.match(line) is None:
                raise ValueError(f"nvidia-smi topo -m line {number}: unexpected legend line {line[:100]!r}")
        elif not columns:
            if not line[0].isspace():
                raise ValueError(f"nvidia-smi topo -m line {number}: no matrix header before {line[:100]!r}")
            columns = _columns(line)
        elif _ROW.match(line):
            label, cells = _row(line, columns, number)
            rows[label] = cells
        else:
            raise ValueError(f"nvidia-smi topo -m line {number}: unexpected line {line[:100]!r}")
    return columns, rows, legend, len(rows)


def parse_topo(text: str) -> list[GpuNicPath]:
    """``nvidia-smi topo -m`` -> one GpuNicPath per GPU and NIC column (NICn named by the legend), in order."""
    columns, rows, legend, count = _matrix(_ANSI.sub("", text).splitlines())
    paths = []
    for label, cells in rows.items():
        if not label.startswith("GPU"):
            continue
        for column, cell in zip(columns, cells, strict=True):
            nic = legend.get(column, None if column.startswith(("GPU", "NIC")) else column)
            if nic is not None:
                paths.append(GpuNicPath(gpu=int(label[3:]), nic=nic, relation=cell))
    if count and not paths and any(not c.startswith("GPU") for c in columns):
        raise ValueError("nvidia-smi topo -m: no GPU-to-NIC cell")
    return paths
