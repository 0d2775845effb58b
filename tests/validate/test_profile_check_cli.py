"""``xoff check`` on lab-mini under each congestion-control profile: clean where the classes fit the profile, and the
wrong pfc-only variant (ECN still marking on the lossless queue) caught by lossless.pfc_only_no_ecn, exit 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.profiles import lab_mini_with


def _check(path: Path) -> tuple[int, dict[str, object]]:
    r = subprocess.run(
        [sys.executable, "-m", "xoff", "check", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    return r.returncode, json.loads(r.stdout)


@pytest.mark.parametrize("profile", ["pfc-only", "ecn-only"])
def test_check_is_clean(tmp_path: Path, profile: str) -> None:
    code, doc = _check(lab_mini_with(tmp_path, profile))
    assert code == 0 and doc["ok"] is True, doc
    checks = {c["id"]: c["status"] for c in doc["checks"]}  # type: ignore[attr-defined]
    mine = "lossless.pfc_only_no_ecn" if profile == "pfc-only" else "lossless.ecn_only_no_pfc"
    assert checks[mine] == "success"
    assert set(checks.values()) <= {"success", "skipped"}


def test_the_wrong_pfc_only_variant_is_caught(tmp_path: Path) -> None:
    code, doc = _check(lab_mini_with(tmp_path, "pfc-only", keep_ecn=True))
    assert code == 1
    failed = {c["id"] for c in doc["checks"] if c["status"] == "failure"}  # type: ignore[attr-defined]
    assert failed == {"lossless.pfc_only_no_ecn"}
