"""The CI recipes of docs/ci/ run as CI would run them: each YAML parsed, its shell steps executed in a temporary
git repository (tests/change/repo.py) with the CI variables set to that repository's values, on a pull request
that adds risk and on one that does not. Not run: the install step (``id: install`` / ``before_script``: xoff is
on PATH from this checkout instead) and the ``uses:`` actions (checkout, comment, upload), whose inputs are
checked to exist."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import yaml

from tests.change.repo import git, make_repo
from tests.support.paths import ROOT

CI = ROOT / "docs" / "ci"


def _xoff_on_path(tmp: Path) -> dict[str, str]:
    """The environment of a CI shell: PATH with an ``xoff`` that runs this checkout (the install step's result)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    xoff = bin_dir / "xoff"
    xoff.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m xoff "$@"\n', encoding="utf-8")
    xoff.chmod(xoff.stat().st_mode | stat.S_IEXEC)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "GIT_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def _pull_request(tmp: Path, branch: str) -> Path:
    work = make_repo(tmp)
    git(work, "checkout", "-q", branch)
    return work


def _expand(text: str, values: dict[str, str]) -> str:
    """GitHub's ``${{ expr }}`` for the few expressions the recipe uses."""
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: values[m.group(1)], text)


def _outputs(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


def _run_github(work: Path, env: dict[str, str]) -> tuple[list[int], dict[str, str], list[dict[str, Any]]]:
    doc = yaml.safe_load((CI / "github-actions.yml").read_text(encoding="utf-8"))
    job = doc["jobs"]["change"]
    out_file, summary = work.parent / "github_output", work.parent / "step_summary"
    env = {**env, **{k: str(v) for k, v in doc["env"].items()}, "XOFF_INTENT": "intent"}
    env |= {"GITHUB_OUTPUT": str(out_file), "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(work)}
    codes: list[int] = []
    for step in job["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        values = {"github.base_ref": "main", **{f"steps.change.outputs.{k}": v for k, v in _outputs(out_file).items()}}
        step_env = {**env, **{k: _expand(str(v), values) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _expand(step["run"], values)],
            cwd=work,
            env=step_env,
            capture_output=True,
            text=True,
            check=False,
        )
        codes.append(done.returncode)
    return codes, _outputs(out_file), [s for s in job["steps"] if "uses" in s]


@pytest.mark.parametrize(("branch", "status"), [("static", "1"), ("rack", "0")])
def test_github_actions_workflow(tmp_path: Path, branch: str, status: str) -> None:
    work = _pull_request(tmp_path, branch)
    codes, outputs, actions = _run_github(work, _xoff_on_path(tmp_path))
    assert outputs["status"] == status
    assert codes == [0, int(status)]  # the xoff change step passes (it records); the gate fails on new risk
    md, xml = work / "xoff-change.md", work / "xoff-change.xml"
    assert md.read_text(encoding="utf-8").startswith("## xoff change: ")
    assert ET.parse(xml).getroot().get("failures") == ("0" if status == "0" else "2")
    assert (tmp_path / "step_summary").read_text(encoding="utf-8") == md.read_text(encoding="utf-8")
    uses = {s["uses"].split("@")[0]: s for s in actions}
    assert uses["actions/checkout"]["with"]["fetch-depth"] == 0
    assert uses["marocchino/sticky-pull-request-comment"]["with"]["path"] == md.name
    assert uses["actions/upload-artifact"]["with"]["path"].split() == [md.name, xml.name]
    assert git(work, "status", "--porcelain").splitlines() == ["?? xoff-change.md", "?? xoff-change.xml"]


@pytest.mark.parametrize(("branch", "status"), [("dscp", 1), ("rack", 0)])
def test_gitlab_ci_job(tmp_path: Path, branch: str, status: int) -> None:
    work = _pull_request(tmp_path, branch)
    job = yaml.safe_load((CI / "gitlab-ci.yml").read_text(encoding="utf-8"))["xoff-change"]
    assert job["variables"]["GIT_DEPTH"] == "0" and "pip install" in job["before_script"][0]
    env = _xoff_on_path(tmp_path) | {k: str(v) for k, v in job["variables"].items()}
    env |= {"XOFF_INTENT": "intent", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_PROJECT_DIR": str(work)}
    script = "\n".join(job["script"])  # the runner runs the lines in one shell, stopping at the first failure
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == status, done.stderr
    for path in job["artifacts"]["paths"]:
        assert (work / path).stat().st_size > 0
    junit = ET.parse(work / job["artifacts"]["reports"]["junit"]).getroot()
    assert junit.get("failures") == str(status)
    assert not (work / "note.json").exists()  # no token set: no merge-request note attempted
