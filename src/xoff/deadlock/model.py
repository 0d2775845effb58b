"""The in-memory forwarding snapshot: the contract between snapshot producers and the analysis.

A ``Snapshot`` describes one fabric state exactly as ``forwarding-snapshot.md`` does: devices,
links (up or down), lossless priorities per port, priority re-marking and per-destination ECMP
next-hop sets. Producers (the file loader, the routing model, the failure sweep) build it; the
analysis only reads it. Structural soundness (ports exist, hosts have one up link, ...) is checked
by ``xoff.deadlock.validate.check_snapshot``; the analysis assumes a sound snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

PRIORITIES = range(8)


@dataclass(frozen=True, slots=True)
class Link:
    """A full-duplex link between port ``a_port`` of ``a`` and port ``b_port`` of ``b``."""

    id: str
    a: str
    a_port: str
    b: str
    b_port: str
    up: bool = True


@dataclass(frozen=True, slots=True)
class Rewrite:
    """At ``switch``: entering on ``in_ports`` with ``from_prio``, leaving on ``out_ports`` -> ``to_prio``.

    ``None`` for a port set means any port ("*"). Rules of one switch apply in snapshot order,
    first match wins; no match leaves the priority unchanged.
    """

    switch: str
    in_ports: frozenset[str] | None
    out_ports: frozenset[str] | None
    from_prio: int
    to_prio: int

    def matches(self, in_port: str, out_port: str, prio: int) -> bool:
        return (
            prio == self.from_prio
            and (self.in_ports is None or in_port in self.in_ports)
            and (self.out_ports is None or out_port in self.out_ports)
        )


@dataclass(frozen=True)
class Snapshot:
    """One fabric state: topology, PFC configuration, re-marking and explicit forwarding.

    - ``lossless_default``: lossless priorities of every port without an override.
    - ``lossless[device][port]``: per-port override; replaces the default (empty = none lossless).
    - ``forwarding[destination_host][switch]``: the ECMP egress ports towards that host; a missing
      switch has no route. Hosts have no entries (they send everything out of their one port).
    - ``ranks``: optional switch -> tier (higher = closer to the core). When given, the up*/down*
      certificate (deadlock.md §3.4, equal ranks ordered by name) is tried first and turns on
      witness cycles are classified (bounce = down -> up).
    """

    name: str
    description: str
    switches: tuple[str, ...]
    hosts: tuple[str, ...]
    links: tuple[Link, ...]
    lossless_default: frozenset[int]
    lossless: Mapping[str, Mapping[str, frozenset[int]]]
    rewrites: tuple[Rewrite, ...]
    forwarding: Mapping[str, Mapping[str, tuple[str, ...]]]
    ranks: Mapping[str, int] | None = field(default=None)

    def lossless_at(self, device: str, port: str) -> frozenset[int]:
        """The lossless priorities of one port: its override, else the default."""
        per_device = self.lossless.get(device)
        if per_device is not None:
            found = per_device.get(port)
            if found is not None:
                return found
        return self.lossless_default


def directed_link(tx: str, tx_port: str, rx: str, rx_port: str) -> str:
    """The normative name of a directed link, ``"<tx>:<tx_port>-><rx>:<rx_port>"``."""
    return f"{tx}:{tx_port}->{rx}:{rx_port}"
