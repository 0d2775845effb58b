"""Benchmark freshness: every recorded result names the commit and date it was measured at (bench/README.md).

The line, right under a result file's title: ``- measured at: <40-hex commit> <YYYY-MM-DD HH:MM UTC>``, optionally
followed by a note. ``record()`` is the one way a bench's ``--record`` writes its file: it adds that line, keeps the
file's earlier recordings below the new one (under ``EARLIER``, the last one first, each with its own line), and, for a
file in ``bench/results/``, refuses while a path the result measures (the README's freshness table) has uncommitted
changes (or was committed while the bench ran), so the named commit is the code that ran. ``tests/test_bench_results.py`` holds every file to the rule.
"""

from __future__ import annotations

import os
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
README = ROOT / "bench" / "README.md"
LINE = re.compile(r"^- measured at: (?P<sha>[0-9a-f]{40}) (?P<date>\d{4}-\d\d-\d\d \d\d:\d\d UTC)(?P<note>.*)$", re.M)
_ROW = re.compile(r"^\| `(?P<result>[\w.-]+\.md)` \| (?P<paths>.+?) \|$", re.M)


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def watched() -> dict[str, list[str]]:
    """Result file name -> the paths it measures, from the freshness table in bench/README.md."""
    text = README.read_text(encoding="utf-8").split("<!-- freshness -->")[1]
    return {m["result"]: re.findall(r"`([^`]+)`", m["paths"]) for m in _ROW.finditer(text)}


START = _git("rev-parse", "HEAD")  # the commit when the bench started (it imports this module first thing)
STARTED = datetime.now(UTC)
MACHINE = f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.1f} at the start"
EARLIER = "## Earlier recordings (kept as they were)"
OTHERS_DIRTY = bool(_git("status", "--porcelain", "--", "src", "bench", ":!bench/results"))  # at the start, too


def stamp(note: str = "") -> str:
    """The line naming the commit and time (UTC) the bench started at."""
    return f"- measured at: {START} {STARTED:%Y-%m-%d %H:%M} UTC ({MACHINE}){note}"


def with_earlier(old: str, text: str) -> str:
    """``text``, then under ``EARLIER`` the last recording in ``old`` (untitled) and what ``old`` kept there already.

    A result's history is the evidence of what changed the figures; a new recording never replaces it.
    """
    if not old.strip():
        return text
    top, _, kept = old.partition(EARLIER)
    last = top.partition("\n")[2].strip("\n")  # without its title: the new recording has the same one
    parts = [text.rstrip("\n"), "", EARLIER, "", last] + (["", kept.strip("\n")] if kept.strip() else [])
    return "\n".join(parts) + "\n"


def record(path: Path, text: str, *, keep_earlier: bool = True) -> None:
    """Write a bench's report to ``path`` with the ``measured at`` line under its title; earlier recordings stay
    below it unless the bench composes its file itself (``keep_earlier=False``)."""
    path = path.resolve()
    note = ""
    if path.parent == RESULTS:
        paths = watched().get(path.name, [])
        dirty = _git("status", "--porcelain", "--", *paths) if paths else ""
        dirty += _git("diff", "--name-only", START, "HEAD", "--", *paths) if paths else ""  # committed meanwhile
        if dirty:
            raise SystemExit(f"commit first: {path.name} measures files with uncommitted changes:\n{dirty}")
        if OTHERS_DIRTY:
            note = " (other files had uncommitted changes, none that this result measures)"
    if keep_earlier and path.exists():
        text = with_earlier(path.read_text(encoding="utf-8"), text)
    title, _, rest = text.partition("\n")
    body = rest.lstrip("\n")
    gap = "" if body.startswith("- ") else "\n"  # first item of the header list, or a line of its own
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{title}\n\n{stamp(note)}\n{gap}{body}", encoding="utf-8")
