"""Property: on random small fabrics ``analyse`` agrees with the hop-by-hop reference.

Random switches and hosts, random (parallel, down) links, random lossless sets with per-port
overrides, random rewrites and random forwarding sets; sometimes ranks. The analysis and
``cbd_reference`` must agree on the risk, the risky priorities, the nodes on cycles and the PFC
mismatches, and every witness must be a real cycle of the reference graph with each edge
justified by its destination. A second property makes forwarding valley-free for the ranks:
then the up*/down* certificate must hold and the reference must find no cycle.
"""

from __future__ import annotations

import dataclasses

from cbd_reference import Reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xoff.deadlock.analysis import analyse
from xoff.deadlock.model import Link, Rewrite, Snapshot
from xoff.deadlock.snapshot_file import parse_snapshot, to_document
from xoff.deadlock.validate import check_snapshot
from xoff.intent.yamlsource import SourceMap

PRIOS = st.frozensets(st.sampled_from([3, 4]), max_size=2) | st.frozensets(st.sampled_from([2, 3, 4]), max_size=3)


@st.composite
def snapshots(draw: st.DrawFn, ranked: bool | None = None) -> Snapshot:  # noqa: C901, PLR0912 -- a hypothesis strategy: each branch is a draw, and their order is what shrinking replays
    n_sw = draw(st.integers(1, 5) | st.integers(2, 5))
    n_host = draw(st.integers(0, 4) | st.integers(2, 4))
    switches = [f"S{i}" for i in range(n_sw)]
    hosts = [f"H{i}" for i in range(n_host)]
    next_port = dict.fromkeys(switches + hosts, 0)

    def port(device: str) -> str:
        next_port[device] += 1
        return f"p{next_port[device]}"  # the same names recur on every device: names are local

    links: list[Link] = []
    for h in hosts:
        links.append(Link(f"l{len(links)}", h, port(h), draw(st.sampled_from(switches)), "", True))
        if draw(st.booleans()) and draw(st.booleans()):  # a spare NIC cabled but down
            links.append(Link(f"l{len(links)}", h, port(h), draw(st.sampled_from(switches)), "", False))
    for _ in range(draw(st.integers(0, 12) | st.integers(4, 12))):
        a, b = draw(st.sampled_from(switches)), draw(st.sampled_from(switches))
        if a != b:
            links.append(Link(f"l{len(links)}", a, port(a), b, "", draw(st.sampled_from([True, True, True, False]))))
    links = [dataclasses.replace(x, b_port=port(x.b)) for x in links]
    draw(st.randoms()).shuffle(links)

    ports_of: dict[str, list[str]] = {d: [] for d in switches + hosts}
    up_ports: dict[str, list[str]] = {d: [] for d in switches + hosts}
    for x in links:
        for dev, p in ((x.a, x.a_port), (x.b, x.b_port)):
            ports_of[dev].append(p)
            if x.up:
                up_ports[dev].append(p)
    lossless: dict[str, dict[str, frozenset[int]]] = {}
    for dev, ports in ports_of.items():
        for p in ports:
            if draw(st.integers(0, 3)) == 0:
                lossless.setdefault(dev, {})[p] = draw(PRIOS)
    rewrites = []
    for _ in range(draw(st.integers(0, 6) | st.integers(2, 8))):
        sw = draw(st.sampled_from(switches))
        some = st.frozensets(st.sampled_from(ports_of[sw]), min_size=1) if ports_of[sw] else st.none()
        pick = st.none() | some
        prio = st.sampled_from([3, 4, 2])
        rewrites.append(Rewrite(sw, draw(pick), draw(pick), draw(prio), draw(prio | st.just(0))))
    forwarding: dict[str, dict[str, tuple[str, ...]]] = {}
    for d in hosts:
        if draw(st.integers(0, 7)) == 7:
            continue  # a host nobody routes to
        per: dict[str, tuple[str, ...]] = {}
        for sw in switches:
            routed = draw(st.integers(0, 4)) > 0
            if up_ports[sw] and routed:
                per[sw] = tuple(draw(st.lists(st.sampled_from(up_ports[sw]), unique=True, min_size=1, max_size=3)))
        forwarding[d] = per
    with_ranks = draw(st.booleans()) if ranked is None else ranked
    ranks = {s: draw(st.integers(0, 2)) for s in switches} if with_ranks else None
    return Snapshot(
        name="random",
        description="",
        switches=tuple(switches),
        hosts=tuple(hosts),
        links=tuple(links),
        lossless_default=draw(
            st.frozensets(st.sampled_from([3, 4]), min_size=1) | st.frozensets(st.sampled_from([2, 3, 4]), min_size=1)
        ),
        lossless=lossless,
        rewrites=tuple(rewrites),
        forwarding=forwarding,
        ranks=ranks,
    )


def valley_free(snap: Snapshot) -> Snapshot:
    """Drop up ports wherever a switch receives the destination from above (no down -> up turn)."""
    assert snap.ranks is not None
    key = {s: (snap.ranks[s], s) for s in snap.switches}
    peer = {}
    for x in snap.links:
        if x.up:
            peer[(x.a, x.a_port)] = x.b
            peer[(x.b, x.b_port)] = x.a
    forwarding = {}
    for d, per in snap.forwarding.items():
        new = dict(per)
        for v in sorted(snap.switches, key=key.__getitem__, reverse=True):  # higher tiers are final first
            from_above = any(
                key[u] > key[v] and any(peer[(u, q)] == v for q in new.get(u, ())) for u in snap.switches if u in new
            )
            if from_above and v in new:
                new[v] = tuple(q for q in new[v] if not (peer[(v, q)] in key and key[peer[(v, q)]] > key[v]))
        forwarding[d] = new
    return dataclasses.replace(snap, forwarding=forwarding)


def assert_agrees(snap: Snapshot) -> None:
    assert check_snapshot(snap) == []
    ref = Reference(snap)
    expected = ref.on_cycles()
    result = analyse(snap)
    assert result.deadlock_risk is bool(expected)
    assert set(result.nodes_on_cycles) == expected
    assert set(result.risky_priorities) == {p for _, p in expected}
    assert {(m.link, m.priorities) for m in result.pfc_mismatches} == ref.mismatches()
    for cycle in result.cycles:
        ref.check_cycle(cycle.nodes)
        nodes = cycle.nodes
        for step, nxt in zip(cycle.steps, nodes[1:] + nodes[:1], strict=True):
            assert ref.justifies(step.dest, ((step.link, step.prio), nxt))
    # the certificate never changes the answer, only how it is reached
    full = analyse(snap, use_certificate=False)
    assert (full.nodes_on_cycles, full.cycles) == (result.nodes_on_cycles, result.cycles)
    if result.certified:
        assert not expected


SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(snapshots())
def test_agrees_with_hop_by_hop_reference(snap: Snapshot) -> None:
    assert_agrees(snap)


@SETTINGS
@given(snapshots(ranked=True))
def test_valley_free_forwarding_is_certified(snap: Snapshot) -> None:
    snap = valley_free(snap)
    result = analyse(snap)
    assert result.certified and not result.bounces
    assert Reference(snap).on_cycles() == set()
    assert_agrees(snap)


@settings(max_examples=100, deadline=None)
@given(snapshots())
def test_file_form_round_trip(snap: Snapshot) -> None:
    """to_document -> parse_snapshot gives the same snapshot (ranks are not part of the file format)."""
    back = parse_snapshot(to_document(snap), SourceMap(), "x.yaml")
    assert back == dataclasses.replace(snap, ranks=None)
