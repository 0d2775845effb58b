"""The baseline's up*/down* certificate straight from the routing rounds, without a forwarding snapshot.

``analyse(build_snapshot(fab, route_all(...), per_class=True))`` builds every class's routes as dicts, names every
next hop, ORs one destination bit per (destination, switch) and then finds the turns; at 100,000 GPUs that is
~11 million (class, switch) entries three times over. Here the routing rounds (``next_hops.next_hop_matrix``)
give the next-hop relation as one packed bit matrix (live port x class), and the turns come from it:

- a turn ``pv -> qv`` at switch ``v`` exists when some class leaves the upstream switch by the port facing ``pv``
  and leaves ``v`` by ``qv`` (deadlock.md §4.2, rule 3): the AND of two rows of the matrix;
- ports with equal rows are one group, and (switch, group, up-facing, lossless set) one key, so each pair of keys
  of a switch is judged once and each distinct pair of rows is ANDed once;
- a bounce is such a turn from an up-facing port to an up-facing port whose links share a lossless priority.

No bounce: the certificate holds and the ``Result`` is the one ``analyse`` gives (counts included; only the
timings differ). A bounce, static routes or ASNs that do not fit the masks: ``None``, and the caller takes the
full path (which finds the cycles and their witnesses). ``tests/deadlock/routing/test_certify.py`` compares both.
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from xoff.deadlock.analysis import Result
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.graph import Mismatch
from xoff.deadlock.next_hops import NextHops, next_hop_matrix
from xoff.deadlock.routing import Routing

Ints = npt.NDArray[np.int64]
_PAIR_CHUNK = 1 << 16  # distinct row pairs ANDed at once (bounds the temporary to ~chunk x row bytes)
_PAIRS = 1 << 21  # (in-key, out-key) pairs of one slice
_PAIR_TABLE = 1 << 24  # at most this many possible (group, group) codes: deduplicated by a table (64 MiB)


def certified_baseline(fab: Fabric, routing: Routing, dead: frozenset[int]) -> Result | None:
    """``analyse``'s result for the baseline snapshot of ``fab`` when the up*/down* certificate holds, else None."""
    if fab.static or fab.fallback or fab.class_dest:
        return None  # static routes change next hops per (class, switch): the full path handles them
    start = time.perf_counter()
    dests = list(dict.fromkeys(fab.classes))
    hops = next_hop_matrix(fab, dests, routing == "bgp", dead)
    if hops is None:
        return None
    routed = time.perf_counter()
    turns = _turns(fab, hops)
    if turns is None:
        return None
    end = time.perf_counter()
    alive = [li for li in range(len(fab.link_ids)) if li not in dead]
    links_up = len(alive) + len(fab.hosts)
    counts = {
        "switches": len(fab.switches),
        "hosts": len(fab.hosts),
        "links_up": links_up,
        "destinations": len(dests),
        "fabric_directed_links": 2 * len(alive),
        "nodes": 2 * sum(len(fab.link_lossless[li]) for li in alive),
        "turns": turns,
        "edges": -1,
        "after_peel": 0,
        "sccs": 0,
        "nodes_on_cycles": 0,
        "bounce_turns": 0,
    }
    return Result(
        snapshot=f"{fab.fabric}-{fab.network}",
        deadlock_risk=False,
        risky_priorities=(),
        nodes_on_cycles=(),
        cycles=(),
        pfc_mismatches=tuple(_mismatches(fab, dead)),
        certified=True,
        ranked=True,
        bounces=(),
        counts=counts,
        timings={"routing": routed - start, "certificate": end - routed, "total": end - start},
    )


def _mismatches(fab: Fabric, dead: frozenset[int]) -> list[Mismatch]:
    """``graph.pfc_mismatches`` of the snapshot: up fabric links in link order, then host links in host order."""
    default, lossless = fab.lossless_default, fab.lossless_port
    # the index found the links whose ends differ (only those can mismatch); else every link is looked up
    links, hosts = fab.unequal_ends or (list(range(len(fab.link_ends))), list(range(len(fab.hosts))))
    named = [(fab.link_ids[li], fab.link_ends[li]) for li in links if li not in dead]
    ends = [(lid, (a, ap), (b, bp)) for lid, (a, ap, b, bp) in named]
    ends += [(h.link_id, (h.switch, h.switch_port), (h.name, h.port)) for h in (fab.hosts[i] for i in hosts)]
    out = []
    for link, a, b in ends:
        diff = lossless.get(a, default) ^ lossless.get(b, default)
        if diff:
            out.append(Mismatch(link, tuple(sorted(diff))))
    return out


