"""Recorded benchmark results stay tied to the code they measured (bench/README.md, "Freshness").

Every ``bench/results/*.md`` names the commit it was measured at (``- measured at: <sha> <date>``), that commit is
an ancestor of HEAD, and for the results in the README's freshness table no file the result measures has changed
in a commit since.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.paths import ROOT, load_module

RESULTS = sorted((ROOT / "bench" / "results").glob("*.md"))


MEASURED = load_module("bench_measured", ROOT / "bench" / "measured.py")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)


def _commit(path: Path) -> str:
    m = MEASURED.LINE.search(path.read_text(encoding="utf-8"))
    assert m, f"{path.name} does not name its commit: add `- measured at: <sha> <date>` (bench/measured.py)"
    return str(m["sha"])


@pytest.mark.parametrize("path", RESULTS, ids=[p.name for p in RESULTS])
def test_result_names_an_ancestor_commit(path: Path) -> None:
    sha = _commit(path)
    r = _git("merge-base", "--is-ancestor", sha, "HEAD")
    assert r.returncode == 0, f"{path.name}: {sha} is not an ancestor of HEAD ({r.stderr.strip() or 'not merged'})"


WATCHED = sorted(MEASURED.watched().items())


@pytest.mark.parametrize(("name", "paths"), WATCHED, ids=[n for n, _ in WATCHED])
def test_result_is_newer_than_what_it_measures(name: str, paths: list[str]) -> None:
    assert paths, f"{name}: the freshness table lists no path"
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"{name}: the freshness table names paths that do not exist: {missing}"
    sha = _commit(ROOT / "bench" / "results" / name)
    changed = _git("diff", "--name-only", sha, "HEAD", "--", *paths).stdout.split()
    assert not changed, f"{name} is older than {changed}: re-run its bench with --record (bench/README.md, Freshness)"


def test_record_stamps_the_line_under_the_title(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    MEASURED.record(out, "# title\n\n- date: x\n\nbody\n")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# title" and lines[1] == "" and lines[3] == "- date: x"
    m = MEASURED.LINE.match(lines[2])
    assert m and m["sha"] == _git("rev-parse", "HEAD").stdout.strip()


def test_a_new_recording_keeps_the_earlier_ones_below_it_last_first(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    MEASURED.record(out, "# title\n\n- first: 1\n")
    MEASURED.record(out, "# title\n\n- second: 2\n")
    MEASURED.record(out, "# title\n\n- third: 3\n")
    text = out.read_text(encoding="utf-8")
    top, heading, kept = text.partition(MEASURED.EARLIER + "\n")
    assert heading and text.count(MEASURED.EARLIER) == 1 and text.count("# title") == 1
    assert "- third: 3" in top and "second" not in top
    assert kept.index("- second: 2") < kept.index("- first: 1")  # the last one first
    assert len(MEASURED.LINE.findall(text)) == 3  # each recording keeps the line naming its commit


def test_hand_notes_below_the_earlier_recordings_stay_where_they_are() -> None:
    old = f"# t\n\n- run: old\n\n{MEASURED.EARLIER}\n\n- run: older\n\n## Notes (by hand)\n\nkeep me\n"
    new = MEASURED.with_earlier(old, "# t\n\n- run: new\n")
    assert new.index("- run: new") < new.index(MEASURED.EARLIER) < new.index("- run: old") < new.index("- run: older")
    assert new.endswith("## Notes (by hand)\n\nkeep me\n")
    assert MEASURED.with_earlier("", "# t\n") == "# t\n"


def test_validate_scales_live_recording_keeps_the_offline_part_and_the_last_live_one(tmp_path: Path) -> None:
    bench = load_module("bench_validate_scale", ROOT / "bench" / "validate_scale.py")
    out = tmp_path / "v.md"
    heading = f"{bench.LIVE_HEADING} 64-device lab"
    out.write_text(
        f"# offline\n\n- offline: kept\n\n{heading}\n\n- live: old\n\n{bench.EARLIER_LIVE}\n\n- live: older\n"
    )
    bench._record_live(out, f"{heading}\n\n- live: new\n")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# offline\n\n- offline: kept\n\n")
    assert f"{heading} (measured at {MEASURED.START}" in text  # the live section names its own commit
    order = ["- live: new", bench.EARLIER_LIVE, "- live: old", "- live: older"]
    assert [text.index(x) for x in order] == sorted(text.index(x) for x in order)
    assert text.count(bench.EARLIER_LIVE) == 1
