"""``--scale``: the same design at a reduced size (for the lab, or to review a small copy of a large fabric).

``S`` is ``min`` or a factor in (0, 1] (``0.5``, ``1/4``). Each count that repeats the design is multiplied by the
factor and rounded up; ``min`` takes each count's floor. A count never goes below the floor that keeps the design
what it is, and a factor that would take it there is refused with one located line:

| count | floor | why |
|---|---|---|
| pods of a ``clos3`` | 2 (or all, when fewer) | the super-spine tier joins pods: one pod leaves it joining nothing |
| planes (switches' ``plane``, ``clos3``'s spines per pod) | 2 (or all) | a multi-plane fabric stays multi-plane |
| spines of a ``leaf_spine`` | 2 (or all) | a leaf keeps two uplinks to hash over (ECMP, adaptive routing) |
| super-spines per plane | 1 | |
| rails per network (NICs per host) | 2 (or all) | rail-optimised (and dual-ToR) cabling needs two rails |
| hosts per ``rail_optimized`` group | 1 (2 in a fabric of one group) | every pod keeps a host; GPU traffic has a peer |

What makes the design is never scaled: tiers, the roles' ports (split ports), QoS policies and the congestion-control
profile, load balancing, tenants (each keeps at least one of its NICs, else the scale is refused). GPUs per host
shrink with the rails. The leaves, spines and super-spines kept are the ones the kept hosts, rails, pods and planes
still reach; explicit links stay when both ends do.

:func:`scale_intent` returns the reduced intent as data (written by :mod:`xoff.intent.scale_write`) and one line per
count it reduced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from xoff.errors import InputError, Location, Problem
from xoff.intent.files import read_intent_parts
from xoff.intent.load import load_intent
from xoff.intent.patterns import expand_names
from xoff.intent.resolved import Intent
from xoff.intent.yamlsource import SourceMap, dotted

MIN = "min"


@dataclass(frozen=True)
class Scale:
    """``min``, or a factor in (0, 1]."""

    text: str
    factor: Fraction | None  # None: min

    def count(self, n: int, floor: int) -> int:
        if self.factor is None:
            return min(n, floor)
        return math.ceil(n * self.factor)


def parse_scale(text: str) -> Scale:
    """``min``, ``0.5`` or ``1/4``; a bad value is a usage problem (exit 2)."""
    allowed = "allowed: min, or a factor in (0, 1] such as 0.5 or 1/4"
    if text.strip().lower() == MIN:
        return Scale(MIN, None)
    try:
        factor = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise InputError([Problem(Location("--scale", 1, 1), text, f"not a scale ({allowed})")]) from None
    if not 0 < factor <= 1:
        raise InputError([Problem(Location("--scale", 1, 1), text, f"out of range ({allowed})")])
    return Scale(text.strip(), factor)


@dataclass
class Reduction:
    """What is kept: devices and NICs, and the counts that were reduced (one line each)."""

    switches: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)
    rails: dict[str, int] = field(default_factory=dict)  # network -> rails kept (0 .. n-1)
    pods: dict[int, int] = field(default_factory=dict)  # cabling index of a clos3 -> pods kept
    said: list[str] = field(default_factory=list)
    refused: list[tuple[Fraction, tuple[str | int, ...], str]] = field(
        default_factory=list
    )  # least factor, where, what
    problems: list[Problem] = field(default_factory=list)

    def nic_kept(self, intent: Intent, host: str, netdev: str) -> bool:
        nic = intent.hosts[host].nics[netdev]
        return nic.rail is None or nic.network not in self.rails or nic.rail < self.rails[nic.network]


@dataclass
class _Ctx:
    intent: Intent
    data: dict[str, Any]
    smap: SourceMap
    scale: Scale
    out: Reduction = field(default_factory=Reduction)

    def count(self, n: int, floor: int, what: str, why: str, at: tuple[str | int, ...]) -> int:
        """``n`` scaled; below its floor: a refusal (the floor is used so the rest is still judged)."""
        floor = min(n, floor)
        got = max(self.scale.count(n, floor), floor) if n == floor else self.scale.count(n, floor)
        if got < floor:
            self.out.refused.append((Fraction(floor, n), at, f"{got} of the {n} {what} ({why} needs {floor})"))
            return floor
        if got < n:
            self.out.said.append(f"{what}: {n} -> {got}")
        return got

    def refusal(self) -> Problem:
        """Every count the scale would break, in one line, at the first one's place."""
        where = [(self.smap.value(at) or self.smap.key(at), at) for _, at, _ in self.out.refused]
        first = min(range(len(where)), key=lambda k: where[k][0] or Location("", 0, 0))
        least = max(f for f, _, _ in self.out.refused)
        what = "; ".join(text for _, _, text in self.out.refused)
        return Problem(
            where[first][0],
            dotted(where[first][1]),
            f"--scale {self.scale.text} would break the design: it leaves {what}"
            f" (allowed: --scale min, or a factor of at least {least})",
        )


def _generators(ctx: _Ctx, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, g) for i, g in enumerate(ctx.data.get("cabling", [])) if isinstance(g, dict) and g.get("kind") == kind]


