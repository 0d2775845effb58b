"""Reports for people: rich text for the terminal and Markdown for tickets and merge requests."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from xoff.report.meta import report_meta
from xoff.report.rows import header, remap_line, unmodelled, unmodelled_lines
from xoff.validate.model import CheckResult, Severity, Status
from xoff.validate.run import Validation

_STYLE = {"success": "green", "failure": "red", "error": "magenta", "skipped": "dim", "unset": "dim"}
MAX_FINDINGS = 20  # per check in the terminal; the other formats list them all


def status_label(r: CheckResult) -> str:
    return r.status.value + (" (warning)" if r.status is Status.FAILURE and r.severity is Severity.WARNING else "")


def text_report(validation: Validation, verbose: bool = False) -> RenderableType:
    parts: list[RenderableType] = [Text(header(validation), style="bold"), Text(report_meta(validation).line())]
    if validation.baseline is not None:
        parts += [Text(line) for line in validation.baseline.lines(validation.intent_hash)]
    if validation.address_map:
        parts.append(Text(remap_line(validation)))
    table = Table(title="checks", title_justify="left")
    for col in ("check", "status", "findings / reason"):
        table.add_column(col)
    for r in validation.results:
        style = _STYLE[r.status.value]
        limit = len(r.findings) if verbose else MAX_FINDINGS
        detail = "\n".join(str(f) for f in r.findings[:limit])
        if len(r.findings) > limit:
            detail += f"\n... and {len(r.findings) - limit} more (--format json lists all)"
        if r.findings and r.hint:
            detail += f"\n[dim]hint: {r.hint}[/dim]"
        table.add_row(r.id, f"[{style}]{status_label(r)}[/{style}]", detail or (r.message or ""))
    parts.append(table)
    for note in validation.notes:
        parts.append(Text(f"not shown by the lab: {note}", style="yellow"))
    for line in not_selected_lines(validation):
        parts.append(Text(line, style="yellow"))
    for line in unmodelled_lines(validation):
        parts.append(Text(f"kept, not modelled: {line}", style="dim"))
    for device, commands in _absent(validation).items():
        parts.append(Text(f"not observed (no capture): {device}: {len(commands)} command(s)", style="yellow"))
    verdict = "checks found problems" if validation.blocking else "no blocking findings"
    parts.append(Text(verdict, style="red" if validation.blocking else "green"))
    return Group(*parts)


def not_selected_lines(validation: Validation) -> list[str]:
    """``--limit`` / ``--checks`` / ``--tags``: what was left out, said as such (never as passed)."""
    out = []
    devices, checks = validation.not_selected.get("devices", []), validation.not_selected.get("checks", [])
    if devices:
        out.append(f"not selected (not contacted, not judged): {len(devices)} device(s): {', '.join(devices)}")
    if checks:
        out.append(f"not selected (not run): {len(checks)} check(s): {', '.join(checks)}")
    return out


def _absent(validation: Validation) -> dict[str, list[str]]:
    """Device -> the commands whose capture was absent (``collect --from-captures``)."""
    snap = validation.snapshot
    return snap.captures_absent if snap is not None else {}


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_head(validation: Validation) -> list[str]:
    out = [f"# xoff validate: {validation.fabric}", ""]
    snap = validation.snapshot
    meta = report_meta(validation)
    out.append(f"- catalog: `{validation.catalog}`; observed state: {validation.source}; mode: {meta.mode}")
    out.append(
        f"- intent: `{meta.intent_hash or 'hash not known'}`; xoff {meta.xoff_version}; report {meta.generated_at}"
    )
    if meta.snapshot is not None:
        out.append(f"- snapshot: `{_cell(meta.snapshot)}`")
    if snap is not None:
        out.append(f"- collected at: {snap.collected_at}, under {meta.collected_under}")
    if validation.address_map:
        out.append(f"- {remap_line(validation)}")
    if validation.baseline is not None:
        first, *resolved = validation.baseline.lines(validation.intent_hash)
        out.append(f"- {_cell(first)}")
        out += [f"  - {_cell(line)}" for line in resolved]
    out.append("- verdict: " + ("**checks found problems**" if validation.blocking else "no blocking findings"))
    return out


def markdown_report(validation: Validation) -> str:
    out = _markdown_head(validation)
    out += ["", "| status | checks |", "|---|---:|"]
    out += [f"| {s} | {n} |" for s, n in validation.summary().items()]
    out += ["", "## Checks", "", "| check | status | findings | reason |", "|---|---|---:|---|"]
    for r in validation.results:
        out.append(f"| `{r.id}` | {status_label(r)} | {len(r.findings)} | {_cell(r.message)} |")
    failing = [r for r in validation.results if r.findings]
    if failing:
        out += ["", "## Findings"]
    for r in failing:
        out += ["", f"### `{r.id}`: {r.title}", ""]
        if r.hint:
            out += [f"Fix: {r.hint}", ""]
        out += ["| device | port | priority | what | expected | actual |", "|---|---|---:|---|---|---|"]
        for f in r.findings:
            out.append(
                f"| {_cell(f.device)} | {_cell(f.port)} | {_cell(f.priority)} | {_cell(f.object)}: {_cell(f.problem)} "
                f"| {_cell(f.expected)} | {_cell(f.actual)} |"
            )
    if validation.notes:
        out += ["", "## Not shown by the lab", ""] + [f"- {n}" for n in validation.notes]
    selected = not_selected_lines(validation)
    if selected:
        out += ["", "## Not selected", ""] + [f"- {_cell(line)}" for line in selected]
    absent = _absent(validation)
    if absent:
        out += ["", "## Not observed (no capture)", ""]
        out += [f"- {_cell(d)}: " + ", ".join(f"`{_cell(c)}`" for c in commands) for d, commands in absent.items()]
    names = unmodelled(validation)
    if names:
        out += ["", "## Shown by the devices, not modelled by xoff (kept in the snapshot)", ""]
        out += ["| device | names | name (times) |", "|---|---:|---|"]
        for device, counts in names.items():
            listed = ", ".join(f"`{_cell(n)}` ({c})" for n, c in counts.items())
            out.append(f"| {_cell(device)} | {len(counts)} | {listed} |")
    return "\n".join(out) + "\n"
