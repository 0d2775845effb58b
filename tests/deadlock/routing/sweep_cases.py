"""The fabrics of the sweep exactness harness (test_sweep_exact.py): the failure-sweep test table's shapes,
the ring and static-route cases, and small random tiered fabrics drawn from fixed seeds."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deadlock_fabrics import clos3_intent, hand_built, leaf_spine_intent, load_state

from xoff.deadlock.index_state import fabric_of
from xoff.deadlock.statics import StaticRoute
from xoff.deadlock.sweep_report import SweepReport
from xoff.desired.models import FabricState

ROLES = ("leaf", "spine", "super-spine")
Case = tuple[Callable[[Path], FabricState], tuple[StaticRoute, ...]]


def random_fabric(seed: int) -> FabricState:
    """2 or 3 tiers of 2-4 switches; each switch wired to a random non-empty set of the tier above
    (sometimes twice: parallel links), now and then a link inside a tier or skipping one (non-up-down
    shapes), ASNs shared per tier or unique, a lossy link now and then; a host on every leaf."""
    rnd = random.Random(seed)
    tiers = [[f"t{t}s{i}" for i in range(rnd.randint(2, 4))] for t in range(rnd.randint(2, 3))]
    shared = rnd.random() < 0.5
    switches = {
        name: (ROLES[t], (65000 + 100 * t) if shared and t else 65000 + 100 * t + i + 1)
        for t, names in enumerate(tiers)
        for i, name in enumerate(names)
    }
    links: list[tuple[str, str]] = []
    for lower, upper in itertools.pairwise(tiers):
        for a in lower:
            for b in rnd.sample(upper, rnd.randint(1, len(upper))):
                links.extend([(a, b)] * (2 if rnd.random() < 0.15 else 1))
    names = list(switches)
    for _ in range(rnd.randint(0, 2)):  # an odd link: inside a tier, or across two tiers
        a, b = rnd.sample(names, 2)
        links.append((a, b))
    lossy = frozenset([rnd.choice(links)]) if rnd.random() < 0.3 else frozenset()
    return hand_built(switches, links, tiers[0], lossy_links=lossy)


def _mesh3() -> FabricState:
    switches: dict[str, tuple[str, int]] = {}
    links = []
    for p in range(3):
        for t in range(3):
            switches[f"p{p}t{t}"] = ("leaf", 4200000001 + 3 * p + t)
        for a in range(3):
            switches[f"p{p}a{a}"] = ("spine", 65100 + p)
            links.extend((f"p{p}t{t}", f"p{p}a{a}") for t in range(3))
    for s in range(3):
        switches[f"s{s}"] = ("super-spine", 65000)
        links.extend((f"p{p}a{a}", f"s{s}") for p in range(3) for a in range(3))
    return hand_built(switches, links, [f"p{p}t{t}" for p in range(3) for t in range(3)])


def _ring(lossy: bool) -> FabricState:
    return hand_built(
        {f"r{i}": ("leaf", 65000 + i) for i in range(5)},
        [(f"r{i}", f"r{(i + 1) % 5}") for i in range(5)],
        [f"r{i}" for i in range(5)],
        lossy_links=frozenset({("r0", "r1")}) if lossy else frozenset(),
    )


def _unique_spines() -> FabricState:
    switches = {f"l{i}": ("leaf", 65001 + i) for i in range(4)} | {f"s{i}": ("spine", 65100 + i) for i in range(2)}
    return hand_built(switches, [(f"l{i}", f"s{j}") for i in range(4) for j in range(2)], [f"l{i}" for i in range(4)])


def _static_bounce(tmp: Path) -> FabricState:
    return load_state(tmp, leaf_spine_intent(4, 2))


def _static_routes(state: FabricState) -> tuple[StaticRoute, ...]:
    ends = {(a, b): (ap, bp) for a, ap, b, bp in fabric_of(state).link_ends}
    s1_l2, s2_l2 = ends[("spine1", "leaf2")], ends[("spine2", "leaf2")]
    return (StaticRoute("spine1", "leaf1", (s1_l2[0],)), StaticRoute("leaf2", "leaf1", (s2_l2[1],)))


FIXED: dict[str, Callable[[Path], FabricState]] = {
    "leaf-spine-2x4": lambda tmp: load_state(tmp, leaf_spine_intent(4, 2)),
    "leaf-spine-4x6": lambda tmp: load_state(tmp, leaf_spine_intent(6, 4)),
    "clos3-planes": lambda tmp: load_state(tmp, clos3_intent(3, 2, 2, 4)),
    "clos3-mesh": lambda _: _mesh3(),
    "ring": lambda _: _ring(False),
    "ring-lossy": lambda _: _ring(True),
    "unique-spine-asns": lambda _: _unique_spines(),
    "static-bounce": _static_bounce,
}
SEEDS = tuple(range(12))
NAMES = (*FIXED, *(f"random-{s}" for s in SEEDS))


def state_of(name: str, tmp: Path) -> tuple[FabricState, tuple[StaticRoute, ...]]:
    if name.startswith("random-"):
        return random_fabric(int(name.split("-")[1])), ()
    state = FIXED[name](tmp)
    return state, (_static_routes(state) if name == "static-bounce" else ())


def exact(report: SweepReport) -> dict[str, Any]:
    """Everything a sweep decides (not its timings): the report and, per risky scenario, the digest of its
    full result (every cycle, witness, node on a cycle) and of every bounce it adds; the first three in full."""
    doc = report.to_json()
    doc.pop("seconds")
    scenarios = doc.pop("risky_scenarios")
    full = [
        {"failed": list(s.failed), "result": _untimed(s.result.to_json()), "bounces": [b.to_json() for b in s.bounces]}
        for s in report.risky
    ]
    doc["risky_first"] = full[:3]
    doc["risky_digests"] = [
        [" + ".join(f["failed"]), hashlib.sha256(json.dumps([f, _untimed(s)], sort_keys=True).encode()).hexdigest()]
        for f, s in zip(full, scenarios, strict=True)
    ]
    return doc


def _untimed(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "timings"}
