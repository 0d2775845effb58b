"""The forwarding table as the deadlock analysis reads it: per prefix, the egress ports.

Collectors parse each NOS's routing table into ``FibEntry`` lists (``platforms/frr/fib.py``,
``platforms/eos/fib.py``); a snapshot keeps them as ``FibRoute`` (``as_routes``), and the deadlock
check reads them back (``from_routes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network

from xoff.contracts.observed import FibRoute


@dataclass(frozen=True)
class FibEntry:
    prefix: IPv4Network
    protocol: str
    ports: tuple[str, ...]  # egress ports (intent names), sorted; empty = the device itself or a blackhole


def as_routes(entries: list[FibEntry]) -> list[FibRoute]:
    """FIB entries as the snapshot keeps them."""
    return [FibRoute(prefix=str(e.prefix), protocol=e.protocol, ports=list(e.ports)) for e in entries]


def from_routes(routes: list[FibRoute]) -> list[FibEntry]:
    """A snapshot's routes back as FIB entries (the prefixes were validated when collected)."""
    return [FibEntry(IPv4Network(r.prefix), r.protocol, tuple(r.ports)) for r in routes]
