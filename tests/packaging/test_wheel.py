"""The wheel carries what an installed xoff needs: the check catalogs, the Ansible playbooks and the Jinja2
templates (kept at the top of the repository, reached from the package through the symlinks in src/xoff/data/)."""

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
    for top in ("validators", "playbooks", "templates"):
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


def test_installed_xoff_reads_the_sku_catalogue_it_carries(installed: Path) -> None:
    """The SKU tables are package data: an installed xoff answers from its own copy (not the checkout's)."""
    done = _xoff(installed, "headroom", "--sku", "ACS-MSN4700", "--speed", "400G", "--cable", "40m", "--format", "json")
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert (row["xon"], row["xoff"], row["size"]) == (37888, 77824, 124928)  # the SKU's pg_profile_lookup.ini row
    shipped = list((installed / "xoff" / "data" / "skus").glob("*/*.yaml"))
    assert len(shipped) == len(list((REPO / "src" / "xoff" / "data" / "skus").glob("*/*.yaml"))) > 100


def test_installed_xoff_renders_with_the_templates_it_carries(installed: Path, tmp_path: Path) -> None:
    """The installed package reads its own copy of templates/ (not the checkout's), and renders what a checkout does."""
    code = "from xoff.render.jinja import environment; print(environment().get_template('frr/frr.conf.j2').filename)"
    env = {**os.environ, "PYTHONPATH": str(installed)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=installed
    )
    template = Path(out.stdout.strip())
    assert template.is_relative_to(installed / "xoff" / "data" / "templates"), template
    assert not (installed / "xoff" / "data" / "templates").is_symlink() and template.is_file()

    intent = str(REPO / "inventory" / "lab-mini")
    from_wheel = _xoff(installed, "render", intent, "-o", str(tmp_path / "wheel"))
    assert from_wheel.returncode == 0, from_wheel.stderr
    checkout_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    from_checkout = subprocess.run(
        [sys.executable, "-m", "xoff", "render", intent, "-o", str(tmp_path / "checkout")],
        capture_output=True,
        text=True,
        env=checkout_env,
        cwd=REPO,
        check=False,
        timeout=300,
    )
    assert from_checkout.returncode == 0, from_checkout.stderr
    wheel_files = {
        p.relative_to(tmp_path / "wheel"): p.read_bytes() for p in (tmp_path / "wheel").rglob("*") if p.is_file()
    }
    checkout_files = {
        p.relative_to(tmp_path / "checkout"): p.read_bytes() for p in (tmp_path / "checkout").rglob("*") if p.is_file()
    }
    assert len(wheel_files) > 10 and wheel_files == checkout_files
