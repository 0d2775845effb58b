"""Network namespaces from Python: enter one for the current thread, list them, find their processes.

``ip netns add NAME`` bind-mounts the namespace at ``/run/netns/NAME``; a process is inside it when
its ``/proc/<pid>/ns/net`` is the same inode. ``setns(2)`` moves only the calling thread, so a
thread can make a socket inside a namespace and come back (the socket stays in the namespace).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

NETNS_DIR = Path("/run/netns")
CLONE_NEWNET = 0x40000000
IP = "ip"
TIMEOUT_S = 60

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


@contextmanager
def entered(name: str) -> Iterator[None]:
    """Run the body of the ``with`` in namespace ``name`` (this thread only), then come back."""
    with Path("/proc/thread-self/ns/net").open("rb") as home, (NETNS_DIR / name).open("rb") as target:
        _setns(target.fileno())
        try:
            yield
        finally:
            _setns(home.fileno())


def exists(name: str) -> bool:
    return (NETNS_DIR / name).exists()


def names(prefix: str = "") -> list[str]:
    if not NETNS_DIR.is_dir():
        return []
    return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(prefix))


def pids_by_namespace(namespaces: list[str]) -> dict[str, list[int]]:
    """PIDs of the processes inside each namespace (what ``ip netns pids`` prints), in one pass over /proc."""
    inode: dict[tuple[int, int], str] = {}
    for name in namespaces:
        try:
            st = (NETNS_DIR / name).stat()
        except FileNotFoundError:
            continue
        inode[(st.st_dev, st.st_ino)] = name
    found: dict[str, list[int]] = {name: [] for name in inode.values()}
    if not inode:
        return found
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ns = (entry / "ns" / "net").stat()
        except OSError:  # gone, or a kernel thread
            continue
        owner = inode.get((ns.st_dev, ns.st_ino))
        if owner is not None:
            found[owner].append(int(entry.name))
    return found


def pids(name: str) -> list[int]:
    return pids_by_namespace([name]).get(name, [])


_SS_PID = re.compile(r"pid=(\d+)")


def socket_pids(name: str) -> list[int]:
    """PIDs of processes holding sockets inside namespace ``name`` while running outside it (a
    server that made its listening socket there with setns): they keep the namespace alive."""
    run = subprocess.run(
        [IP, "netns", "exec", name, "ss", "-H", "-a", "-n", "-p"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    return sorted({int(p) for p in _SS_PID.findall(run.stdout)})


def ip(args: list[str], *, netns: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    argv = [IP, *(["-n", netns] if netns else []), *args]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    if check and run.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {run.stderr.strip() or run.stdout.strip()}")
    return run


def ip_batch(lines: list[str], *, netns: str | None = None, force: bool = False) -> subprocess.CompletedProcess[str]:
    """Run many ``ip`` commands in one process (``ip -batch -``); stops at the first error unless ``force``."""
    if not lines:
        return subprocess.CompletedProcess([IP], 0, "", "")
    argv = [IP, *(["-n", netns] if netns else []), *(["-force"] if force else []), "-batch", "-"]
    run = subprocess.run(
        argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    if run.returncode != 0 and not force:
        raise RuntimeError(f"{' '.join(argv)}: {run.stderr.strip() or run.stdout.strip()}")
    return run


def links(netns: str | None = None) -> set[str]:
    """Interface names in a namespace (or the root namespace: /sys/class/net, no process needed)."""
    if netns is None and Path("/sys/class/net").is_dir():
        return {p.name for p in Path("/sys/class/net").iterdir()}
    run = ip(["-j", "link", "show"], netns=netns, check=False)
    if run.returncode != 0:
        return set()
    return {item["ifname"] for item in json.loads(run.stdout or "[]")}
