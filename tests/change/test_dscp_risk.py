"""A lossless DSCP that changes priority or goes lossy is a risk; one that stays where it was is not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.paths import INVENTORY
from xoff.api import load
from xoff.change.analysis import dscp_risks


def _variant(tmp: Path, old: str, new: str) -> Path:
    intent = tmp / "intent"
    shutil.copytree(INVENTORY / "lab-mini", intent)
    qos = intent / "qos.yaml"
    text = qos.read_text(encoding="utf-8")
    assert old in text
    qos.write_text(text.replace(old, new, 1), encoding="utf-8")
    return intent


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("dscp: [26]\n        priority: 3", "dscp: [26]\n        priority: 4", "now class roce, priority 4, lossless"),
        ("dscp: [26]", "dscp: [24]", "now the default class (traffic class 0), lossy"),
        ("weight: 50}\n      cnp", "weight: 60}\n      cnp", None),  # the scheduler only
    ],
)
def test_dscp_risks(tmp_path: Path, old: str, new: str, expected: str | None) -> None:
    base = load(INVENTORY / "lab-mini").state
    head = load(_variant(tmp_path, old, new)).state
    risks = dscp_risks(base, head)
    if expected is None:
        assert risks == []
    else:
        [risk] = risks
        assert risk.cause.startswith("network compute: DSCP 26 moved off the lossless class roce (priority 3)")
        assert f"({expected})" in risk.cause
