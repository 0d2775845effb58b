"""Room in the kernel's neighbour (ARP/NDP) tables for the labs on this machine.

Those tables are one table per address family for every network namespace, bounded by the root namespace's
``gc_thresh3`` (1024 entries by default). Each lab switch holds its BGP peers' and the management bridge's entries, so
a few labs up at once (parallel tests, another engineer's lab) fill it; the kernel then resolves no new neighbour
(``/proc/net/stat/arp_cache`` table_fulls rises) and a new lab's switches cannot be reached at all ("TCP connection
failed"). ``lab up`` (root, which the lab needs anyway) raises the bounds when they are lower and says so.
"""

from __future__ import annotations

from pathlib import Path

ROOM = (1024, 8192, 16384)  # gc_thresh1..3: GC starts, soft limit, hard limit (entries)
PROC = Path("/proc/sys/net")


def make_room(proc: Path = PROC) -> list[str]:
    """Raise each ``gc_thresh`` below ``ROOM``; one line per knob raised (nothing when all are as large)."""
    raised: list[str] = []
    for family in ("ipv4", "ipv6"):
        for i, want in enumerate(ROOM, start=1):
            knob = proc / family / "neigh" / "default" / f"gc_thresh{i}"
            try:
                was = int(knob.read_text(encoding="utf-8"))
                if was < want:
                    knob.write_text(str(want), encoding="utf-8")
                    raised.append(f"raised net.{family}.neigh.default.gc_thresh{i} from {was} to {want}")
            except (OSError, ValueError):  # not in the root namespace, or no IPv6: leave it, the lab still comes up
                continue
    return raised
