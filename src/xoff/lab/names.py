"""Names of everything the lab creates, all derived from the lab name, so cleanup can find them.

- namespaces: ``xl-<lab>-<device>``;
- the management bridge in the root namespace: ``xlb<hash6>`` (interface names are at most 15
  characters, so the lab name cannot be spelled out);
- the root-side end of each device's management veth: ``xv<hash12>``;
- the lab's files: ``<labs root>/<lab>/`` (``/run/xoff/labs`` unless ``XOFF_LAB_DIR`` says otherwise).

Interface names inside a namespace are the intent's port names made legal for Linux
(:func:`linux_ifname`); the lab and the emulators map them back, so people see intent names.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

PREFIX = "xl-"  # every namespace the lab creates
BRIDGE_PREFIX = "xlb"
VETH_PREFIX = "xv"
BRIDGE_RE = re.compile(r"^xlb[0-9a-f]{6}$")
VETH_RE = re.compile(r"^xv[0-9a-f]{12}$")
DEFAULT_ROOT = Path("/run/xoff/labs")
ROOT_ENV = "XOFF_LAB_DIR"
IFNAMSIZ = 15  # usable characters of a Linux interface name
LAB_NAME_MAX = 24
_LAB_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$")
_IF_BAD = re.compile(r"[/:\s]")


def _hash(text: str, length: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def lab_name(fabric: str) -> str:
    """The default lab name of a fabric: lower case, ``[a-z0-9-]``, at most 24 characters.

    >>> lab_name("Lab_Mini.v2")
    'lab-mini-v2'
    """
    name = re.sub(r"[^a-z0-9]+", "-", fabric.lower()).strip("-")[:LAB_NAME_MAX].strip("-")
    if not name:
        raise ValueError(f"{fabric!r}: cannot make a lab name from it (give --name)")
    return name


def check_lab_name(name: str) -> str:
    if not _LAB_NAME_RE.match(name):
        raise ValueError(
            f"{name!r} is not a valid lab name (allowed: a-z, 0-9 and '-', not at either end, 1..{LAB_NAME_MAX} characters)"
        )
    return name


def namespace(lab: str, device: str) -> str:
    return f"{PREFIX}{lab}-{device}"


def namespace_prefix(lab: str) -> str:
    return f"{PREFIX}{lab}-"


def bridge(lab: str) -> str:
    return f"{BRIDGE_PREFIX}{_hash(lab, 6)}"


def root_veth(lab: str, device: str) -> str:
    return f"{VETH_PREFIX}{_hash(f'{lab}/{device}', 12)}"


def linux_ifname(port: str) -> str:
    """An intent port name as a legal Linux interface name: '/', ':' and blanks become '_'; a name
    longer than 15 characters keeps its first 10 and gets a stable hash of the whole name.

    >>> linux_ifname("Ethernet1/1")
    'Ethernet1_1'
    >>> linux_ifname("Ethernet1/1/1000")
    'Ethernet1_e74a6'
    """
    name = _IF_BAD.sub("_", port)
    if name in {"", ".", ".."}:
        raise ValueError(f"{port!r} cannot be a Linux interface name")
    if len(name) > IFNAMSIZ:
        name = f"{name[:10]}{_hash(port, 5)}"
    return name


def labs_root() -> Path:
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def lab_dir(lab: str, root: Path | None = None) -> Path:
    return (root or labs_root()) / lab
