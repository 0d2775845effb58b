"""Failure domains: which pod, scalable unit, plane or rack each device of a FabricState belongs to.

Read from each device's ``placement`` (written in the intent or derived from the cabling, see
``builders/placement.py``): hosts follow the leaves they hang on, spines and super-spines of a multi-plane
fabric go by plane, and a device outside every domain of a kind (a super-spine by pod, a leaf by plane, an
InfiniBand switch) gets the label ``"-"``. Canaries, batches, the push lock and ``--shard-by`` group by these.
"""

from __future__ import annotations

import re
from typing import Literal

from xoff.desired.models import FabricState, Placement

DomainKind = Literal["pod", "su", "plane", "rack"]
NO_DOMAIN = "-"


def label(placement: Placement | None, by: DomainKind) -> str:
    """``pod1``, ``su3``, ``plane2``, the rack's name as written, or ``-``."""
    if placement is None:
        return NO_DOMAIN
    if by == "rack":
        return placement.rack or NO_DOMAIN
    value = {"pod": placement.pod, "su": placement.unit, "plane": placement.plane}[by]
    return NO_DOMAIN if value is None else f"{by}{value}"


def domains(state: FabricState, by: DomainKind) -> dict[str, str]:
    """Device name -> the label of its failure domain of kind ``by``, in the state's device order."""
    return {name: label(device.placement, by) for name, device in state.devices.items()}


def members(labels: dict[str, str]) -> dict[str, list[str]]:
    """Domain label -> its devices (in the order given), domains sorted by name with ``-`` last."""
    grouped: dict[str, list[str]] = {}
    for name, lab in labels.items():
        grouped.setdefault(lab, []).append(name)
    return dict(sorted(grouped.items(), key=lambda kv: (kv[0] == NO_DOMAIN, _natural(kv[0]))))


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key putting ``pod2`` before ``pod10``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part)
