"""Render plumbing: output layout, manifest hashes, and the diff against an earlier output."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from xoff.platforms.registry import platforms
from xoff.render import RenderedFile, diff_output, write_output
from xoff.render.registry import renderer_names


def _files(text: str = "a\nb\n") -> list[RenderedFile]:
    return [
        RenderedFile("leaf1", "sonic", "config_db.json", text),
        RenderedFile("gpu1", "linux", "nccl.env", "NCCL_IB_TC=106\n"),
    ]


def test_write_output_and_manifest(tmp_path: Path, lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    manifest_path = write_output(state, _files(), tmp_path)
    assert (tmp_path / "leaf1" / "config_db.json").read_text() == "a\nb\n"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["fabric"] == "lab-mini"
    assert manifest["devices"]["leaf1"] == {
        "platform": "sonic",
        "files": {"config_db.json": hashlib.sha256(b"a\nb\n").hexdigest()},
    }


def test_diff_shows_changes_additions_and_removals(tmp_path: Path, lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    write_output(state, _files(), tmp_path)
    assert diff_output(_files(), tmp_path) == ""
    changed = [RenderedFile("leaf1", "sonic", "config_db.json", "a\nc\n"), RenderedFile("leaf2", "sonic", "x", "new\n")]
    diff = diff_output(changed, tmp_path)
    assert "--- a/leaf1/config_db.json\n+++ b/leaf1/config_db.json\n" in diff
    assert "-b\n+c\n" in diff
    assert "+++ b/leaf2/x\n" in diff and "+new\n" in diff
    assert "--- a/gpu1/nccl.env\n+++ b/gpu1/nccl.env\n" in diff and "-NCCL_IB_TC=106\n" in diff


def test_every_device_platform_has_renderers(lab_mini_state: Any) -> None:
    _, state = lab_mini_state
    for device in state.devices.values():
        assert device.platform in platforms()
    assert renderer_names(state.devices["leaf1"]) == ("sonic", "frr")
    assert renderer_names(state.devices["gpu1"]) == ("host",)


def test_unknown_platform_is_named() -> None:
    from xoff.desired.models import Device

    dev = Device(name="x", kind="switch", platform="junos", role="leaf", mgmt_address="192.0.2.9", interfaces={})
    with pytest.raises(KeyError, match=r"no renderer for platform 'junos' \(allowed: sonic, eos"):
        renderer_names(dev)
