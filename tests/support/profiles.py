"""lab-mini with another congestion-control profile: a copy whose qos.yaml the test rewrites."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

LAB_MINI = Path(__file__).resolve().parents[2] / "inventory" / "lab-mini"


def _pfc_only(policy: dict[str, Any]) -> None:
    for cls in policy["classes"].values():
        if cls.get("lossless"):
            cls.pop("ecn", None)


def _ecn_only(policy: dict[str, Any]) -> None:
    for name, cls in policy["classes"].items():
        if cls.get("lossless"):
            cls["lossless"] = False
            policy["roce_class"] = name


SHAPES = {"dcqcn": lambda _policy: None, "custom": lambda _policy: None, "pfc-only": _pfc_only, "ecn-only": _ecn_only}


def lab_mini_with(tmp: Path, profile: str, *, keep_ecn: bool = False) -> Path:
    """A copy of lab-mini whose two RoCE policies run ``profile`` with the classes it needs (pfc-only: no ECN
    on the lossless classes unless ``keep_ecn``, the wrong variant; ecn-only: no lossless class, RoCE named)."""
    out = tmp / f"lab-mini-{profile}{'-ecn' if keep_ecn else ''}"
    shutil.copytree(LAB_MINI, out)
    qos_file = out / "qos.yaml"
    doc = yaml.safe_load(qos_file.read_text(encoding="utf-8"))
    for policy in doc["qos_policies"].values():
        if not any(c.get("lossless") for c in policy["classes"].values()):
            continue  # a lossy policy (management) keeps the default
        if not keep_ecn:
            SHAPES[profile](policy)
        policy["congestion_control"] = {"profile": profile}
    qos_file.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return out
