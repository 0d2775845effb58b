"""A change report as text for a terminal or a CI log, and as JUnit XML for a CI test tab."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from xoff.change.model import ChangeReport, DeadlockSide, DeviceChange

MAX_VALUE = 80  # characters of a before/after value shown inline


def value(v: object) -> str:
    """A before/after value, one line: JSON for data, ``-`` for absent, cut at MAX_VALUE."""
    if v is None:
        return "-"
    text = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def verdict(report: ChangeReport) -> str:
    if report.risky:
        return f"NEW RISK: {len(report.risks)} reason(s) this change is not safe to push"
    return "no new risk"


def side(s: DeadlockSide | None) -> str:
    if s is None:
        return "not in this fabric"
    if s.baseline:
        return f"RISK at baseline ({s.witness})"
    if s.single_failures:
        return f"RISK after {len(s.single_failures)} single failure(s): {s.single_failures[0]}"
    return "no risk"


def _device_lines(dev: DeviceChange) -> list[str]:
    lines = [f"  {dev.name} ({dev.kind}, {dev.platform}): {dev.status}"]
    group = None
    for c in dev.changes:
        if c.group != group:
            group = c.group
            lines.append(f"    [{group}]")
        lines.append(f"      {c.path}: {value(c.before)} -> {value(c.after)}")
    return lines


def _headline(report: ChangeReport) -> list[str]:
    s = report.summary
    return [
        f"xoff change {report.base} -> {report.head} (fabric {report.fabric}): {verdict(report)}",
        f"devices: {s.devices_changed} changed, {s.devices_added} added, {s.devices_removed} removed; "
        f"findings: {s.findings_added} added, {s.findings_resolved} resolved, {s.findings_kept} kept; "
        f"behind the touched switches: {s.hosts_behind} hosts, {s.gpus_behind} GPUs",
    ]


def to_text(report: ChangeReport, *, diffs: bool = True) -> str:
    lines = _headline(report)
    lines += [f"  RISK {r.kind}: {r.cause}" for r in report.risks]
    for status in ("added", "removed"):
        names = [d.name for d in report.devices if d.status == status]
        if names:
            lines.append(f"devices {status}: {', '.join(names)}")
    for title, items in (("findings added", report.findings.added), ("findings resolved", report.findings.resolved)):
        if items:
            lines.append(f"{title}:")
            lines += [f"  {f.check}: {f.message}" for f in items]
    scope = "baseline and single link failures" if any(d.failures_checked for d in report.deadlock) else "baseline"
    lines.append(f"PFC deadlock ({scope}):")
    lines += [f"  {d.network}: before {side(d.before)}; after {side(d.after)}" for d in report.deadlock]
    for title, deltas in (("headroom per port (bytes)", report.headroom), ("buffer pools", report.pools)):
        if deltas:
            lines.append(f"{title}:")
            lines += [f"  {m.device} {m.subject}: {value(m.before)} -> {value(m.after)}" for m in deltas]
    if not report.devices:
        lines.append("nothing to push: no device's desired state changes")
        return _took(lines, report)
    how = f"--canary-by {report.rollout_by}" if report.rollout_by else "--canary 1"
    lines.append(f"rollout (xoff push {how}):")
    lines += [f"  {st.stage}{f' [{st.domain}]' if st.domain else ''}: {', '.join(st.devices)}" for st in report.rollout]
    lines.append("blast radius:" if report.blast_radius else "blast radius: no host behind a touched switch")
    lines += [f"  {b.switch}: {b.hosts} hosts, {b.gpus} GPUs" for b in report.blast_radius]
    lines.append("devices:")
    for dev in report.devices:
        lines += _device_lines(dev)
        if diffs and dev.config_diff:
            lines += ["    " + line for line in dev.config_diff.splitlines()]
    if report.config_diffs_left_out:
        lines.append(f"rendered diff not computed for {report.config_diffs_left_out} more device(s) (--config-diffs)")
    return _took(lines, report)


def _took(lines: list[str], report: ChangeReport) -> str:
    took = ", ".join(f"{k} {v:.1f}" for k, v in report.stage_seconds.items())
    lines.append(f"took {report.seconds:.1f} s ({took})")
    return "\n".join(lines) + "\n"


def to_junit(report: ChangeReport) -> str:
    """One suite: a test case per risk kind (failures for each cause), passing when the kind has none."""
    suite = ET.Element("testsuite", name=f"xoff change {report.fabric}", tests="0", failures="0")
    cases = {
        "finding": "no new failing findings (pre-change catalog)",
        "deadlock": "no new PFC deadlock risk (baseline and single link failures)",
        "lossless_dscp": "no lossless DSCP moved off its lossless class",
    }
    failures = 0
    for kind, name in cases.items():
        case = ET.SubElement(suite, "testcase", classname="xoff.change", name=name)
        causes = [r.cause for r in report.risks if r.kind == kind]
        if causes:
            failures += 1
            fail = ET.SubElement(case, "failure", message=causes[0], type=kind)
            fail.text = "\n".join(causes)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failures))
    ET.SubElement(suite, "system-out").text = to_text(report, diffs=False)
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
