"""Shards: the SSH targets of a fabric split by failure domain, each device in exactly one shard.

The failure domains are the shard engineer's (``xoff.desired.domains``): a device outside every domain of
the kind (a super-spine by pod, a leaf by plane) goes to the shard ``SHARED``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xoff.connect.targets import Target, build_targets
from xoff.desired.domains import NO_DOMAIN, DomainKind, domains, members
from xoff.desired.models import FabricState

SHARED = "shared"  # the shard of the devices outside every domain of the kind


@dataclass(frozen=True)
class Shard:
    name: str  # a directory and an Ansible group name: pod1, su3, plane2, shared
    label: str  # the failure domain's label (xoff.desired.domains), "-" for SHARED
    targets: tuple[Target, ...]


def safe_name(label: str) -> str:
    """A label as a directory and an Ansible group name (letters, digits, underscores)."""
    if label == NO_DOMAIN:
        return SHARED
    name = re.sub(r"[^A-Za-z0-9_]", "_", label)
    return name if name[:1].isalpha() else f"d_{name}"


def shards(state: FabricState, by: DomainKind) -> list[Shard]:
    """The SSH-managed devices grouped by their domain of kind ``by``, in domain order (``shared`` last);
    a domain with no SSH-managed device (InfiniBand switches only) has no shard."""
    targets = {t.name: t for t in build_targets(state)}
    labels = {name: label for name, label in domains(state, by).items() if name in targets}
    out: list[Shard] = []
    taken: set[str] = set()
    for label, names in members(labels).items():
        name = base = safe_name(label)
        while name in taken:  # two labels the same once sanitised (rack r-1 and r_1): keep them apart
            name = f"{base}_{len(taken)}"
        taken.add(name)
        out.append(Shard(name, label, tuple(targets[n] for n in sorted(names))))
    return out
