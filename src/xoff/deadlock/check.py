"""The validator check ``deadlock.cbd``: no cyclic buffer dependency, at baseline and after link failures.

For every lossless RoCE network of the subject (desired or observed FabricState): forwarding from
the routing model (eBGP with the fabric's ASNs by default), the core analysis of the baseline, and
the incremental link-failure sweep (``failures.sweep``, single failures by default). Each state with deadlock risk is
one finding, with the failed links and the witness cycle (switches in order, and its down -> up
turns, the actionable causes). A catalog picks another policy with the check's parameters, e.g.
``deadlock.cbd: {routing: igp, max_failures: 2}``; ``run(subject)`` (no catalog) uses the class
defaults ``routing`` / ``max_failures``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from pydantic import Field

from xoff.deadlock.analysis import Result
from xoff.deadlock.failures import BounceTurn, sweep
from xoff.deadlock.routing import Routing, roce_networks
from xoff.desired.models import FabricState
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding, Severity
from xoff.validate.registry import Check, register

_MAX_TURNS = 3


def _networks(subject: FabricState) -> list[str]:
    """Lossless RoCE networks that have at least one switch."""
    with_switches = {d.network for d in subject.devices.values() if d.kind == "switch"}
    return [n for n in roce_networks(subject) if n in with_switches]


def _witness(result: Result) -> tuple[str, str, str]:
    """(device to blame, the cycle as switches in order, its down -> up turns)."""
    cycle = result.cycles[0]
    steps = cycle.steps
    path = " -> ".join([s.switch for s in steps] + [steps[0].switch])
    bounces = cycle.bounces
    device = bounces[0].switch if bounces else steps[0].switch
    turns = "; ".join(f"{b.turn} for {b.dest}" for b in bounces[:_MAX_TURNS]) or "none"
    if len(bounces) > _MAX_TURNS:
        turns += f"; ... {len(bounces) - _MAX_TURNS} more"
    return device, path, turns


def _finding(network: str, failed: Sequence[str], result: Result, added: Sequence[BounceTurn] = ()) -> Finding:
    device, path, turns = _witness(result)
    prios = ", ".join(str(p) for p in result.risky_priorities)
    where = f"network {network}, " + (f"after failure of {', '.join(failed)}" if failed else "baseline")
    problem = (
        f"cyclic buffer dependency (PFC deadlock risk) on priority {prios}: "
        f"{len(result.nodes_on_cycles)} buffer(s) on cycles; witness {path}; down-to-up turns: {turns}"
    )
    if added:
        problem += f"; the failure adds {len(added)} down-to-up turn(s), e.g. {added[0]}"
    return Finding(device, where, problem, expected="no cycle (up*/down* forwarding)", actual=f"cycle {path}")


@register
class CyclicBufferDependency(Check):
    """A cyclic buffer dependency on a lossless RoCE network: PFC pauses that can wait on each other in a
    loop and freeze the fabric (deadlock risk). Forwarding comes from the routing model (eBGP with the
    fabric's RFC 7938 ASN plan, and the static routes the intent declares); the baseline and every single
    fabric-link failure are checked. A finding names the failed link(s), the witness cycle (switches in
    order) and its down-to-up turns (bounces), which are what to fix: a static or default route, an ASN
    plan that lets valley paths through, or cabling outside the Clos."""

    class Params(CheckParams):
        max_failures: Literal[0, 1, 2] = Field(
            default=1, description="also check every single (1) or the filtered double (2) fabric-link failures"
        )
        routing: Literal["bgp", "igp"] = Field(default="bgp", description="the underlay's routing model")

    id = "deadlock.cbd"
    title = "No cyclic buffer dependency on lossless RoCE networks (PFC deadlock), at baseline and after link failures"
    severity = Severity.ERROR
    routing: ClassVar[Routing] = "bgp"
    max_failures: ClassVar[int] = 1

    def applies(self, subject: FabricState) -> str | None:
        return None if _networks(subject) else "no lossless RoCE network with switches in this fabric"

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        params = ctx.params_as(self.Params)
        given = params.model_fields_set  # what a catalog set; the rest follows the class (and its subclasses)
        routing = params.routing if "routing" in given else self.routing
        max_failures = params.max_failures if "max_failures" in given else self.max_failures
        return self._findings(ctx.subject, routing, max_failures)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        return self._findings(subject, self.routing, self.max_failures)

    def _findings(self, subject: FabricState, routing: Routing, max_failures: int) -> Iterable[Finding]:
        for network in _networks(subject):
            report = sweep(subject, routing=routing, max_failures=max_failures, network=network)
            if report.baseline.deadlock_risk:
                yield _finding(network, (), report.baseline)
            for scenario in report.risky:
                yield _finding(network, scenario.failed, scenario.result, scenario.bounces)