def _rails(ctx: _Ctx) -> None:
    by_net: dict[str, int] = {}
    for host in ctx.intent.hosts.values():
        for nic in host.nics.values():
            if nic.rail is not None:
                by_net[nic.network] = max(by_net.get(nic.network, 0), nic.rail + 1)
    for net, n in sorted(by_net.items()):
        profile = next(
            h.profile_name for h in ctx.intent.hosts.values() if any(x.network == net for x in h.nics.values())
        )
        at: tuple[str | int, ...] = ("host_profiles", profile, "nics")
        ctx.out.rails[net] = ctx.count(n, 2, f"{net} rails (NICs per host)", "rail-optimised cabling", at)


def _pods(ctx: _Ctx) -> set[str]:
    """The switches of the pods dropped."""
    dropped: set[str] = set()
    for i, gen in _generators(ctx, "clos3"):
        pods = int(gen["pods"])
        kept = ctx.count(pods, 2, f"pods of cabling[{i}] (clos3)", "a 3-tier Clos", ("cabling", i, "pods"))
        ctx.out.pods[i] = kept
        for key in ("leaves", "spines"):
            names = expand_names(gen[key])
            per = len(names) // pods
            dropped |= set(names[kept * per :])
    return dropped


def _planes(ctx: _Ctx) -> set[str]:
    """The switches of the planes dropped, and of the super-spines beyond each kept plane's count."""
    planes = sorted({s.plane for s in ctx.intent.switches.values() if s.plane is not None})
    if not planes:
        return set()
    first = next(n for n, s in ctx.intent.switches.items() if s.plane is not None)
    kept = set(planes[: ctx.count(len(planes), 2, "planes", "a multi-plane fabric", _switch_path(ctx, first))])
    dropped = {n for n, s in ctx.intent.switches.items() if s.plane is not None and s.plane not in kept}
    for plane in sorted(kept):
        supers = [n for n, s in ctx.intent.switches.items() if s.role == "super-spine" and s.plane == plane]
        if supers:
            at = _switch_path(ctx, supers[0])
            n = ctx.count(len(supers), 1, f"super-spines of plane {plane}", "a plane", at)
            dropped |= set(supers) - set(_pick(ctx, supers, n))
    return dropped


def _pick(ctx: _Ctx, names: list[str], n: int) -> list[str]:
    """``n`` of ``names``: the first of each platform among them, then the rest in order (a design of two NOSes
    keeps both)."""
    platform = {name: ctx.intent.switches[name].platform for name in names}
    first = list(dict.fromkeys({platform[name]: name for name in reversed(names)}.values()))
    chosen = set(first[:n]) | set(names[: max(0, n - len(first))])
    for name in names:
        if len(chosen) >= n:
            break
        chosen.add(name)
    return [name for name in names if name in chosen]


def _switch_path(ctx: _Ctx, name: str) -> tuple[str | int, ...]:
    for i, entry in enumerate(ctx.data.get("switches", [])):
        if name in expand_names(entry.get("name", "")):
            return ("switches", i)
    return ("switches",)


def _hosts(ctx: _Ctx, dropped: set[str]) -> None:
    """Hosts per rail group, among those whose leaves of the kept rails are all still there; a fabric of one group
    keeps two (GPU traffic has a peer)."""
    seen: set[str] = set()
    groups: list[tuple[tuple[str | int, ...], str, list[str]]] = []
    for i, gen in _generators(ctx, "rail_optimized"):
        hosts = [h for h in expand_names(gen["hosts"]) if h not in seen]
        seen |= set(hosts)
        leaves = expand_names(gen["leaves"])[: ctx.out.rails.get(gen.get("network", "compute"), 0)]
        if hosts and not any(leaf in dropped for leaf in leaves):
            groups.append((("cabling", i, "hosts"), f"hosts of cabling[{i}] (rail_optimized)", hosts))
    rest = [h for h in ctx.intent.hosts if h not in seen]
    if rest:
        groups.append((("hosts",), "hosts cabled by explicit links", rest))
    floor = 2 if len(groups) == 1 else 1
    for at, what, hosts in groups:
        n = ctx.count(len(hosts), floor, what, "a fabric of one rail group" if floor == 2 else "a rail group", at)
        ctx.out.hosts |= set(hosts[:n])
    eligible = {h for _, _, hosts in groups for h in hosts}
    for t in ctx.intent.tenants:  # every tenant keeps a host: the first of its own a kept group could hold
        mine = [h for h, nic in t.nics if h in eligible and ctx.out.nic_kept(ctx.intent, h, nic)]
        if mine and not ctx.out.hosts & set(mine):
            ctx.out.hosts.add(mine[0])
            ctx.out.said.append(f"tenant {t.name}: keeps {mine[0]}")


