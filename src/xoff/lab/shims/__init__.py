"""NIC tool shims for the lab's hosts: ``mlnx_qos``, ``cma_roce_mode``, ``cma_roce_tos``, ``mlxreg``, ``lspci``,
``lsmod``, ``modprobe``, ``show_gids``, ``ethtool`` (``-S``: the NIC counters ``xoff watch`` reads) and (on GPU hosts)
``nvidia-smi``, over a per-host state root.

A lab host is a network namespace with real netdevs, addresses and routes (so ``ip`` is the real
one), but no ConnectX NIC, GPU or MLNX_OFED. :func:`install` writes, per host, a directory of small
``sh`` wrappers (put it first on the host's PATH) that run ``python -m xoff.lab.shims.<tool>`` with
``XOFF_HOST_ROOT`` set to the host's state root, and seeds that root with a factory-fresh host built
from the host's ``HostSettings`` (``seed.py``). The rendered ``xoff-host-apply.sh`` then runs
unchanged: it reads and writes sysfs/procfs under ``XOFF_HOST_ROOT`` and calls the tools by name.

Each shim prints the real tool's output format and refuses invalid arguments the way the real tool
does (message, stream, exit status); where the real tool is a script (mlnx_qos, cma_roce_*), the
shim follows the script step by step, quirks included. Each module's docstring says what it follows
and what it does not emulate. The shims behave as for root: the lab's hosts log in as root.

Tools the rendered host script calls: ``ip`` (real), ``mlnx_qos``, ``cma_roce_mode``,
``cma_roce_tos`` and ``lspci``, plus coreutils/awk/sed/grep. ``nvidia-smi``, ``lsmod`` and
``modprobe`` are for collectors and operators (and ``modprobe`` is how an operator fixes the
nvidia-peermem finding). ``nvidia-smi`` is installed only on hosts with GPUs, as the driver would be.

This module imports nothing heavy (not even ``pathlib``): the shims import it on every call.
"""

from __future__ import annotations

import sys

from xoff.lab.shims._state import ARGV0_ENV, ROOT_ENV, STATE_DIR, STATE_FILE, HostRoot

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from pathlib import Path

    from xoff.desired.models import Device
    from xoff.lab.shims.seed import Iommu

# tool name on PATH -> module under xoff.lab.shims
TOOLS = {
    "mlnx_qos": "mlnx_qos",
    "cma_roce_mode": "cma_roce_mode",
    "cma_roce_tos": "cma_roce_tos",
    "lspci": "lspci",
    "lsmod": "lsmod",
    "modprobe": "modprobe",
    "nvidia-smi": "nvidia_smi",
    "show_gids": "show_gids",
    "ethtool": "ethtool",
    "mlxreg": "mlxreg",
}
GPU_TOOLS = ("nvidia-smi",)


def wrapper_text(tool: str, state_root: Path, device: str) -> str:
    """The ``sh`` wrapper for one tool of one host.

    ``-S``: no site packages, the shims need only the standard library and the xoff package, which
    PYTHONPATH names (so the wrapper runs the same xoff that installed it); it saves a third of the
    start-up of a tool the host script calls a few dozen times per NIC. ``-c`` rather than ``-m``:
    ``runpy`` and what it imports cost more than most shims' own work.

    With the lab's shim server, ``install`` puts the shim client in the wrapper's place instead
    (``client.install_tools``: the same settings, read from the directory's ``.xoff-shims``).
    """
    import shlex  # noqa: PLC0415 - this module is imported by every shim call: keep its imports few
    from pathlib import Path  # noqa: PLC0415 - idem

    python = shlex.quote(sys.executable)
    src = shlex.quote(str(Path(__file__).resolve().parents[3]))  # the directory that holds the xoff package
    return (
        "#!/bin/sh\n"
        f"# {tool} for lab host {device}: an xoff NIC tool shim (xoff.lab.shims.install); state in XOFF_HOST_ROOT\n"
        f"{ROOT_ENV}={shlex.quote(str(state_root))}\n"
        f"{ARGV0_ENV}=$0\n"
        f"PYTHONPATH={src}\n"
        f"export {ROOT_ENV} {ARGV0_ENV} PYTHONPATH\n"
        f"exec {python} -S -c 'from xoff.lab.shims.{TOOLS[tool]} import cli; cli()' \"$@\"\n"
    )


def install(
    bin_dir: Path,
    state_root: Path,
    host: Device,
    *,
    nvidia_peermem: bool = True,
    acs_enabled: bool | None = None,
    iommu: Iommu | None = None,
    gpu_model: str = "H100",
    reset: bool = False,
    server: tuple[Path, Path] | None = None,
) -> None:
    """Write the tool wrappers of ``host`` into ``bin_dir`` and seed its state root.

    ``bin_dir`` is the host's own: the wrappers name its state root. The state root is seeded only
    when it holds no host yet (or with ``reset``), so installing again keeps what the host has been
    configured to: ``lab up`` twice does not undo a push. The keyword arguments set what the
    host's settings do not say: whether nvidia-peermem is loaded (GPU hosts), ACS on the PCIe
    bridges and the IOMMU mode (default: as the intent's GPUDirect prerequisites want), the GPU model;
    ``server``: the lab's shim server socket and client (``client.install_tools``). Raises ValueError for a device that is not a host with host settings.
    """
    import shutil  # noqa: PLC0415 - see wrapper_text
    from pathlib import Path  # noqa: PLC0415 - idem

    from xoff.lab.shims.seed import SeedOptions, host_settings, seed  # noqa: PLC0415 - pydantic models

    settings = host_settings(host)
    state_file = state_root / STATE_DIR / STATE_FILE
    if reset and state_file.exists():  # only ever remove a directory that is a shim state root
        shutil.rmtree(state_root)
    if not state_file.exists():
        state_root.mkdir(parents=True, exist_ok=True)
        seed(
            state_root,
            host,
            SeedOptions(nvidia_peermem=nvidia_peermem, acs_enabled=acs_enabled, iommu=iommu, gpu_model=gpu_model),
        )
    bin_dir.mkdir(parents=True, exist_ok=True)
    if settings.gpus:
        from xoff.lab.shims.nvml import build  # noqa: PLC0415 - see wrapper_text

        build(nvml_dir(bin_dir))
    tools = {tool: module for tool, module in TOOLS.items() if tool not in GPU_TOOLS or settings.gpus}
    for tool in set(TOOLS) - set(tools):
        (bin_dir / tool).unlink(missing_ok=True)
    if server is not None:  # the client as each tool: no sh per call (client.install_tools)
        from xoff.lab.shims.client import install_tools  # noqa: PLC0415 - see wrapper_text

        src = str(Path(__file__).resolve().parents[3])
        install_tools(bin_dir, server[1], server[0], sys.executable, src, state_root.resolve(), tools)
        return
    for tool in tools:
        path = bin_dir / tool
        path.write_text(wrapper_text(tool, state_root.resolve(), host.name), encoding="utf-8")
        path.chmod(0o755)


def nvml_dir(bin_dir: Path) -> Path:
    """Where a host's ``libnvidia-ml.so.1`` (``nvml.py``) is: beside its tool directory, on its LD_LIBRARY_PATH."""
    return bin_dir.parent / "lib"


def settle(state_root: Path) -> None:
    """Apply kernel-attribute read-back formats to files written directly (every shim run does it too)."""
    HostRoot(state_root).settle()
