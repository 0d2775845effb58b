"""The wheel carries what an installed xoff needs: the check catalogs and the Ansible playbooks (kept
at the top of the repository, reached from the package through the symlinks in src/xoff/data/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT

REPO = ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, unpacked with pip into a directory of its own."""
    work = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(work), str(REPO)], check=True, timeout=300)
    (wheel,) = work.glob("xoff-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for top in ("validators", "playbooks"):
        for f in (REPO / top).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                assert f"xoff/data/{f.relative_to(REPO)}" in names, f"{f.relative_to(REPO)} is not in the wheel"
    target = work / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True, timeout=300)
    return target


def _xoff(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("XOFF_VALIDATORS_DIR", None)
    env.pop("XOFF_PLAYBOOKS", None)
    return subprocess.run(
        [sys.executable, "-m", "xoff", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=site,
        check=False,
        timeout=300,
    )


def test_installed_xoff_finds_its_catalogs_and_playbooks(installed: Path) -> None:
    code = (
        "import xoff; from xoff.validate.catalog import validators_dir; from xoff.push.ansible_engine import playbooks_dir;"
        "print(xoff.__file__); print(validators_dir()); print(playbooks_dir())"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    env.pop("XOFF_VALIDATORS_DIR", None)
    env.pop("XOFF_PLAYBOOKS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    package, catalogs, playbooks = (Path(line) for line in out.splitlines())
    assert package.is_relative_to(installed)
    assert catalogs.is_relative_to(installed) and not catalogs.is_symlink()
    assert sorted(p.name for p in catalogs.glob("*.yaml")) == ["audit.yaml", "default.yaml", "pre-change.yaml"]
    assert (playbooks / "push.yml").is_file() and playbooks.is_relative_to(installed)


def test_installed_xoff_validates_an_intent(installed: Path) -> None:
    done = _xoff(installed, "validate", str(REPO / "inventory" / "lab-mini"), "--offline", "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["failure"] == 0 and summary["success"] > 10, summary
