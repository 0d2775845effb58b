"""``xoff runs`` as text: one block per run, newest first."""

from __future__ import annotations

from pathlib import Path

from xoff.push.runs import RUNNING, RunRecord


def _what(record: RunRecord) -> str:
    what = f"rollback of {record.rollback_of}" if record.kind == "rollback" else record.kind
    return f"{what} (dry run)" if record.options.get("dry_run") else what


def run_lines(record: RunRecord) -> list[str]:
    """A run: its id, what it was, its status and times; its devices' outcomes counted; the failed by name."""
    ended = f" -> {record.ended}" if record.ended else ""
    status = f"{record.status} (pid {record.pid} on {record.host})" if record.status == RUNNING else record.status
    lines = [f"{record.run_id}  {_what(record)}  {status}  {record.started}{ended}  {record.engine}"]
    lines.append(f"  fabric {record.fabric}, intent {record.intent} (sha256 {(record.intent_sha256 or '-')[:12]})")
    counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(record.counts().items()))
    lines.append(f"  {len(record.devices)} devices: {counts or 'none'}")
    lines += [
        f"  {d.name} ({d.platform}): {d.outcome}{': ' + d.error if d.error else ''}"
        for d in record.devices
        if d.name in record.failed()
    ]
    return lines


def runs_text(records: list[RunRecord], root: Path) -> str:
    if not records:
        return f"no runs recorded in {root}"
    return "\n".join(line for r in records for line in run_lines(r))
