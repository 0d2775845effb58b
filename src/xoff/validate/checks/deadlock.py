"""The validator check ``deadlock.cbd``: no cyclic buffer dependency, at baseline and after link failures.

For every lossless RoCE network of the subject (desired or observed FabricState): forwarding from
the routing model (eBGP with the fabric's ASNs by default), the core analysis of the baseline, and
the incremental link-failure sweep (``failures.sweep``, single failures by default). Each state with deadlock risk is
one finding, with the failed links and the witness cycle (switches in order, and its down -> up
turns, the actionable causes). A catalog picks another policy with the check's parameters, e.g.
``deadlock.cbd: {routing: igp, max_failures: 2}``; ``run(subject)`` (no catalog) uses the class
defaults ``routing`` / ``max_failures``.

On collected state (an observed snapshot), the baseline is what the switches really forward: each
switch's collected FIB (``Snapshot.fib``), longest-prefix matched per host endpoint (``from_fib``).
Every switch of the network must have one: a missing FIB is an error, never a pass on partial
forwarding. Link failures cannot be collected, so the sweep stays a what-if on the intent's routing
model. The result's message says which forwarding each part used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, Literal

from pydantic import Field

from xoff.contracts.fib import from_routes
from xoff.contracts.observed import Snapshot as Collected
from xoff.deadlock.analysis import Result, analyse
from xoff.deadlock.failures import sweep
from xoff.deadlock.from_fib import snapshot_from_fibs
from xoff.deadlock.index_state import roce_networks
from xoff.deadlock.routing import Routing
from xoff.deadlock.sweep_report import BounceTurn
from xoff.desired.models import FabricState
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.model import Finding, Severity
from xoff.validate.registry import Check, register

_MAX_TURNS = 3
_MAX_LINKS = 8
FIB_SOURCE = "forwarding from the collected FIBs"


class FibMissingError(RuntimeError):
    """A switch of the network has no collected FIB: the check cannot judge running state."""


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


def _links(result: Result) -> str:
    """The witness cycle's buffers: directed links at their priority, and a destination using each turn."""
    steps = result.cycles[0].steps
    text = ", ".join(f"{s.link} prio {s.prio} (for {s.dest})" for s in steps[:_MAX_LINKS])
    return text + (f", ... {len(steps) - _MAX_LINKS} more" if len(steps) > _MAX_LINKS else "")


def _finding(
    network: str, failed: Sequence[str], result: Result, added: Sequence[BounceTurn] = (), source: str = ""
) -> Finding:
    device, path, turns = _witness(result)
    prios = ", ".join(str(p) for p in result.risky_priorities)
    where = f"network {network}, " + (f"after failure of {', '.join(failed)}" if failed else "baseline")
    if source:
        where += f" ({source})"
    problem = (
        f"cyclic buffer dependency (PFC deadlock risk) on priority {prios}: "
        f"{len(result.nodes_on_cycles)} buffer(s) on cycles; witness {path}; down-to-up turns: {turns}; "
        f"links: {_links(result)}"
    )
    if added:
        problem += f"; the failure adds {len(added)} down-to-up turn(s), e.g. {added[0]}"
    return Finding(
        device,
        where,
        problem,
        expected="no cycle (up*/down* forwarding)",
        actual=f"cycle {path}",
        priority=result.risky_priorities[0],
    )


