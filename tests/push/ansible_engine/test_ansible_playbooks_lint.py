"""playbooks/ passes ansible-lint (production profile), offline: no Galaxy, collections from the venv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT


def test_ansible_lint_passes_offline(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-lint"), "--offline", "--nocolor", "playbooks/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "ANSIBLE_LOCAL_TEMP": str(tmp_path), "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stderr + done.stdout
    assert "production" in done.stderr + done.stdout, "the strictest profile met"
