"""A change report as Markdown sized for a pull-request comment: the verdict and a summary table first, then
risks, findings, deadlock, margins, rollout and blast radius, then one collapsible ``<details>`` per device
(its semantic changes and its rendered diff). The whole stays under ``limit`` characters (GitHub takes 65,536
per comment): devices that do not fit are left out with a note saying how many and where the rest is."""

from __future__ import annotations

from collections.abc import Sequence

from xoff.change.model import ChangeReport, DeviceChange
from xoff.change.text import side, value, verdict

LIMIT = 60_000
DIFF_LINES = 120  # rendered-diff lines per device before it is cut


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(head: tuple[str, ...], rows: Sequence[tuple[object, ...]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _summary(report: ChangeReport) -> list[str]:
    s = report.summary
    icon = ":x:" if report.risky else ":white_check_mark:"
    lines = [
        f"## xoff change: {icon} {verdict(report)}",
        "",
        f"`{report.base}` → `{report.head}` (fabric `{report.fabric}`)",
        "",
    ]
    rows: list[tuple[object, ...]] = [
        ("devices changed / added / removed", f"{s.devices_changed} / {s.devices_added} / {s.devices_removed}"),
        ("findings added / resolved / kept", f"{s.findings_added} / {s.findings_resolved} / {s.findings_kept}"),
        ("new PFC deadlock risk", "yes" if s.new_deadlock_risk else "no"),
        ("hosts / GPUs behind touched switches", f"{s.hosts_behind} / {s.gpus_behind}"),
        ("rollout stages", len(report.rollout)),
    ]
    lines += _table(("", ""), rows)
    for status in ("added", "removed"):
        names = [d.name for d in report.devices if d.status == status]
        if names:
            lines += [f"**Devices {status}:** {', '.join(names)}", ""]
    if report.risks:
        lines += ["### Risks", ""] + [f"- **{r.kind}**: {_cell(r.cause)}" for r in report.risks] + [""]
    return lines


def _sections(report: ChangeReport) -> list[str]:
    lines: list[str] = []
    f = report.findings
    if f.added or f.resolved:
        lines += ["### Findings (pre-change catalog)", ""]
        rows = [("added", x.check, x.device, x.subject) for x in f.added]
        rows += [("resolved", x.check, x.device, x.subject) for x in f.resolved]
        lines += _table(("", "check", "device", "subject"), rows)
    scope = "baseline and single link failures" if any(d.failures_checked for d in report.deadlock) else "baseline"
    lines += [f"### PFC deadlock ({scope})", ""]
    lines += _table(
        ("network", "before", "after"), [(d.network, side(d.before), side(d.after)) for d in report.deadlock]
    )
    margins = [("headroom", m.device, m.subject, value(m.before), value(m.after)) for m in report.headroom]
    margins += [("pool", m.device, m.subject, value(m.before), value(m.after)) for m in report.pools]
    if margins:
        lines += ["### Headroom and buffer pools (bytes)", ""]
        lines += _table(("", "device", "port / pool", "before", "after"), margins)
    if report.rollout:
        how = f"--canary-by {report.rollout_by}" if report.rollout_by else "--canary 1"
        lines += [f"### Rollout (`xoff push {how}`)", ""]
        lines += _table(
            ("stage", "domain", "devices"),
            [(st.stage, st.domain or "", ", ".join(st.devices)) for st in report.rollout],
        )
    if report.blast_radius:
        lines += ["### Blast radius", ""]
        lines += _table(("switch", "hosts", "GPUs"), [(b.switch, b.hosts, b.gpus) for b in report.blast_radius])
    return lines


def _device(dev: DeviceChange) -> str:
    lines = [
        "<details>",
        f"<summary><b>{dev.name}</b> ({dev.kind}, {dev.platform}): {dev.status}, {len(dev.changes)} change(s)</summary>",
        "",
    ]
    if dev.changes:
        lines += _table(
            ("group", "path", "before", "after"),
            [(c.group, f"`{c.path}`", value(c.before), value(c.after)) for c in dev.changes],
        )
    diff = dev.config_diff.splitlines()
    if diff:
        shown = diff[:DIFF_LINES]
        lines += ["```diff", *(line.replace("```", "` ` `") for line in shown), "```", ""]
        if len(diff) > DIFF_LINES:
            lines += [f"_{len(diff) - DIFF_LINES} more diff lines not shown (`xoff change --format text`)._", ""]
    lines += ["</details>", ""]
    return "\n".join(lines)


def to_markdown(report: ChangeReport, limit: int = LIMIT) -> str:
    head = "\n".join([*_summary(report), *_sections(report)])
    if report.devices:
        head += "\n### Devices\n\n"
    body: list[str] = []
    used = len(head)
    cut = 0
    for i, dev in enumerate(report.devices):
        block = _device(dev)
        if used + len(block) + 200 > limit:
            cut = len(report.devices) - i
            break
        body.append(block)
        used += len(block) + 1
    text = head + "\n".join(body)
    if report.config_diffs_left_out:
        text += f"\n_Rendered diffs computed for the first devices only; {report.config_diffs_left_out} left out._\n"
    if cut:
        text += (
            f"\n_{cut} more device(s) not shown: cut to fit a pull-request comment ({limit} characters); "
            "`xoff change --format json` has every device._\n"
        )
    return text
