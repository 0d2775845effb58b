"""Platform registry: everything xoff knows about a NOS or host type lives in its package.

Only what the desired-state core needs is here so far (interface naming); templates, apply
strategies, collectors and parsers join each platform's package as they land.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlatformInfo:
    name: str
    label: str
    kind: str  # switch | host | ib_switch
    mgmt_interface: str
    loopback_interface: str | None


PLATFORMS: dict[str, PlatformInfo] = {
    "sonic": PlatformInfo("sonic", "SONiC (community)", "switch", "eth0", "Loopback0"),
    "eos": PlatformInfo("eos", "Arista EOS", "switch", "Management1", "Loopback0"),
    "cumulus": PlatformInfo("cumulus", "NVIDIA Cumulus Linux (NVUE)", "switch", "eth0", "lo"),
    "linux": PlatformInfo("linux", "Linux GPU host (ConnectX)", "host", "eno1", None),
    "infiniband": PlatformInfo("infiniband", "NVIDIA Quantum InfiniBand switch", "ib_switch", "mgmt0", None),
}


def get_platform(name: str) -> PlatformInfo:
    try:
        return PLATFORMS[name]
    except KeyError:
        raise KeyError(f"unknown platform {name!r} (allowed: {', '.join(PLATFORMS)})") from None
