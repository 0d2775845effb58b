"""What the failure sweep (``failures.sweep``) found: per-level counts, risky scenarios, text and JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xoff.deadlock.analysis import Result
from xoff.deadlock.render import render_text
from xoff.deadlock.routing import Routing

_MAX_LISTED_BOUNCES = 8


@dataclass(frozen=True, slots=True)
class BounceTurn:
    """A down -> up turn a failure adds: at ``switch`` from ``in_port`` (from ``came_from``) to ``out_port``."""

    switch: str
    in_port: str
    out_port: str
    came_from: str
    goes_to: str
    dest: str  # the switch whose hosts' traffic makes the turn

    def __str__(self) -> str:
        return f"{self.came_from} -> {self.switch} -> {self.goes_to} ({self.switch}: {self.in_port} -> {self.out_port}, for hosts of {self.dest})"

    def to_json(self) -> dict[str, str]:
        return {
            "switch": self.switch,
            "in_port": self.in_port,
            "out_port": self.out_port,
            "from": self.came_from,
            "to": self.goes_to,
            "dest_class": self.dest,
        }


@dataclass(frozen=True)
class Scenario:
    """One failure set with deadlock risk: the failed links, the core's result and the bounces it adds."""

    failed: tuple[str, ...]
    result: Result
    bounces: tuple[BounceTurn, ...]

    def to_json(self) -> dict[str, Any]:
        full = self.result.to_json()
        return {
            "failed_links": list(self.failed),
            "deadlock_risk": full["deadlock_risk"],
            "risky_priorities": full["risky_priorities"],
            "example_cycle": full["example_cycle"],
            "witness": full["cycles"][0]["witness"] if full["cycles"] else [],
            "sccs": len(full["cycles"]),
            "nodes_on_cycles": len(full["nodes_on_cycles"]),
            "new_bounce_turns": [b.to_json() for b in self.bounces[:_MAX_LISTED_BOUNCES]],
            "new_bounce_turns_total": len(self.bounces),
        }


@dataclass
class LevelStats:
    """What happened at one failure count k."""

    scenarios: int = 0  # failure sets of size k (all of them)
    checked: int = 0  # failure sets checked (k = 2: the pairs that passed the filter)
    rerouted: int = 0  # destination classes re-routed over all checked sets (critical ones only)
    with_bounces: int = 0  # add at least one down -> up turn with a lossless edge
    targeted: int = 0  # needed the targeted search
    analysed: int = 0  # judged by the core analyse()
    risky: int = 0

    def add(self, other: LevelStats) -> None:
        """Add the counts of ``other`` (a part of the same level, judged apart) except the scenario total."""
        self.checked += other.checked
        self.rerouted += other.rerouted
        self.with_bounces += other.with_bounces
        self.targeted += other.targeted
        self.analysed += other.analysed
        self.risky += other.risky

    def to_json(self) -> dict[str, int]:
        return {
            "scenarios": self.scenarios,
            "checked": self.checked,
            "classes_rerouted": self.rerouted,
            "with_bounces": self.with_bounces,
            "targeted_search": self.targeted,
            "analysed": self.analysed,
            "risky": self.risky,
        }


@dataclass
class SweepReport:
    fabric: str
    network: str
    routing: Routing
    max_failures: int
    fabric_links: int
    baseline: Result
    levels: dict[int, LevelStats]
    risky: list[Scenario]
    resilient_to: int | None  # largest k checked with no risk; None when the baseline has risk
    pair_filter: str = ""
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def deadlock_risk(self) -> bool:
        return self.baseline.deadlock_risk or bool(self.risky)

    def to_json(self) -> dict[str, Any]:
        base = self.baseline.to_json()
        return {
            "fabric": self.fabric,
            "network": self.network,
            "routing": self.routing,
            "max_failures": self.max_failures,
            "fabric_links": self.fabric_links,
            "deadlock_risk": self.deadlock_risk,
            "resilient_to": self.resilient_to,
            "baseline": {
                "deadlock_risk": base["deadlock_risk"],
                "certified": base["certified"],
                "risky_priorities": base["risky_priorities"],
                "nodes_on_cycles": base["nodes_on_cycles"],
                "example_cycle": base["example_cycle"],
                "cycles": base["cycles"],
                "pfc_mismatches": base["pfc_mismatches"],
                "counts": base["counts"],
            },
            "levels": {str(k): s.to_json() for k, s in sorted(self.levels.items())},
            "pair_filter": self.pair_filter or None,
            "risky_scenarios": [s.to_json() for s in self.risky],
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
        }

    def to_text(self) -> str:
        lines = [
            f"{self.fabric} / {self.network}: routing {self.routing}, failures up to {self.max_failures}, "
            f"{self.fabric_links} fabric links",
            "baseline:",
        ]
        lines.extend("  " + line for line in render_text(self.baseline).splitlines())
        for k, s in sorted(self.levels.items()):
            if k == 0:
                continue
            what = "single link failures" if k == 1 else "double link failures"
            lines.append(
                f"{what}: {s.scenarios} scenario(s), {s.checked} checked ({s.rerouted} destination-class re-routes), "
                f"{s.with_bounces} add down-to-up turns, {s.targeted} needed the targeted search, "
                f"{s.analysed} fully analysed, {s.risky} with risk"
            )
        if self.pair_filter:
            lines.append(f"  pairs searched: {self.pair_filter}")
        for sc in self.risky:
            lines.append(f"RISK after failure of {', '.join(sc.failed)}:")
            lines.extend("  " + line for line in render_text(sc.result).splitlines()[1:])
            if sc.bounces:
                lines.append(f"  down-to-up turns the failure adds ({len(sc.bounces)}):")
                lines.extend(f"    {b}" for b in sc.bounces[:_MAX_LISTED_BOUNCES])
                if len(sc.bounces) > _MAX_LISTED_BOUNCES:
                    lines.append(f"    ... {len(sc.bounces) - _MAX_LISTED_BOUNCES} more")
        if self.resilient_to is None:
            lines.append("verdict: DEADLOCK RISK in the baseline itself")
        elif self.resilient_to >= self.max_failures:
            lines.append(
                f"verdict: no deadlock risk with up to {self.max_failures} failed link(s) "
                f"(largest k checked without risk: {self.resilient_to})"
            )
        else:
            lines.append(
                f"verdict: DEADLOCK RISK after {self.resilient_to + 1} failed link(s) "
                f"(largest k checked without risk: {self.resilient_to})"
            )
        return "\n".join(lines)
