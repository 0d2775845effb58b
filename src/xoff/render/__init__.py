"""Render FabricState into per-device files, write them with a manifest, and diff two outputs."""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from xoff.desired.models import FabricState
from xoff.render.parallel import render_names, render_pool, workers_for

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class RenderedFile:
    device: str
    platform: str
    name: str  # relative to the device's directory
    content: str

    @property
    def path(self) -> str:
        return f"{self.device}/{self.name}"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content.encode()).hexdigest()


def render_fabric(
    state: FabricState, devices: list[str] | None = None, workers: int | None = None
) -> list[RenderedFile]:
    """Every file of every (selected) device, in a stable order.

    ``workers``: processes to render in (``render.parallel``); None: one per core for a large fabric, else 1.
    The files are the same either way.
    """
    wanted = None if devices is None else set(devices)
    names = [n for n in state.devices if wanted is None or n in wanted]
    workers = workers_for(len(names)) if workers is None else workers
    files = render_pool(state, names, workers) if workers > 1 else render_names(state, names)
    return [RenderedFile(*f) for f in files]


def manifest(state: FabricState, files: list[RenderedFile]) -> dict[str, object]:
    devices: dict[str, dict[str, object]] = {}
    for f in files:
        entry = devices.setdefault(f.device, {"platform": f.platform, "files": {}})
        entry["files"][f.name] = f.sha256  # type: ignore[index]
    return {"fabric": state.fabric, "schema_version": 1, "devices": devices}


def write_output(state: FabricState, files: list[RenderedFile], out_dir: Path) -> Path:
    """Write each file under ``out_dir/<device>/`` and ``manifest.json`` (device, platform, files, sha256)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for f in files:
        target = out_dir / f.path
        if target.parent not in made:  # one mkdir per directory, not per file
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(f.content.encode())  # the text as is: no newline translation, one write
    path = out_dir / MANIFEST
    path.write_text(json.dumps(manifest(state, files), indent=2) + "\n", encoding="utf-8")
    return path


def diff_output(files: list[RenderedFile], old_dir: Path, devices: tuple[str, ...] = ()) -> str:
    """Unified diff from an earlier ``xoff render`` output to this one (files added, changed, removed).

    ``devices``: this render covers only these (``--device``); the earlier output's other devices are
    not "removed".
    """
    chunks: list[str] = []
    new_paths = {f.path for f in files}
    old_manifest = old_dir / MANIFEST
    old_paths: set[str] = set()
    if old_manifest.exists():
        old = json.loads(old_manifest.read_text(encoding="utf-8"))
        old_paths = {
            f"{d}/{n}"
            for d, e in old.get("devices", {}).items()
            if not devices or d in devices
            for n in e.get("files", {})
        }
    for f in files:
        before_file = old_dir / f.path
        before = before_file.read_text(encoding="utf-8").splitlines(keepends=True) if before_file.exists() else []
        after = f.content.splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(before, after, f"a/{f.path}", f"b/{f.path}"))
    for gone in sorted(old_paths - new_paths):
        before = (old_dir / gone).read_text(encoding="utf-8").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(before, [], f"a/{gone}", f"b/{gone}"))
    return "".join(chunks)
