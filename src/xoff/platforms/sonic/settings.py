"""Where the SONiC YANG models are read from.

The models are SONiC's files, kept outside the repository (``../shared/schemas/sonic-yang`` beside
the checkout in development and CI); a user points ``XOFF_SONIC_YANG_DIR`` at the models of the
SONiC release they run. xoff never copies them.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_YANG_DIR = "XOFF_SONIC_YANG_DIR"

# src/xoff/platforms/sonic/settings.py -> parents[4] is the checkout's root
_REPO_ROOT = Path(__file__).resolve().parents[4]
DEFAULT_YANG_DIRS: tuple[Path, ...] = (
    _REPO_ROOT.parent / "shared" / "schemas" / "sonic-yang",
    Path("/work/shared/schemas/sonic-yang"),
)


class YangDirNotFoundError(FileNotFoundError):
    """No directory of SONiC YANG models could be found."""


def yang_dir(explicit: Path | None = None) -> Path:
    """The SONiC YANG model directory: ``explicit``, else ``$XOFF_SONIC_YANG_DIR``, else the first
    existing default. Raises ``YangDirNotFoundError`` naming every place it looked."""
    if explicit is not None:
        return _checked(Path(explicit), "argument")
    env = os.environ.get(ENV_YANG_DIR)
    if env:
        return _checked(Path(env), f"${ENV_YANG_DIR}")
    for candidate in DEFAULT_YANG_DIRS:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(p) for p in DEFAULT_YANG_DIRS)
    raise YangDirNotFoundError(f"no SONiC YANG model directory found (tried {tried}); set ${ENV_YANG_DIR}")


def _checked(path: Path, origin: str) -> Path:
    if not path.is_dir():
        raise YangDirNotFoundError(f"SONiC YANG model directory {path} (from {origin}) does not exist")
    if not any(path.glob("*.yang")):
        raise YangDirNotFoundError(f"SONiC YANG model directory {path} (from {origin}) has no *.yang files")
    return path
