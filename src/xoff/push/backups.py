"""Backups: ``<backup dir>/<run id>/<device>``, mode 0600 in a 0700 directory, secrets masked."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from xoff.connect.credentials import mask


def backup_path(root: Path, run_id: str, device: str) -> Path:
    return root / run_id / device


def write_backup(root: Path, run_id: str, device: str, text: str, secrets: Iterable[str]) -> Path:
    path = backup_path(root, run_id, device)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.parent.chmod(0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(mask(text, secrets))
    path.chmod(0o600)
    return path
