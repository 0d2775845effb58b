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
