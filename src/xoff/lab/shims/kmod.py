"""Loaded kernel modules of an emulated host: ``/proc/modules`` and ``/sys/module/<name>/``.

``/proc/modules`` is the truth ``lsmod`` and ``modprobe`` read and write, in the kernel's format
(``kernel/module/procfs.c`` ``m_show``): one line per module, most recently loaded first::

    name size refcount users, state address [taint]
    ib_uverbs 200704 3 nvidia_peermem,rdma_ucm,mlx5_ib, Live 0xffffffffc0420000
    nvidia_peermem 16384 0 - Live 0xffffffffc0f00000 (OE)

The users of a module are the loaded modules that depend on it, newest first (the kernel adds each
new user at the head of the module's source list); the refcount is their number plus the references
that are not modules (``refs`` in the module catalogue, e.g. the NVIDIA driver's open handles).
``/sys/module/<name>/`` (``refcnt``, ``initstate``, ``coresize``, ``taint``, ``holders/<user>``) follows,
since the host script tests for ``/sys/module/nvidia_peermem``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from xoff.lab.shims._state import State

PROC_MODULES = "proc/modules"
_BASE_ADDRESS = 0xFFFFFFFFC0000000


@dataclass(frozen=True)
class Loaded:
    name: str
    size: int
    refcnt: int
    users: list[str]
    taint: str


def read_loaded(root: Path) -> list[Loaded]:
    """``/proc/modules``, newest first; raises FileNotFoundError when it does not exist."""
    out = []
    for line in (root / PROC_MODULES).read_text(encoding="utf-8").splitlines():
        f = line.split()
        users = [] if f[3] == "-" else [u for u in f[3].split(",") if u]
        taint = f[6].strip("()") if len(f) > 6 else ""
        out.append(Loaded(f[0], int(f[1]), int(f[2]), users, taint))
    return out


def write_loaded(root: Path, state: State, oldest_first: list[str]) -> None:
    """Make ``oldest_first`` (in load order) the loaded modules: ``/proc/modules`` and ``/sys/module``."""
    catalog = state["modules"]
    position = {name: i for i, name in enumerate(oldest_first)}
    lines = []
    for name in reversed(oldest_first):
        mod = catalog[name]
        users = sorted((u for u in oldest_first if name in catalog[u]["deps"]), key=lambda u: -position[u])
        refcnt = len(users) + int(mod["refs"])
        address = _BASE_ADDRESS + 0x10000 * (list(catalog).index(name) + 1)
        taint = f" ({mod['taint']})" if mod["taint"] else ""
        used = "".join(f"{u}," for u in users) or "-"
        lines.append(f"{name} {mod['size']} {refcnt} {used} Live 0x{address:016x}{taint}")
        sysmod = root / "sys/module" / name
        if sysmod.exists():
            shutil.rmtree(sysmod)
        (sysmod / "holders").mkdir(parents=True)
        for user in users:
            (sysmod / "holders" / user).mkdir()
        (sysmod / "refcnt").write_text(f"{refcnt}\n", encoding="utf-8")
        (sysmod / "initstate").write_text("live\n", encoding="utf-8")
        (sysmod / "coresize").write_text(f"{mod['size']}\n", encoding="utf-8")
        (sysmod / "taint").write_text(f"{mod['taint']}\n", encoding="utf-8")
    for name in catalog:
        if name not in position and (root / "sys/module" / name).exists():
            shutil.rmtree(root / "sys/module" / name)
    proc = root / PROC_MODULES
    proc.parent.mkdir(parents=True, exist_ok=True)
    proc.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