def _switches(ctx: _Ctx, dropped: set[str]) -> None:
    """Leaves the kept NICs reach (or that never had a host), then the tiers above what is left."""
    intent, out = ctx.intent, ctx.out
    host_links = [lk for lk in intent.links if lk.role == "host_leaf"]
    had_hosts = {end[0] for lk in host_links for end in (lk.a, lk.b) if end[0] in intent.switches}
    reached = {
        sw[0]
        for lk in host_links
        for host, sw in ((lk.a, lk.b), (lk.b, lk.a))
        if host[0] in out.hosts and out.nic_kept(intent, host[0], host[1])
    }
    leaves = {n for n, s in intent.switches.items() if s.role == "leaf" and n not in dropped}
    keep = {n for n in leaves if n in reached or n not in had_hosts}
    for i, gen in _generators(ctx, "leaf_spine"):
        spines = [s for s in expand_names(gen["spines"]) if s not in dropped]
        if spines and any(leaf in keep for leaf in expand_names(gen["leaves"])):
            n = ctx.count(len(spines), 2, f"spines of cabling[{i}] (leaf_spine)", "ECMP", ("cabling", i, "spines"))
            dropped |= set(spines) - set(_pick(ctx, spines, n))
    for tier in ("spine", "super-spine"):  # a switch no kept switch below it reaches goes too
        below = {
            peer[0]
            for lk in intent.links
            for me, peer in ((lk.a, lk.b), (lk.b, lk.a))
            if me[0] in keep and peer[0] in intent.switches and intent.switches[peer[0]].role == tier
        }
        keep |= below - dropped
    out.switches = keep | {
        n for n in intent.switches if intent.switches[n].role not in ("leaf", "spine", "super-spine")
    }


def _tally(ctx: _Ctx) -> None:
    intent, out = ctx.intent, ctx.out
    for role in ("leaf", "spine", "super-spine"):
        n = sum(s.role == role for s in intent.switches.values())
        kept = sum(intent.switches[s].role == role for s in out.switches)
        if kept < n:
            out.said.append(f"{role} switches: {n} -> {kept}")
    for t in intent.tenants:
        if not any(h in out.hosts and out.nic_kept(intent, h, nic) for h, nic in t.nics):
            at = next(
                (("tenants", i) for i, x in enumerate(ctx.data.get("tenants", [])) if x.get("name") == t.name),
                ("tenants",),
            )
            out.problems.append(
                Problem(
                    ctx.smap.value(at),
                    dotted(at),
                    f"--scale {ctx.scale.text} keeps none of tenant {t.name}'s NICs (allowed: a larger --scale)",
                )
            )


def reduce(path: Path, scale: Scale) -> tuple[Intent, dict[str, Any], Reduction]:
    """The full intent (loaded strictly: its own problems first), its merged data, and what ``scale`` keeps;
    ``InputError`` with one located line per count that would break the design's shape."""
    intent = load_intent(path)
    raw = read_intent_parts(path)
    ctx = _Ctx(intent, raw.data, raw.smap, scale)
    ib = [k for k, net in intent.document.networks if getattr(net, "kind", None) == "infiniband"]
    if ib or intent.ib_switches:
        at = ("networks", ib[0]) if ib else ("ib_switches",)
        message = "an InfiniBand fabric is not reduced yet (allowed: an Ethernet/RoCE intent)"
        raise InputError([Problem(raw.smap.value(at) or raw.smap.key(at), dotted(at), f"--scale: {message}")])
    _rails(ctx)
    dropped = _pods(ctx) | _planes(ctx)
    _hosts(ctx, dropped)
    _switches(ctx, dropped)
    _tally(ctx)
    if ctx.out.refused:
        raise InputError([ctx.refusal()])
    if ctx.out.problems:
        raise InputError(ctx.out.problems)
    return intent, raw.data, ctx.out


def shape(intent: Intent) -> dict[str, Any]:
    """What makes the design that design, with each count at its floor: two fabrics of one design agree on it."""
    sw = intent.switches
    leaf_plane = {n: s.plane for n, s in sw.items() if s.role == "leaf" and s.plane is not None}
    host_planes: dict[str, set[int]] = {}
    for lk in intent.links:
        for me, peer in ((lk.a, lk.b), (lk.b, lk.a)):
            plane = leaf_plane.get(peer[0])
            if me[0] in intent.hosts and plane is not None:
                host_planes.setdefault(me[0], set()).add(plane)
    return {
        "tiers": sorted({s.role for s in sw.values()}),
        "planes": min(2, len({s.plane for s in sw.values() if s.plane is not None})),
        "pods": min(2, len({s.pod for s in sw.values() if s.pod is not None})),
        "planes per host": max(map(len, host_planes.values()), default=0),
        "port speeds per role": sorted({(s.role, p.speed) for s in sw.values() for p in s.ports.values()}),
        "platforms": sorted({s.platform for s in sw.values()}),
        "tenants": sorted(t.name for t in intent.tenants),
    }


def check_shape(full: Intent, reduced: Intent, where: Path) -> None:
    """The reduced fabric keeps the full one's shape, or one located line says what it lost (a safety net)."""
    want, got = shape(full), shape(reduced)
    lost = [f"{k} {want[k]} -> {got[k]}" for k in want if want[k] != got[k]]
    if lost:
        raise InputError(
            [Problem(Location(str(where), 1, 1), "", f"the reduced fabric lost its shape: {'; '.join(lost)}")]
        )
