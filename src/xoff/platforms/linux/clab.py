"""containerlab: Linux hosts run as ``linux``.

containerlab creates any interface name, so hosts keep their netdev names. A host's data NICs may be
called ``eth0`` (lab-mini's are), so hosts run with ``network-mode: none`` (containerlab's
manual/network.md, "user-defined eth0"): the mgmt port keeps its intent name, is a ``mgmt-net`` link
and gets its address from ``exec``. The rendered files are mounted where the apply script expects them.
"""

from __future__ import annotations

import re

from xoff.contracts.clab import ClabKind, ExportError

CONFIG_MOUNT = "/etc/xoff/rendered"
_LINUX_IFNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$")


def _interfaces(ports: list[str], device: str) -> dict[str, str]:
    for p in ports:
        if not _LINUX_IFNAME.fullmatch(p):
            raise ExportError(f"{device}: {p} is not a Linux interface name (at most 15 characters)")
    return {p: p for p in ports}


KIND = ClabKind(
    kind="linux",
    image="ghcr.io/hellt/network-multitool",
    interfaces=_interfaces,
    startup=lambda cfg: {"binds": [f"{cfg}:{CONFIG_MOUNT}:ro"]},
    header="linux hosts -> linux, netdev names kept, network-mode none (mgmt port is a mgmt-net link, addressed by exec)",
    own_mgmt_link=True,
)
