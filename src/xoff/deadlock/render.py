"""Plain-text report of a ``Result`` for people: the verdict, witness cycles with a destination
justifying every edge, the down -> up turns (bounces) that cause them, and PFC mismatches."""

from __future__ import annotations

from xoff.deadlock.analysis import Cycle, Result

_MAX_CYCLES = 5  # witnesses printed in full; the JSON has all of them


def _cycle_lines(n: int, cycle: Cycle, ranked: bool) -> list[str]:
    prios = ", ".join(str(p) for p in cycle.priorities)
    lines = [f"  cycle {n}: {len(cycle.steps)} buffers (SCC of {cycle.scc_size} nodes, priorities {prios})"]
    width = max(len(s.link) for s in cycle.steps)
    for i, s in enumerate(cycle.steps, 1):
        notes = [] if s.kind == "unknown" else [s.kind]
        if s.in_port == s.out_port:
            notes.append("U-turn")
        if s.next_prio != s.prio:
            notes.append(f"re-marked {s.prio} -> {s.next_prio}")
        tail = f"  [{', '.join(notes)}]" if notes else ""
        lines.append(f"    {i:>3}. {s.link:<{width}}  prio {s.prio}  waits at {s.turn}  for {s.dest}{tail}")
    lines.append("       (the last buffer waits on the first, which closes the cycle)")
    if not ranked:
        lines.append("    down-to-up turns: unknown (no switch ranks given)")
    elif cycle.bounces:
        turns = "; ".join(f"{s.turn} (for {s.dest})" for s in cycle.bounces)
        lines.append(f"    down-to-up turns (bounces) on this cycle: {turns}")
    else:
        lines.append("    down-to-up turns (bounces) on this cycle: none")
    return lines


def render_text(result: Result) -> str:
    """The report as lines of plain text (no trailing newline)."""
    c = result.counts
    head = (
        "DEADLOCK RISK: cyclic buffer dependency"
        if result.deadlock_risk
        else "no deadlock risk: no cyclic buffer dependency"
    )
    lines = [f"{result.snapshot or 'snapshot'}: {head}"]
    size = (
        f"  graph: {c.get('switches', 0)} switches, {c.get('hosts', 0)} hosts, {c.get('nodes', 0)} buffers, "
        f"{c.get('turns', 0)} turns"
    )
    lines.append(size + (f", {c['edges']} dependencies" if c.get("edges", -1) >= 0 else ""))
    if result.certified:
        lines.append("  up*/down* certificate holds: no turn goes from a down link to an up link")
    elif result.ranked:
        lines.append(f"  up*/down* certificate fails: {len(result.bounces)} down-to-up turn(s) carry lossless traffic")
    if result.deadlock_risk:
        prios = ", ".join(str(p) for p in result.risky_priorities)
        lines.append(
            f"  risky priorities: {prios}; {len(result.nodes_on_cycles)} buffers lie on cycles "
            f"in {len(result.cycles)} strongly connected component(s)"
        )
        for n, cycle in enumerate(result.cycles[:_MAX_CYCLES], 1):
            lines.extend(_cycle_lines(n, cycle, result.ranked))
        if len(result.cycles) > _MAX_CYCLES:
            lines.append(f"  ... {len(result.cycles) - _MAX_CYCLES} more component(s) in --format json")
    if result.pfc_mismatches:
        lines.append(
            f"  PFC mismatches ({len(result.pfc_mismatches)} link(s); such a priority is lossy on the link, not a buffer):"
        )
        lines.extend(
            f"    link {m.link}: priorities {', '.join(str(p) for p in m.priorities)} lossless on one end only"
            for m in result.pfc_mismatches
        )
    else:
        lines.append("  PFC mismatches: none")
    return "\n".join(lines)
