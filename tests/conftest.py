from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import GOLDEN, INVENTORY, ROOT

LAB_DIR = Path(__file__).resolve().parent / "lab"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Everything under tests/lab/ is marked ``lab``; every ``lab`` test is skipped, with the reason, where the lab
    cannot run (not root, or no ``ip netns``). The marker is added at collection, so ``-m lab`` / ``-m "not lab"``
    select by directory as well as by explicit ``@pytest.mark.lab``."""
    for item in items:
        if item.path.is_relative_to(LAB_DIR) and item.get_closest_marker("lab") is None:
            item.add_marker(pytest.mark.lab)
    lab_items = [item for item in items if item.get_closest_marker("lab") is not None]
    missing = lab_unavailable() if lab_items else None
    if missing is None:
        return
    skip = pytest.mark.skip(reason=f"lab test: {missing}")
    for item in lab_items:
        item.add_marker(skip)


def lab_unavailable() -> str | None:
    """Why the lab cannot run here (None when it can): it needs root and iproute2's network namespaces.
    ``XOFF_TEST_NO_LAB=1`` pretends it cannot (to see the skips without giving up root)."""
    if os.environ.get("XOFF_TEST_NO_LAB"):
        return "XOFF_TEST_NO_LAB is set"
    if os.geteuid() != 0:
        return "needs root for network namespaces (run as root, e.g. in CI)"
    ip = shutil.which("ip") or shutil.which("ip", path="/usr/sbin:/sbin")
    if ip is None:
        return "needs iproute2's `ip netns` (Debian package iproute2)"
    probe = subprocess.run([ip, "netns", "list"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"`ip netns list` fails here: {probe.stderr.strip() or probe.returncode}"
    return None


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
