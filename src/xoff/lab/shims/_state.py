"""What every NIC tool shim shares: the host's state root, the state file and its lock, and the
kernel-attribute semantics that plain files under the state root cannot have by themselves.

Only the standard library is imported here: every shim is one short-lived process per call (the
host script calls ``mlnx_qos`` a few dozen times per NIC), so start-up cost matters.

Layout of a state root (``XOFF_HOST_ROOT``), the same paths as on a real host:

- ``sys/...``, ``proc/...``: the sysfs/procfs files the host script and the shims read, in the
  kernel's formats (written by :func:`xoff.lab.shims.install`, changed by the shims and the script);
- ``var/lib/xoff-shims/state.json``: what a real host keeps inside the kernel or the NIC firmware and
  shows only through a tool (the DCB tables behind ``mlnx_qos``, RDMA-CM's per-port defaults behind
  configfs, the PCI topology behind ``lspci`` and ``nvidia-smi``, the installed kernel modules);
- ``var/lib/xoff-shims/lock``: taken (``flock``) around every read-modify-write of the state file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

ROOT_ENV = "XOFF_HOST_ROOT"
ARGV0_ENV = "XOFF_SHIM_ARGV0"  # the wrapper's $0, for messages that print the invoked path (bash's getopts)
STATE_DIR = "var/lib/xoff-shims"
STATE_FILE = "state.json"
LOCK_FILE = "lock"
SCHEMA = "xoff-shims/1"

State = dict[str, Any]

_NUMBER = re.compile(r"^\s*[+-]?\d+\s*$")


class ShimError(Exception):
    """The shim itself cannot run (no state root): not something the real tool would say."""


class HostRoot:
    """One host's state root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_env(cls) -> HostRoot:
        value = os.environ.get(ROOT_ENV, "")
        if not value:
            raise ShimError(f"{ROOT_ENV} is not set: run the tool through the wrapper xoff.lab.shims.install() wrote")
        root = cls(Path(value))
        if not root.state_path.is_file():
            raise ShimError(
                f"{value} is not a host state root written by xoff.lab.shims.install() (no {STATE_DIR}/{STATE_FILE})"
            )
        return root

    def path(self, host_path: str) -> Path:
        """``/sys/class/...`` on the emulated host -> the file under the state root."""
        return self.root / host_path.lstrip("/")

    @property
    def state_path(self) -> Path:
        return self.root / STATE_DIR / STATE_FILE

    @contextmanager
    def state(self, *, write: bool = False) -> Iterator[State]:
        """The state file, under the lock (exclusive when ``write``); saved on exit if it changed."""
        lock_path = self.root / STATE_DIR / LOCK_FILE
        with lock_path.open("a", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            before = self.state_path.read_text(encoding="utf-8")
            state: State = json.loads(before)
            yield state
            if write:
                after = dump_state(state)
                if after != before:
                    tmp = self.state_path.with_suffix(".tmp")
                    tmp.write_text(after, encoding="utf-8")
                    tmp.replace(self.state_path)

    def settle(self) -> None:
        """Give plain files the read-back format of the kernel attribute they stand for.

        MLNX_OFED's ``/sys/class/infiniband/<dev>/tc/<port>/traffic_class`` takes a number and reads
        back ``Global tclass=<n>`` (``traffic_class_show`` in the mlx5 driver's sysfs code); a value
        the driver refuses (not 0-255) reads back as before, i.e. unset. Every shim runs this first,
        and the lab may run it too (``xoff.lab.shims.settle``).
        """
        for f in self.root.glob("sys/class/infiniband/*/tc/*/traffic_class"):
            text = f.read_text(encoding="utf-8")
            if _NUMBER.match(text):
                value = int(text)
                f.write_text(f"Global tclass={value}\n" if 0 <= value <= 255 else "", encoding="utf-8")


def dump_state(state: State) -> str:
    return json.dumps(state, indent=1, sort_keys=True) + "\n"


def argv0(tool: str) -> str:
    """The path the tool was invoked as (what bash prints in front of its own messages)."""
    return os.environ.get(ARGV0_ENV) or tool


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def err(text: str) -> None:
    sys.stderr.write(text + "\n")


def run(main: Callable[[HostRoot, list[str]], int], tool: str) -> NoReturn:
    """Entry point of a shim: find the state root, settle it, run the tool, exit with its status."""
    try:
        root = HostRoot.from_env()
        root.settle()
        status = main(root, sys.argv[1:])
        sys.stdout.flush()
    except ShimError as e:
        err(f"{tool} (xoff lab shim): {e}")
        status = 255
    except BrokenPipeError:  # `mlnx_qos -i eth0 | head -1`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 141
    sys.exit(status)
