"""Targets: every device push and collect can reach, with where and how to reach it.

Built from a FabricState (the intent's plan, or a target source's copy: ``connect.sources``, such as
a lab's with remapped addresses), so the address used is the one the rendered configuration carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xoff.desired.models import Device, FabricState
from xoff.errors import InputError, Location, Problem

SSH_KINDS = ("switch", "host")  # InfiniBand switches are programmed by the subnet manager, not over SSH


@dataclass(frozen=True)
class Target:
    name: str
    platform: str
    kind: str  # "switch" | "host"
    role: str
    network: str | None
    address: str  # management address, without prefix length
    port: int = 22
    groups: tuple[str, ...] = field(default=())  # role_<role>, platform_<platform>, network_<network>, kind_<kind>


def _address(device: Device) -> str:
    return device.mgmt_address.split("/", 1)[0]


def _groups(device: Device) -> tuple[str, ...]:
    groups = [f"kind_{device.kind}", f"platform_{device.platform}", f"role_{device.role}"]
    if device.network:
        groups.append(f"network_{device.network}")
    return tuple(groups)


def build_targets(fabric: FabricState) -> list[Target]:
    """Every SSH-managed device, sorted by name."""
    return [
        Target(
            name=d.name,
            platform=d.platform,
            kind=d.kind,
            role=d.role,
            network=d.network,
            address=_address(d),
            groups=_groups(d),
        )
        for d in sorted(fabric.devices.values(), key=lambda d: d.name)
        if d.kind in SSH_KINDS
    ]


def select(targets: Iterable[Target], limit: Iterable[str]) -> list[Target]:
    """``--limit``: device names, roles, groups (``role_leaf``, ``platform_eos``) or plain role/platform
    names. Every term must match something, else it is bad input (a typo must not push nothing, silently)."""
    pool = list(targets)
    terms = [t for t in limit if t]
    if not terms:
        return pool
    chosen: dict[str, Target] = {}
    for term in terms:
        hits = [t for t in pool if term in {t.name, t.role, t.platform, t.kind, *t.groups}]
        if not hits:
            allowed = "a device name, role, platform or group such as role_leaf"
            raise InputError([Problem(Location("--limit", 1, 1), term, f"matches no device (allowed: {allowed})")])
        chosen.update((t.name, t) for t in hits)
    return [t for t in pool if t.name in chosen]
