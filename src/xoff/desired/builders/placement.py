"""Each device's failure domains (pod, scalable unit, plane, rack), written or derived from the cabling.

Derived where the intent leaves them out: a leaf's scalable unit is the unit of the hosts cabled to it, a host's
pod is its leaves' pod and its rack (when not written) its leaves' rack; when they differ, the lowest wins, so the
result does not depend on the order of the cables.
"""

from __future__ import annotations

from collections import defaultdict

from xoff.desired.models import Placement, planned
from xoff.intent.resolved import Intent


def build_placements(intent: Intent) -> dict[str, Placement]:
    """Placement of every Ethernet switch and host (InfiniBand switches have none)."""
    switch_hosts: dict[str, set[str]] = defaultdict(set)
    host_leaves: dict[str, set[str]] = defaultdict(set)
    switches, hosts = intent.switches, intent.hosts
    for link in intent.links:  # a host end first: two cables in three join switches (100,000 GPUs: 304,800 cables)
        for (upper, _), (lower, _) in ((link.a, link.b), (link.b, link.a)):
            if lower in hosts and upper in switches:
                switch_hosts[upper].add(lower)
                host_leaves[lower].add(upper)
    out: dict[str, Placement] = {}
    alike: dict[tuple[int | None, int | None, int | None, str | None], Placement] = {}  # a few hundred at 100k

    def placement(pod: int | None, unit: int | None, plane: int | None, rack: str | None) -> Placement:
        key = (pod, unit, plane, rack)
        found = alike.get(key)
        if found is None:
            found = alike[key] = planned(Placement, pod=pod, unit=unit, plane=plane, rack=rack)
        return found

    for sw in intent.switches.values():
        units = {u for h in switch_hosts[sw.name] if (u := intent.hosts[h].unit) is not None}
        out[sw.name] = placement(sw.pod, min(units, default=None), sw.plane, sw.rack)
    for host in intent.hosts.values():
        leaves = [intent.switches[name] for name in host_leaves[host.name]]
        pods = {s.pod for s in leaves if s.pod is not None}
        racks = {s.rack for s in leaves if s.rack is not None}
        rack = host.rack if host.rack is not None else min(racks, default=None)
        out[host.name] = placement(min(pods, default=None), host.unit, None, rack)
    return out
