"""Address maps: every IPv4 address of a FabricState moved block by block (a lab's ``--remap``).

An address map is a list of (source block, target block) pairs of the same size, as ``lab up --remap``
records them in the lab's state and ``collect --lab`` copies them into the snapshot
(``Snapshot.address_map``). An address inside a source block moves to the same offset in its target
block and keeps its prefix length; an address in no source block stays as it is. So the intent's
desired state, mapped with a lab's map, is the state that lab was built from, and a snapshot of the
lab compares with it address for address.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import Any

from xoff.desired.models import FabricState

V4 = re.compile(r"^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(/\d{1,2})?$")

Pairs = Sequence[tuple[str, str]] | Sequence[tuple[IPv4Network, IPv4Network]]


def blocks(pairs: Pairs) -> list[tuple[IPv4Network, IPv4Network]]:
    """The pairs as networks; ValueError if a pair's two blocks differ in size."""
    out = [(IPv4Network(a), IPv4Network(b)) for a, b in pairs]
    for src, dst in out:
        if src.prefixlen != dst.prefixlen:
            raise ValueError(f"address map {src} -> {dst}: the blocks differ in size")
    return out


def moved(pairs: Pairs) -> list[str]:
    """``"source -> target"`` for every pair that moves (a block kept where it was is no change)."""
    return [f"{src} -> {dst}" for src, dst in blocks(pairs) if src != dst]


def mover(pairs: Pairs, strict: bool = False) -> Callable[[IPv4Address], IPv4Address]:
    """The function that moves one address (``strict``: an address in no source block is an error)."""
    table = blocks(pairs)

    def move(address: IPv4Address) -> IPv4Address:
        for src, dst in table:
            if address in src:
                return IPv4Address(int(dst.network_address) + int(address) - int(src.network_address))
        if strict:
            raise ValueError(f"{address} is in no block of the address map")
        return address

    return move


def convert(value: Any, move: Callable[[IPv4Address], IPv4Address]) -> Any:
    """``value`` (JSON data: str, dict, list, scalars) with every IPv4 address or prefix string moved."""
    if isinstance(value, str) and V4.match(value):
        iface = IPv4Interface(value)
        new = move(iface.ip)
        return f"{new}/{iface.network.prefixlen}" if "/" in value else str(new)
    if isinstance(value, dict):
        return {k: convert(v, move) for k, v in value.items()}
    if isinstance(value, list):
        return [convert(v, move) for v in value]
    return value


def map_fabric(fabric: FabricState, pairs: Pairs) -> FabricState:
    """``fabric`` with every IPv4 address and prefix moved by the map (the same rule as ``lab up --remap``)."""
    if not moved(pairs):
        return fabric
    return FabricState.model_validate(convert(fabric.model_dump(mode="json"), mover(pairs)))
