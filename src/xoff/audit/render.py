"""``xoff diff`` reports: text for people, JSON for machines, Markdown for a ticket or a pull request."""

from __future__ import annotations

import json

from xoff.audit.model import Side, SnapshotDiff

MAX_RATES = 50  # text and Markdown: the fastest counters; JSON lists all


def _side_line(label: str, s: Side) -> str:
    return (
        f"{label}: {s.path}, collected {s.collected_at}, intent {s.intent_sha256 or 'not recorded'}, "
        f"xoff {s.xoff_version or 'not recorded'}, {s.devices} devices read, {len(s.errors)} collect errors"
    )


def _interval(d: SnapshotDiff) -> str:
    return f"{d.interval_s:.0f} s apart" if d.interval_s is not None else "interval not known (no rates)"


def _top_rates(d: SnapshotDiff) -> list[str]:
    ranked = sorted(d.rates, key=lambda r: -(r.per_second or 0.0))
    lines = [r.line() for r in ranked[:MAX_RATES]]
    if len(ranked) > MAX_RATES:
        lines.append(f"... and {len(ranked) - MAX_RATES} more (--format json lists all)")
    return lines


def _errors(d: SnapshotDiff) -> list[str]:
    return [f"A: {e}" for e in d.a.errors] + [f"B: {e}" for e in d.b.errors]


def text_report(d: SnapshotDiff) -> str:
    out = [f"xoff diff: {d.fabric} ({_interval(d)})"]
    out += [f"!! {h}" for h in d.headline]
    out += [_side_line("A", d.a), _side_line("B", d.b)]
    if d.limited_to is not None:
        out.append(f"limited to {len(d.limited_to)} devices: {', '.join(d.limited_to)}")
    if d.unread:
        out.append(f"not compared (read in neither snapshot): {', '.join(d.unread)}")
    errors = _errors(d)
    if errors:
        out.append("collect errors (what they cover is not compared):")
        out += [f"  {e}" for e in errors]
    for section, changes in d.by_section().items():
        out.append(f"{section} ({len(changes)}):")
        out += [f"  {c.line()}" for c in changes]
    if d.rates:
        out.append(f"counter rates ({len(d.rates)} counters moved; traffic, not a change):")
        out += [f"  {line}" for line in _top_rates(d)]
    count = f"{len(d.changes)} change{'' if len(d.changes) == 1 else 's'}"
    out.append(count if d.changed else "no change in the running state")
    return "\n".join(out) + "\n"


def json_report(d: SnapshotDiff) -> str:
    return json.dumps(d.as_dict(), indent=2) + "\n"


def _cell(text: str | None) -> str:
    return "" if text is None else text.replace("|", "\\|").replace("\n", " ")


def markdown_report(d: SnapshotDiff) -> str:
    out = [f"# xoff diff: {d.fabric}", ""]
    out += [f"> **{h}**" for h in d.headline]
    out += [f"- {_side_line('A', d.a)}", f"- {_side_line('B', d.b)}", f"- {_interval(d)}"]
    if d.limited_to is not None:
        out.append(f"- limited to: {', '.join(d.limited_to)}")
    if d.unread:
        out.append(f"- not compared (read in neither snapshot): {', '.join(d.unread)}")
    out.append("- verdict: " + (f"**{len(d.changes)} changes**" if d.changed else "no change in the running state"))
    errors = _errors(d)
    if errors:
        out += ["", "## Collect errors", ""] + [f"- {_cell(e)}" for e in errors]
    for section, changes in d.by_section().items():
        out += [
            "",
            f"## {section} ({len(changes)})",
            "",
            "| device | subject | change | A | B |",
            "|---|---|---|---|---|",
        ]
        out += [
            f"| {_cell(c.device)} | {_cell(c.subject)} | {c.what} | {_cell(c.before)} | {_cell(c.after)} |"
            for c in changes
        ]
    if d.rates:
        out += ["", f"## counter rates ({len(d.rates)})", ""] + [f"- {_cell(line)}" for line in _top_rates(d)]
    return "\n".join(out) + "\n"
