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

import os

from xoff.lab.shims._state import read, write_text

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from xoff.lab.shims._state import State

PROC_MODULES = "proc/modules"
_BASE_ADDRESS = 0xFFFFFFFFC0000000


class Loaded:
    """One line of ``/proc/modules``."""

    __slots__ = ("name", "refcnt", "size", "taint", "users")

    def __init__(self, name: str, size: int, refcnt: int, users: list[str], taint: str) -> None:
        self.name = name
        self.size = size
        self.refcnt = refcnt
        self.users = users
        self.taint = taint


def read_loaded(root: str | os.PathLike[str]) -> list[Loaded]:
    """``/proc/modules``, newest first; raises FileNotFoundError when it does not exist."""
    out = []
    for line in read(os.path.join(root, PROC_MODULES)).splitlines():
        f = line.split()
        users = [] if f[3] == "-" else [u for u in f[3].split(",") if u]
        taint = f[6].strip("()") if len(f) > 6 else ""
        out.append(Loaded(f[0], int(f[1]), int(f[2]), users, taint))
    return out


def write_loaded(root: str | os.PathLike[str], state: State, oldest_first: list[str]) -> None:
    """Make ``oldest_first`` (in load order) the loaded modules: ``/proc/modules`` and ``/sys/module``."""
    import shutil  # noqa: PLC0415 - only modprobe and the lab's seeding write; lsmod only reads

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
        sysmod = os.path.join(root, "sys/module", name)
        if os.path.exists(sysmod):
            shutil.rmtree(sysmod)
        os.makedirs(os.path.join(sysmod, "holders"))
        for user in users:
            os.mkdir(os.path.join(sysmod, "holders", user))
        write_text(os.path.join(sysmod, "refcnt"), f"{refcnt}\n")
        write_text(os.path.join(sysmod, "initstate"), "live\n")
        write_text(os.path.join(sysmod, "coresize"), f"{mod['size']}\n")
        write_text(os.path.join(sysmod, "taint"), f"{mod['taint']}\n")
    for name in catalog:
        if name not in position and os.path.exists(os.path.join(root, "sys/module", name)):
            shutil.rmtree(os.path.join(root, "sys/module", name))
    proc = os.path.join(root, PROC_MODULES)
    os.makedirs(os.path.dirname(proc), exist_ok=True)
    write_text(proc, "".join(line + "\n" for line in lines))