def _turns(fab: Fabric, hops: NextHops) -> int | None:
    """How many turns the snapshot's graph has; None when one of them is a bounce with a lossless edge."""
    pt, bits = hops.ports, hops.bits
    rows = len(pt.port)
    if not rows or not bits.shape[1]:
        return 0  # no fabric port, or no destination: no turn
    row_of = np.full(len(fab.port_owner), -1, dtype=np.int64)
    row_of[pt.port] = np.arange(rows, dtype=np.int64)
    peer_row = row_of[np.array(fab.port_peer, dtype=np.int64)[pt.port]]
    packed = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).ravel()
    _, first, group = np.unique(packed, return_index=True, return_inverse=True)
    group = group.reshape(-1)
    up = np.array(fab.up_facing, dtype=np.int64)[pt.port]
    mask_of = {s: sum(1 << p for p in s) for s in set(fab.link_lossless)}  # a handful of distinct sets
    masks = np.array([mask_of[s] for s in fab.link_lossless], dtype=np.int64)
    ll = masks[np.array(fab.port_link, dtype=np.int64)[pt.port]]
    # a turn enters v through row r (classes: the upstream's row) and leaves through row r' (classes: its own)
    ins = _keys(pt.owner, group[peer_row], up, ll, len(first))
    outs = _keys(pt.owner, group, up, ll, len(first))
    return _count(ins, outs, bits[first], len(fab.switches))


_Keys = tuple[Ints, Ints, Ints, Ints, Ints]  # switch, group, up-facing, lossless mask, how many ports


def _keys(owner: Ints, group: Ints, up: Ints, ll: Ints, groups: int) -> _Keys:
    """Distinct (switch, group, up-facing, lossless mask) of the ports, sorted by switch, with their counts."""
    key = ((owner * groups + group) * 2 + up) * 256 + ll
    uniq, count = np.unique(key, return_counts=True)
    ll_k, rest = uniq % 256, uniq // 256
    up_k, rest = rest % 2, rest // 2
    return rest // groups, rest % groups, up_k, ll_k, count


def _count(ins: _Keys, outs: _Keys, group_bits: npt.NDArray[np.uint8], switches: int) -> int | None:
    """Turns summed over every (in-key, out-key) pair of a switch whose groups share a class; None on a bounce.
    In-keys are taken in slices of about ``_PAIRS`` pairs, which bounds the arrays of one slice."""
    in_sw = ins[0]
    out_per = np.bincount(outs[0], minlength=switches)
    out_first = np.cumsum(out_per) - out_per
    reps = out_per[in_sw]
    ends = np.cumsum(reps)
    turns = 0
    lo = 0
    groups = len(group_bits)
    # distinct (in-group, out-group) pairs by a table over every pair code when it is small enough (the same
    # sorted pairs and inverse as np.unique, without sorting millions of codes); else np.unique
    table = np.zeros(groups * groups, dtype=np.int32) if groups * groups <= _PAIR_TABLE else None
    while lo < len(in_sw):
        hi = max(lo + 1, int(np.searchsorted(ends, ends[lo] - reps[lo] + _PAIRS, side="right")))
        got = _count_slice(ins, outs, group_bits, out_first, reps, slice(lo, hi), table)
        if got is None:
            return None
        turns += got
        lo = hi
    return turns


def _count_slice(
    ins: _Keys,
    outs: _Keys,
    group_bits: npt.NDArray[np.uint8],
    out_first: Ints,
    reps: Ints,
    part: slice,
    table: npt.NDArray[np.int32] | None,
) -> int | None:
    in_sw, in_g, in_up, in_ll, in_n = (x[part] for x in ins)
    _, out_g, out_up, out_ll, out_n = outs
    r = reps[part]
    a = np.repeat(np.arange(len(in_sw), dtype=np.int64), r)
    b = np.arange(int(r.sum()), dtype=np.int64) + np.repeat(out_first[in_sw] - (np.cumsum(r) - r), r)
    groups = len(group_bits)
    code = in_g[a] * groups + out_g[b]
    if table is None:
        pair, back = np.unique(code, return_inverse=True)
    else:
        table[code] = 1
        pair = np.flatnonzero(table)
        table[pair] = np.arange(len(pair), dtype=np.int32)
        back = table[code]
        table[pair] = 0  # clean for the next slice
    share = np.zeros(len(pair), dtype=np.bool_)
    for s in range(0, len(pair), _PAIR_CHUNK):
        x, y = np.divmod(pair[s : s + _PAIR_CHUNK], groups)
        share[s : s + _PAIR_CHUNK] = (group_bits[x] & group_bits[y]).any(axis=1)
    hit = share[back.reshape(-1)]
    if np.any(hit & (in_up[a] == 1) & (out_up[b] == 1) & ((in_ll[a] & out_ll[b]) != 0)):
        return None
    return int((in_n[a] * out_n[b])[hit].sum())
