"""Reports for machines: JSON (summary + one entry per finding) and JUnit XML (one testcase per check)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime

from xoff.report.meta import report_meta
from xoff.report.rows import rows, unmodelled
from xoff.validate.model import CheckResult, Severity, Status
from xoff.validate.run import Validation


def json_report(validation: Validation) -> str:
    snap = validation.snapshot
    meta = report_meta(validation)
    doc = {
        "fabric": validation.fabric,
        "catalog": validation.catalog,
        "source": validation.source,
        "mode": meta.mode,
        "intent_hash": meta.intent_hash,
        "xoff_version": meta.xoff_version,
        "generated_at": meta.generated_at,
        "snapshot": meta.snapshot,
        "collected_at": meta.collected_at,
        "snapshot_intent_hash": meta.snapshot_intent_hash,  # None: not recorded (or no snapshot)
        "snapshot_xoff_version": meta.snapshot_xoff_version,
        "ok": not validation.blocking,
        "summary": validation.summary(),
        "results": [r.as_dict() for r in rows(validation)],
        "notes": validation.notes,
        "address_map": validation.address_map,  # "source -> lab" blocks the intent was mapped by (lab --remap)
        "not_selected": validation.not_selected,  # --limit / --checks / --tags: not contacted, not judged, not run
        "unmodelled": unmodelled(validation),  # device -> name -> count: shown, kept, not judged
        "captures_absent": snap.captures_absent if snap else {},
        # --baseline: the accepted findings left out (still present), those resolved, the new ones; None: no baseline
        "baseline": validation.baseline.as_dict() if validation.baseline else None,
    }
    return json.dumps(doc, indent=2) + "\n"


def junit_report(validation: Validation, cases: Sequence[tuple[str, str, CheckResult]] | None = None) -> str:
    """JUnit XML as CI systems read it (Jenkins/GitLab schema): testsuites > testsuite > testcase.

    ``cases``: (classname, name, result) per testcase instead of one per check (``xoff watch``: one per signal x
    device).

    A failing check of error severity is a <failure>, one that could not run an <error>, a skipped one
    <skipped>; findings of a warning check are listed in <system-out> of a passing testcase, as the exit
    status does not fail on warnings.
    """
    meta = report_meta(validation)
    testcases = cases if cases is not None else [(r.id.split(".")[0], r.id, r) for r in validation.results]
    results = [r for _, _, r in testcases]
    failures = sum(1 for r in results if r.status is Status.FAILURE and r.severity is Severity.ERROR)
    counts = {
        "tests": str(len(results)),
        "failures": str(failures),
        "errors": str(sum(1 for r in results if r.status is Status.ERROR)),
        "skipped": str(sum(1 for r in results if r.status in (Status.SKIPPED, Status.UNSET))),
        "time": f"{validation.elapsed_s:.3f}",
    }
    root = ET.Element("testsuites", {"name": f"xoff validate {validation.fabric}", **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": f"{validation.fabric} ({validation.catalog}, {validation.source})",
            **counts,
            "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
            "hostname": "xoff",
        },
    )
    props = ET.SubElement(suite, "properties")
    for name in (
        "intent_hash",
        "xoff_version",
        "mode",
        "snapshot",
        "collected_at",
        "snapshot_intent_hash",
        "snapshot_xoff_version",
    ):
        value = getattr(meta, name)
        if value is not None:
            ET.SubElement(props, "property", {"name": name, "value": str(value)})
    if validation.baseline is not None:
        b = validation.baseline
        for name, value in (
            ("baseline", b.snapshot),
            ("baseline_accepted", b.accepted),
            ("baseline_still_present", b.still_present),
            ("baseline_resolved", len(b.resolved)),
            ("baseline_new", b.new),
        ):
            ET.SubElement(props, "property", {"name": name, "value": str(value)})
    for classname, name, r in testcases:
        case = ET.SubElement(suite, "testcase", {"classname": classname, "name": name, "time": "0"})
        detail = "\n".join(f"{f}" + (f"\n  hint: {r.hint_for(f)}" if r.hint_for(f) else "") for f in r.findings)
        if r.status is Status.FAILURE and r.severity is Severity.ERROR:
            first = str(r.findings[0])
            more = f" (and {len(r.findings) - 1} more)" if len(r.findings) > 1 else ""
            node = ET.SubElement(case, "failure", {"message": first + more, "type": r.id})
            node.text = detail
        elif r.status is Status.FAILURE:
            ET.SubElement(case, "system-out").text = f"warning: {r.title}\n{detail}"
        elif r.status is Status.ERROR:
            ET.SubElement(case, "error", {"message": r.message or "error", "type": "CheckError"}).text = r.message
        elif r.status in (Status.SKIPPED, Status.UNSET):
            ET.SubElement(case, "skipped", {"message": r.message or r.status.value})
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
