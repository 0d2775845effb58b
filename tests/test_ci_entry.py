"""CI runs everything: ``make test`` (under 15 minutes on two cores) and then ``make tour`` (the README's lab
tour, verbatim, kept out of ``make test`` by its ``tour`` marker). Nothing is left to neither."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.paths import ROOT


def _make_n(target: str, tmp_path: Path) -> list[str]:
    """The commands ``make -n TARGET`` would run, with the venv already installed."""
    work = tmp_path / target
    (work / ".venv").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        (work / name).write_bytes((ROOT / name).read_bytes())
    for stamp in (".created", ".installed-dev", ".installed-runtime"):
        (work / ".venv" / stamp).touch()
    done = subprocess.run(
        ["make", "-n", target, "APT_PACKAGES="], cwd=work, capture_output=True, text=True, check=True, timeout=60
    )
    return [line for line in done.stdout.splitlines() if "pytest" in line]


def test_ci_runs_make_test_then_the_tour(tmp_path: Path) -> None:
    steps = [line.split("#")[0].strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert [s for s in steps if s.startswith("make ")] == ["make test", "make tour"]
    assert _make_n("unit", tmp_path) == ['.venv/bin/pytest -q -m "not tour"']
    assert _make_n("tour", tmp_path) == [".venv/bin/pytest -q -m tour"]


def test_only_the_readme_lab_tour_is_kept_out_of_make_test() -> None:
    here = Path(__file__).resolve()
    marked = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "tests").rglob("test_*.py")
        if p.resolve() != here and "pytest.mark.tour" in p.read_text(encoding="utf-8")
    )
    assert marked == ["tests/lab/test_readme_lab.py"]