@register
class CyclicBufferDependency(Check):
    """A cyclic buffer dependency on a lossless RoCE network: PFC pauses that can wait on each other in a
    loop and freeze the fabric (deadlock risk). Forwarding comes from the routing model (eBGP with the
    fabric's RFC 7938 ASN plan, and the static routes the intent declares); the baseline and every single
    fabric-link failure are checked. A finding names the failed link(s), the witness cycle (switches in
    order) and its down-to-up turns (bounces), which are what to fix: a static or default route, an ASN
    plan that lets valley paths through, or cabling outside the Clos. On collected state (``--lab``,
    ``--snapshot``, live) the baseline is judged on the switches' collected FIBs (``show ip route``,
    longest prefix per host endpoint) and the finding lists the cycle's links at their priority, each
    with a destination using it; a switch without a collected FIB makes the check an error, not a pass.
    The failure sweep stays a what-if on the intent's routing model; the result says which ran."""

    class Params(CheckParams):
        max_failures: Literal[0, 1, 2] = Field(
            default=1, description="also check every single (1) or the filtered double (2) fabric-link failures"
        )
        routing: Literal["bgp", "igp"] = Field(default="bgp", description="the underlay's routing model")

    id = "deadlock.cbd"
    tags = ("lossless",)
    whole_fabric = frozenset({"switch"})  # on running state, a cycle search over every switch's FIB
    apart = True  # the failure sweep: over half of the offline checks at 10,000 GPUs; the others get a core
    # on collected state: which links are up and lossless (a host not read stays a destination, from the intent)
    reads = ("interfaces.*.admin_up", "interfaces.*.pfc_priorities")
    title = "No cyclic buffer dependency on lossless RoCE networks (PFC deadlock), at baseline and after link failures"
    hint = (
        "break the cycle at the bounce the finding names: remove the static or default route that sends traffic "
        "down and up again, fix the ASN plan so valley paths are refused, or recable to the Clos (xoff deadlock INTENT shows the cycle)"
    )
    severity = Severity.ERROR
    routing: ClassVar[Routing] = "bgp"
    max_failures: ClassVar[int] = 1

    def applies(self, subject: FabricState) -> str | None:
        return None if _networks(subject) else "no lossless RoCE network with switches in this fabric"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        """On collected state the baseline is the switches' FIBs: none collected, nothing to judge (some
        collected but not all is an error: the cycle search needs every switch of the network)."""
        reason = self.applies(ctx.subject)
        if reason is None and ctx.observed is not None and not ctx.observed.fib:
            return "no switch's forwarding table (FIB) observed in the snapshot"
        return reason

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        params = ctx.params_as(self.Params)
        given = params.model_fields_set  # what a catalog set; the rest follows the class (and its subclasses)
        routing = params.routing if "routing" in given else self.routing
        max_failures = params.max_failures if "max_failures" in given else self.max_failures
        if ctx.observed is not None:
            return self._on_collected(ctx.desired, ctx.observed, routing, max_failures)
        return self.run_policy(ctx.subject, routing, max_failures)

    def run(self, subject: FabricState) -> Iterable[Finding]:
        return self.run_policy(subject, self.routing, self.max_failures)

    def run_policy(self, subject: FabricState, routing: Routing, max_failures: int) -> list[Finding]:
        self.note = f"baseline: forwarding from the routing model ({routing}); {_sweep_note(max_failures)}"
        return list(self._findings(subject, routing, max_failures))

    def _on_collected(
        self, desired: FabricState, collected: Collected, routing: Routing, max_failures: int
    ) -> list[Finding]:
        """Baseline from the collected FIBs; failures as a what-if on the intent's routing model."""
        state = _with_unread_hosts(collected.observed, desired)
        found: list[Finding] = []
        judged = 0
        for network in _networks(desired):
            switches = sorted(d.name for d in desired.devices.values() if d.kind == "switch" and d.network == network)
            missing = [s for s in switches if s not in collected.fib or s not in state.devices]
            if missing:
                raise FibMissingError(
                    f"network {network}: no FIB collected from {', '.join(missing)} "
                    "(the check on running state needs every switch's forwarding table)"
                )
            fibs = {s: from_routes(collected.fib[s]) for s in switches}
            judged += len(switches)
            result = analyse(snapshot_from_fibs(state, fibs, network))
            if result.deadlock_risk:
                found.append(_finding(network, (), result, source=FIB_SOURCE))
            if max_failures:
                report = sweep(desired, routing=routing, max_failures=max_failures, network=network)
                found += [
                    _finding(network, s.failed, s.result, s.bounces, source=f"what-if on the intent's {routing} model")
                    for s in report.risky
                ]
        how = f"what-if on the intent's routing model ({routing})"
        self.note = f"baseline: {FIB_SOURCE} of {judged} switches; {_sweep_note(max_failures, how)}"
        return found

    def _findings(self, subject: FabricState, routing: Routing, max_failures: int) -> Iterable[Finding]:
        for network in _networks(subject):
            report = sweep(subject, routing=routing, max_failures=max_failures, network=network)
            if report.baseline.deadlock_risk:
                yield _finding(network, (), report.baseline)
            for scenario in report.risky:
                yield _finding(network, scenario.failed, scenario.result, scenario.bounces)


def _sweep_note(max_failures: int, how: str = "") -> str:
    if not max_failures:
        return "link failures: not checked (max_failures 0)"
    what = "every single" if max_failures == 1 else "single and filtered double"
    return f"link failures: {what} fabric-link failure" + (f", {how}" if how else "")


def _with_unread_hosts(observed: FabricState, desired: FabricState) -> FabricState:
    """The observed state plus the hosts that could not be read: their addresses are still the switches'
    destinations (dropping them would hide the forwarding towards them)."""
    unread = {n: d for n, d in desired.devices.items() if d.kind == "host" and n not in observed.devices}
    if not unread:
        return observed
    return observed.model_copy(update={"devices": {**observed.devices, **unread}})
