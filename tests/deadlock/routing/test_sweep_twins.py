"""Twin renaming in the failure sweep (deadlock/twins.py): the renaming that ``Twins.keys`` promise exists, is an
automorphism of the fabric, and maps the routes and the added turns of one (failure, class) pair onto those the
full repair gives for every other pair of its orbit; a sweep that skips twins decides exactly what one that
repairs every class does (levels, risky failures, cycles, witnesses, bounces), with fewer repairs."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from deadlock_fabrics import clos3_intent, hand_built, leaf_spine_intent, load_state
from sweep_cases import NAMES, exact, state_of

from xoff.deadlock import failures
from xoff.deadlock.analysis import analyse
from xoff.deadlock.fabric import Fabric
from xoff.deadlock.failures import _Sweeper, sweep
from xoff.deadlock.forwarding import forwarding_ports
from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.repair import RouteView, repair
from xoff.deadlock.routing import Delta, route_class
from xoff.deadlock.twins import PairKey, Twins, _port_attrs, twins_of
from xoff.desired.models import FabricState

SEEDS = tuple(range(10))


def twin_fabric(seed: int) -> FabricState:
    """A small templated clos3 (pods of twin leaves, spine i of each pod to super-spine plane i), ASNs shared
    or per switch, drawn from ``seed``; now and then parallel leaf uplinks, a lossy link or an odd link (inside a
    tier or across two), which break some twins and the up-down shape (bounces, risky failures)."""
    rnd = random.Random(seed)
    pods, leaves, spines, supers = rnd.randint(2, 3), rnd.randint(2, 4), rnd.randint(1, 3), rnd.randint(1, 3)
    own = {t: rnd.random() < 0.5 for t in ("leaf", "spine", "super-spine")}
    switches: dict[str, tuple[str, int]] = {}
    links: list[tuple[str, str]] = []
    serial = itertools.count(1)

    def asn(role: str, shared: int) -> int:
        return 4200000000 + next(serial) if own[role] else shared

    doubled = rnd.random() < 0.3
    for p in range(pods):
        for s in range(spines):
            switches[f"p{p}s{s}"] = ("spine", asn("spine", 65100 + p))
        for t in range(leaves):
            switches[f"p{p}l{t}"] = ("leaf", asn("leaf", 65200))
            for s in range(spines):
                links.extend([(f"p{p}l{t}", f"p{p}s{s}")] * (2 if doubled and s == 0 else 1))
    for s in range(spines):
        for k in range(supers):
            switches[f"x{s}_{k}"] = ("super-spine", asn("super-spine", 65000))
            links.extend((f"p{p}s{s}", f"x{s}_{k}") for p in range(pods))
    names = list(switches)
    for _ in range(rnd.choice((0, 0, 1, 2))):
        a, b = rnd.sample(names, 2)
        links.append((a, b))
    lossy = frozenset([rnd.choice(links)]) if rnd.random() < 0.3 else frozenset()
    leaves_all = [n for n, (role, _) in switches.items() if role == "leaf"]
    return hand_built(switches, links, leaves_all, lossy_links=lossy)


def _fixed(tmp: Path) -> dict[str, FabricState]:
    return {
        "leaf-spine-4x6": load_state(tmp, leaf_spine_intent(6, 4)),
        "clos3-4pods": load_state(tmp, clos3_intent(4, 4, 2, 4)),
    }


# -- the renaming ---------------------------------------------------------------------------------------------


def renaming(fab: Fabric, tw: Twins, src: tuple[int, int, int, int], dst: tuple[int, int, int, int]) -> list[int]:
    """A port renaming (gp -> gp) that maps ``src`` = (class switch, link end x, end y, link) onto ``dst``, built
    from the twin groups alone; checked to be an automorphism of the fabric."""
    group = tw.group
    members: dict[int, list[int]] = {}
    for v, g in enumerate(group):
        members.setdefault(g, []).append(v)
    pi = list(range(len(fab.switches)))
    pinned = dict(zip(src[:3], dst[:3], strict=True))
    for g in {group[v] for v in pinned}:
        mine = {s: t for s, t in pinned.items() if group[s] == g}
        rest_s = [v for v in members[g] if v not in mine]
        rest_t = [v for v in members[g] if v not in mine.values()]
        for s, t in [*mine.items(), *zip(rest_s, rest_t, strict=True)]:
            pi[s] = t
    assert sorted(pi) == list(range(len(pi)))
    sigma = [-1] * len(fab.port_owner)
    between: dict[tuple[int, int], list[int]] = {}  # (lower switch, higher switch) -> the links joining them
    for li, (gx, gy) in enumerate(fab.link_ports):
        x, y = fab.port_owner[gx], fab.port_owner[gy]
        between.setdefault((min(x, y), max(x, y)), []).append(li)
    for (a, b), joining in between.items():
        ta, tb = pi[a], pi[b]
        lis, targets = joining, list(between[min(ta, tb), max(ta, tb)])
        if src[3] in lis:  # the failed link goes onto the failed link, its parallel twins onto the rest
            lis = [src[3], *(li for li in lis if li != src[3])]
            targets = [dst[3], *(li for li in targets if li != dst[3])]
        for li in lis:
            ga, _ = _ends(fab, li, a)
            match = next(t for t in targets if _ends(fab, t, ta)[1] == _port_attrs(fab, ga))
            targets.remove(match)
            sigma[ga], sigma[_ends(fab, li, b)[0]] = _ends(fab, match, ta)[0], _ends(fab, match, tb)[0]
    _assert_automorphism(fab, pi, sigma)
    return sigma


def _ends(fab: Fabric, li: int, v: int) -> tuple[int, tuple[object, ...]]:
    gp = next(g for g in fab.link_ports[li] if fab.port_owner[g] == v)
    return gp, _port_attrs(fab, gp)


def _assert_automorphism(fab: Fabric, pi: list[int], sigma: list[int]) -> None:
    held = Counter(fab.asn)
    assert sorted(sigma) == list(range(len(sigma)))
    for gp, to in enumerate(sigma):
        assert fab.port_owner[to] == pi[fab.port_owner[gp]]
        assert fab.port_peer[to] == sigma[fab.port_peer[gp]]
        assert _port_attrs(fab, to) == _port_attrs(fab, gp)
    for v, w in enumerate(pi):
        assert fab.rank[w] == fab.rank[v]
        assert fab.asn[w] == fab.asn[v] or held[fab.asn[w]] == held[fab.asn[v]] == 1


# -- per pair: routes and added turns are the renamed ones -------------------------------------------------------


def _pairs(sw: _Sweeper) -> dict[PairKey, list[tuple[int, int]]]:
    tw = sw.twins
    assert tw is not None
    out: dict[PairKey, list[tuple[int, int]]] = {}
    for li, classes in sorted(sw.crit.items()):
        for c, key in zip(classes, tw.keys(li, classes), strict=True):
            out.setdefault(key, []).append((li, c))
    return out


def _after(sw: _Sweeper, li: int, c: int) -> tuple[dict[int, tuple[int, ...]], Delta]:
    fab = sw.fab
    dead = sw.base_dead | {li}
    delta: Delta = {}
    repair(fab, sw.routing, fab.dest_of(c), sw.routes[c], delta, set(dead), li)
    get = RouteView(sw.routes[c], delta)
    fwd = {v: f for v in range(len(fab.switches)) if (f := forwarding_ports(fab, c, v, get(v), dead))}
    assert fwd == {v: e[1] for v, e in route_class(fab, fab.dest_of(c), sw.routing, dead).items() if e[1]}
    return fwd, delta


def _renamed(fwd: dict[int, tuple[int, ...]], sigma: list[int], fab: Fabric) -> dict[int, frozenset[int]]:
    return {fab.port_owner[sigma[q[0]]]: frozenset(sigma[p] for p in q) for v, q in fwd.items()}


def _turns(sw: _Sweeper, li: int, c: int, delta: Delta, bounces: bool) -> set[tuple[int, int]]:
    width = len(sw.fab.port_owner)
    return {divmod(k, width) for k in sw.class_turns(c, delta, sw.base_dead | {li}, bounces)}


def _check_orbits(state: FabricState, routing: str) -> int:
    sw = _Sweeper(fabric_of(state, "compute", ()), routing, analyse)  # type: ignore[arg-type]
    fab, tw = sw.fab, sw.twins
    assert tw is not None
    compared = 0
    for pairs in _pairs(sw).values():
        (li0, c0), rest = pairs[0], pairs[1:]
        fwd0, delta0 = _after(sw, li0, c0)
        for li, c in rest:
            x0, y0 = (fab.port_owner[g] for g in fab.link_ports[li0])
            x, y = (fab.port_owner[g] for g in fab.link_ports[li])
            sigma = renaming(fab, tw, (fab.dest_of(c0), x0, y0, li0), (fab.dest_of(c), x, y, li))
            fwd, delta = _after(sw, li, c)
            assert {v: frozenset(q) for v, q in fwd.items()} == _renamed(fwd0, sigma, fab)
            base0, base = sw.fwd0[c0], sw.fwd0[c]
            assert {v: frozenset(q) for v, q in base.items()} == _renamed(base0, sigma, fab)
            for bounces in (True, False):
                renamed = {(sigma[p], sigma[q]) for p, q in _turns(sw, li0, c0, delta0, bounces)}
                assert _turns(sw, li, c, delta, bounces) == renamed
            compared += 1
    return compared


@pytest.mark.parametrize("routing", ["bgp", "igp"])
@pytest.mark.parametrize("seed", SEEDS)
def test_renamed_pairs_route_and_turn_as_renamed(seed: int, routing: str) -> None:
    _check_orbits(twin_fabric(seed), routing)


@pytest.mark.parametrize("routing", ["bgp", "igp"])
def test_renamed_pairs_on_the_reference_shapes(tmp_path: Path, routing: str) -> None:
    for name, state in _fixed(tmp_path).items():
        assert _check_orbits(state, routing) > 0, name


def test_the_random_twin_fabrics_have_orbits_to_skip() -> None:
    compared = sum(_check_orbits(twin_fabric(s), "bgp") for s in SEEDS)
    assert compared > 100


def test_twins_are_what_the_shape_says(tmp_path: Path) -> None:
    fab = _Sweeper(fabric_of(load_state(tmp_path, clos3_intent(3, 4, 2, 4)), "compute", ()), "bgp", analyse).fab
    tw = twins_of(fab)
    assert tw is not None
    names = fab.switches
    groups: dict[int, list[str]] = {}
    for v, g in enumerate(tw.group):
        groups.setdefault(g, []).append(names[v])
    sizes = sorted(len(g) for g in groups.values())
    # 3 pods of 4 twin leaves, 2 planes of 2 twin super-spines; no two spines alike
    assert sizes == [1] * 6 + [2, 2] + [4, 4, 4]


def test_no_twins_with_static_routes(tmp_path: Path) -> None:
    state, statics = state_of("static-bounce", tmp_path)
    sw = _Sweeper(fabric_of(state, "compute", statics), "bgp", analyse)
    assert sw.twins is None


# -- whole sweeps: the same decisions, fewer repairs ---------------------------------------------------------------


def _counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    calls: Counter[str] = Counter()
    real = failures.repair

    def counting(*args: Any, **kwargs: Any) -> None:
        calls["repair"] += 1
        real(*args, **kwargs)

    monkeypatch.setattr(failures, "repair", counting)
    return calls


def _both(state: FabricState, routing: str, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[int, int]:
    calls = _counted(monkeypatch)
    with_twins = exact(sweep(state, routing=routing, max_failures=2, **kw))  # type: ignore[arg-type]
    skipping = calls["repair"]
    calls.clear()
    every = exact(sweep(state, routing=routing, max_failures=2, twins=False, **kw))  # type: ignore[arg-type]
    assert with_twins == every
    return skipping, calls["repair"]


@pytest.mark.parametrize("routing", ["bgp", "igp"])
@pytest.mark.parametrize("seed", SEEDS)
def test_sweep_with_twins_decides_as_without(seed: int, routing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    skipping, every = _both(twin_fabric(seed), routing, monkeypatch)
    assert skipping <= every


@pytest.mark.parametrize("routing", ["bgp", "igp"])
@pytest.mark.parametrize("name", NAMES)
def test_sweep_cases_with_twins_decide_as_without(
    tmp_path: Path, name: str, routing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, statics = state_of(name, tmp_path)
    _both(state, routing, monkeypatch, static_routes=statics)


def test_twins_cut_the_repairs_of_a_clos3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = load_state(tmp_path, clos3_intent(4, 4, 2, 4))
    skipping, every = _both(state, "bgp", monkeypatch)
    assert skipping * 3 < every, (skipping, every)


def test_the_pool_decides_as_one_process_with_twins(monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in SEEDS[:4]:
        state = twin_fabric(seed)
        one = exact(sweep(state, routing="bgp", max_failures=1))
        assert exact(sweep(state, routing="bgp", max_failures=1, workers=2)) == one
