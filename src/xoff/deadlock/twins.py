"""Twin switches: switches a renaming of the fabric swaps without changing it (issue 19, the failure sweep).

Two switches are twins when they have the same rank, the same neighbours over links alike in everything the
routing and the turn check read (lossless priorities, down, up-facing flag at either end, as many of each),
and an ASN that renaming can carry along: the same ASN, or each its own ASN held by no other switch. Swapping
two twins (their ports matched link for link) is then an automorphism of the fabric: every switch keeps its
neighbours and every link its attributes, and the routing models (shortest AS path with the loop check, or
hop count; ECMP over every best port) read nothing else, so the routes towards a twin are the renamed routes
towards the other. Any permutation inside each twin group is a product of such swaps, so it is one too.

The sweep uses it to skip work: a failure ``f`` re-routes class ``c``; if a renaming maps (f, c) onto a pair
(f0, c0) already found to add no turn, (f, c) adds none either (the turns it adds are the renamed turns of
(f0, c0)). ``Twins.keys`` name the orbit of such a pair under the product of the twin groups' permutations.
A fabric with static or fallback routes gets no twins (a static route names ports, which a swap moves).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xoff.deadlock.fabric import Fabric

# (twin group of the class's switch, is it the link's first end, its second end, the link's id in ``Twins.parts``:
# the twin groups of its two ends and its own attributes)
PairKey = tuple[int, bool, bool, int]


class Twins:
    """Twin groups of one fabric; ``keys`` name the renaming orbits of (failed link, class) pairs."""

    def __init__(self, fab: Fabric) -> None:
        self.fab = fab
        self.group: list[int] = _groups(fab)
        self.parts: dict[tuple[object, ...], int] = {}  # (group of end x, of end y, attributes) -> a small id

    def keys(self, link: int, classes: Sequence[int]) -> list[PairKey]:
        """The orbit key of (``link``, c) for every class c of ``classes`` (a fabric without twins has no
        split classes, so a class is its switch)."""
        fab, group = self.fab, self.group
        gx, gy = fab.link_ports[link]
        x, y = fab.port_owner[gx], fab.port_owner[gy]
        # x == y needs no flag: a link joins two twins never (twins share neighbours, a twin of its own neighbour
        # would be its own neighbour) and a switch linked to itself is alone in its group
        part = self.parts.setdefault((group[x], group[y], _port_attrs(fab, gx)), len(self.parts))
        return [(group[c], c == x, c == y, part) for c in classes]


def twins_of(fab: Fabric) -> Twins | None:
    """The fabric's twin groups, or None when it has static routes (a swap would move the ports they name)."""
    if fab.static or fab.fallback or fab.class_dest:
        return None
    return Twins(fab)


def _port_attrs(fab: Fabric, gp: int) -> tuple[object, ...]:
    """What routing and the turn check read of the link at ``gp``, seen from ``gp``'s end."""
    li = fab.port_link[gp]
    return tuple(sorted(fab.link_lossless[li])), li in fab.down, fab.up_facing[gp], fab.up_facing[fab.port_peer[gp]]


def _groups(fab: Fabric) -> list[int]:
    """Per switch, the smallest index of its twin group (itself when it has no twin)."""
    held = Counter(fab.asn)
    group: list[int] = []
    first: dict[tuple[object, ...], int] = {}
    for v in range(len(fab.switches)):
        links = fab.ports_to[v]
        if v in links:  # a link to itself: the swap argument does not cover it
            group.append(v)
            continue
        seen = tuple(sorted((n, tuple(sorted(_port_attrs(fab, gp) for gp in gps))) for n, gps in links.items()))
        asn = fab.asn[v]
        renamable = ("own",) if held[asn] == 1 else ("shared", asn)
        group.append(first.setdefault((fab.rank[v], renamable, seen), v))
    return group
