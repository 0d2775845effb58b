from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))  # helper modules shared by test directories
INVENTORY = ROOT / "inventory"
GOLDEN = ROOT / "tests" / "golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from the current output")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def lab_mini_state():  # type: ignore[no-untyped-def]
    from xoff.desired import build_fabric_state
    from xoff.intent import load_intent

    intent = load_intent(INVENTORY / "lab-mini")
    return intent, build_fabric_state(intent)


@pytest.fixture(scope="session")
def golden(update_golden: bool):  # type: ignore[no-untyped-def]
    """``golden(actual, "sonic/lab-mini")``: compare with tests/golden/<dir>/, or rewrite it with --update-golden."""

    def check(actual: dict[str, str], directory: str) -> None:
        _assert_golden(actual, GOLDEN / directory, update_golden)

    return check


def _assert_golden(actual: dict[str, str], directory: Path, update: bool) -> None:
    if update:
        if directory.exists():
            for old in sorted(directory.rglob("*"), reverse=True):
                if old.is_file():
                    old.unlink()
        for name, text in actual.items():
            target = directory / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return
    assert directory.is_dir(), f"no golden files in {directory}: run pytest with --update-golden"
    expected = {
        str(p.relative_to(directory)): p.read_text(encoding="utf-8") for p in directory.rglob("*") if p.is_file()
    }
    assert sorted(actual) == sorted(expected), "golden file set differs: run pytest with --update-golden and review"
    for name, text in actual.items():
        assert text == expected[name], (
            f"{directory / name} differs: run pytest with --update-golden and review the diff"
        )
