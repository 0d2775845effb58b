"""What every NIC tool shim shares: the host's state root, the state file and its lock, and the
kernel-attribute semantics that plain files under the state root cannot have by themselves.

Only the standard library is imported here, and little of it: every shim is one short-lived process
per call (the host script calls ``mlnx_qos`` a few dozen times per NIC, a collect calls six tools
per host), so start-up cost matters. ``pathlib``, ``dataclasses``, ``typing``, ``contextlib`` and
``runpy`` each cost more to import than a shim's own work (``-X importtime``): paths are strings
(``os.path``), types are for the type checker only, and the wrappers do not use ``-m``.

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

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any, NoReturn

    State = dict[str, Any]

ROOT_ENV = "XOFF_HOST_ROOT"
ARGV0_ENV = "XOFF_SHIM_ARGV0"  # the wrapper's $0, for messages that print the invoked path (bash's getopts)
STATE_DIR = "var/lib/xoff-shims"
STATE_FILE = "state.json"
LOCK_FILE = "lock"
SCHEMA = "xoff-shims/1"

_NUMBER = re.compile(r"^\s*[+-]?\d+\s*$")


class ShimError(Exception):
    """The shim itself cannot run (no state root): not something the real tool would say."""


class HostRoot:
    """One host's state root (a directory path; ``str`` or path-like)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.fspath(root)

    @classmethod
    def from_env(cls) -> HostRoot:
        value = os.environ.get(ROOT_ENV, "")
        if not value:
            raise ShimError(f"{ROOT_ENV} is not set: run the tool through the wrapper xoff.lab.shims.install() wrote")
        root = cls(value)
        if not os.path.isfile(root.state_path):
            raise ShimError(
                f"{value} is not a host state root written by xoff.lab.shims.install() (no {STATE_DIR}/{STATE_FILE})"
            )
        return root

    def path(self, host_path: str) -> str:
        """``/sys/class/...`` on the emulated host -> the file under the state root."""
        return os.path.join(self.root, host_path.lstrip("/"))

    @property
    def state_path(self) -> str:
        return os.path.join(self.root, STATE_DIR, STATE_FILE)

    def state(self, *, write: bool = False) -> StateFile:
        """The state file, under the lock (exclusive when ``write``); saved on exit if it changed
        (and not when the block raised)."""
        return StateFile(self, write)

    def settle(self) -> None:
        """Give plain files the read-back format of the kernel attribute they stand for.

        MLNX_OFED's ``/sys/class/infiniband/<dev>/tc/<port>/traffic_class`` takes a number and reads
        back ``Global tclass=<n>`` (``traffic_class_show`` in the mlx5 driver's sysfs code); a value
        the driver refuses (not 0-255) reads back as before, i.e. unset. Every shim runs this first,
        and the lab may run it too (``xoff.lab.shims.settle``).
        """
        for f in _traffic_class_files(os.path.join(self.root, "sys/class/infiniband")):
            text = read(f)
            if _NUMBER.match(text):
                value = int(text)
                write_text(f, f"Global tclass={value}\n" if 0 <= value <= 255 else "")


class StateFile:
    """``with root.state(write=...) as state:`` (see ``HostRoot.state``)."""

    def __init__(self, root: HostRoot, write: bool) -> None:
        self.root = root
        self.write = write
        self.before = ""

    def __enter__(self) -> State:
        self.lock = open(os.path.join(self.root.root, STATE_DIR, LOCK_FILE), "a", encoding="utf-8")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX if self.write else fcntl.LOCK_SH)
            self.before = read(self.root.state_path)
            state: State = json.loads(self.before)
        except BaseException:
            self.lock.close()
            raise
        self.state = state
        return state

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            # unchanged: nothing to write, known before the indented dump (the pure-Python encoder: ~0.6 ms for a
            # lab host's state, most of a read-only `mlnx_qos -i eth0`'s CPU). The same pickle is the same
            # values of the same types in the same order (1, 1.0 and true apart), so the same dump.
            if self.write and kind is None and _changed(self.state, self.before):
                after = dump_state(self.state)
                if after != self.before:
                    tmp = os.path.join(self.root.root, STATE_DIR, "state.tmp")
                    write_text(tmp, after)
                    os.replace(tmp, self.root.state_path)
        finally:
            self.lock.close()  # closing the file releases the flock


def _traffic_class_files(infiniband: str) -> list[str]:
    """``<infiniband>/*/tc/*/traffic_class``, in name order."""
    found = []
    for dev in sorted(os.listdir(infiniband)) if os.path.isdir(infiniband) else []:
        tc = os.path.join(infiniband, dev, "tc")
        for port in sorted(os.listdir(tc)) if os.path.isdir(tc) else []:
            f = os.path.join(tc, port, "traffic_class")
            if os.path.isfile(f):
                found.append(f)
    return found


def read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _changed(state: State, before: str) -> bool:
    import pickle  # noqa: PLC0415 - only for a call that may write: a new interpreter per call pays each import

    return pickle.dumps(state) != pickle.dumps(json.loads(before))


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
