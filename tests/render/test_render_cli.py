"""`xoff render` end to end: every platform's files for the examples, stable, with a manifest and --diff."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

INVENTORY = ROOT / "inventory"


def xoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xoff", *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("example", "expected"),
    [
        (
            "lab-mini",
            {
                "leaf1": ["config_db.json", "frr.conf"],
                "spine2": ["running-config"],
                "sleaf1": ["nvue-commands.txt", "startup.yaml"],
                "gpu1": ["nccl.env", "xoff-host-apply.sh", "xoff-host-state.json"],
            },
        ),
        (
            "ib-pod",
            {
                "sm01": [
                    "cn_guids.txt",
                    "nccl.env",
                    "opensm.conf",
                    "partitions.conf",
                    "qos-policy.conf",
                    "root_guids.txt",
                    "xoff-host-apply.sh",
                    "xoff-host-state.json",
                ]
            },
        ),
    ],
)
def test_render_writes_every_platform_with_a_true_manifest(
    example: str, expected: dict[str, list[str]], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    r = xoff("render", str(INVENTORY / example), "-o", str(out))
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    for device, names in expected.items():
        assert sorted(manifest["devices"][device]["files"]) == names
    for device, entry in manifest["devices"].items():
        for name, digest in entry["files"].items():
            assert hashlib.sha256((out / device / name).read_bytes()).hexdigest() == digest
    # InfiniBand switches are programmed by the SM: no files of their own
    assert not any(d.startswith("ib") and "leaf" in d for d in manifest["devices"])


def test_render_twice_is_byte_identical_and_diff_shows_edits(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert xoff("render", str(INVENTORY / "roce-pod"), "-o", str(first)).returncode == 0
    assert xoff("render", str(INVENTORY / "roce-pod"), "-o", str(second)).returncode == 0
    assert (first / "manifest.json").read_bytes() == (second / "manifest.json").read_bytes()
    r = xoff("render", str(INVENTORY / "roce-pod"), "--diff", str(first))
    assert (r.returncode, r.stdout) == (0, "")
    conf = first / "leaf0" / "frr.conf"
    conf.write_text(conf.read_text().replace("maximum-paths 64", "maximum-paths 8"))
    r = xoff("render", str(INVENTORY / "roce-pod"), "--diff", str(first))
    assert r.returncode == 1  # something differs: CI can gate on it (diff(1)'s convention)
    assert r.stdout.startswith("--- a/leaf0/frr.conf\n+++ b/leaf0/frr.conf\n")
    assert "-  maximum-paths 8\n+  maximum-paths 64\n" in r.stdout


def test_render_device_filter_and_bad_input(tmp_path: Path) -> None:
    r = xoff("render", str(INVENTORY / "lab-mini"), "-o", str(tmp_path), "-d", "leaf1", "-d", "gpu2")
    assert r.returncode == 0
    assert sorted(json.loads((tmp_path / "manifest.json").read_text())["devices"]) == ["gpu2", "leaf1"]
    r = xoff("render", str(INVENTORY / "lab-mini"), "-o", str(tmp_path), "-d", "nope")
    assert r.returncode == 2 and "no device named 'nope'" in r.stderr
    r = xoff("render", str(INVENTORY / "lab-mini"), "--diff", str(tmp_path / "missing"))
    assert r.returncode == 2 and "not a directory" in r.stderr
